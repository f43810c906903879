"""``relkit eval``: trec_eval-compatible evaluation from the command line.

Data goes to stdout, diagnostics to stderr. Errors are library exceptions,
printed once, on one line, by the CLI root (:mod:`relkit.judging.cli`).
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import IO, Annotated, Literal, get_args

import typer

from relkit.metrics.core.progress import Bar

Format = Literal["trec", "tsv", "csv", "json", "parquet"]
FORMATS = get_args(Format)

app = typer.Typer(add_completion=False, no_args_is_help=True)

EPILOG = """Examples:

  relkit eval qrels.txt run.txt                       # trec_eval's official measures

  relkit eval -q -m all_trec -l2 qrels.txt run1 run2  # per topic, grade >= 2 relevant

  relkit eval -m nDCG@10 -m P@5 --format csv qrels.txt run.txt
"""


class _NoPandas:
    """Import hook that makes ``import pandas`` fail (used only momentarily)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not needed for this command")


def _skip_pyarrow_pandas_probe() -> None:
    """Spare ``relkit eval`` the ~0.3 s pandas import.

    pyarrow probes for pandas on its first numpy conversion and imports it if
    installed. We let that optional probe fail; pyarrow retries the import when
    pandas is really required (``to_pandas``), so nothing else changes.
    """
    if "pandas" in sys.modules:
        return
    import numpy as np
    import pyarrow as pa

    hook = _NoPandas()
    sys.meta_path.insert(0, hook)
    try:
        pa.array(np.zeros(1))
        with contextlib.suppress(ImportError):  # the hash join's module probes too
            import pyarrow.acero  # noqa: F401
    finally:
        sys.meta_path.remove(hook)


def _load_zscores(path: Path) -> dict[tuple[str, str], tuple[float, float]]:
    from relkit.metrics.errors import FormatError

    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise FormatError(str(path), number, "4 fields: qid measure mean stddev", raw)
        try:
            table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise FormatError(str(path), number, "numeric mean and stddev", raw) from None
    return table


def list_measures() -> str:
    from relkit.metrics.measures import load_all
    from relkit.metrics.measures.base import REGISTRY
    from relkit.metrics.measures.trec_table import NICKNAMES

    load_all()
    rows = []
    for fam in REGISTRY.values():
        readable = (fam.readable or "").replace("{}", "k")
        params = f"[.{fam.default}]" if fam.default else ""
        origin = "trec_eval" if fam.trec else "relkit"
        rows.append(f"{fam.name + params:<48} {readable:<12} {origin:<9} {fam.description}")
    nick = "\n".join(f"{k:<12} {' '.join(v)}" for k, v in NICKNAMES.items())
    return "\n".join(rows) + "\n\nNicknames:\n" + nick + "\n"


@app.command("eval", epilog=EPILOG)
def eval_cmd(
    qrels: Annotated[Path | None, typer.Argument(help="Qrels file (4 or 3 columns; .gz ok)")]
        = None,
    runs: Annotated[list[Path] | None, typer.Argument(
        help="One or more TREC run files ('-' reads one from stdin)")]
        = None,
    measure: Annotated[list[str] | None, typer.Option(
        "-m", "--measure", help="Measure or nickname: P.5,10 / P@5 / nDCG@10 / all_trec. "
        "Repeatable. Default: official")] = None,
    query: Annotated[bool, typer.Option("-q", help="Print per-topic values too")] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="No summary ('all') lines")] = False,
    complete: Annotated[bool, typer.Option(
        "-c", help="Average over all qrels topics (missing ones score 0)")] = False,
    level: Annotated[int, typer.Option("-l", help="Lowest grade counted as relevant")] = 1,
    max_docs: Annotated[int | None, typer.Option(
        "-M", help="Evaluate only the top M documents of each topic")] = None,
    judged_only: Annotated[bool, typer.Option(
        "-J", help="Drop unjudged documents from the ranking")] = False,
    num_docs: Annotated[int, typer.Option(
        "-N", help="Documents in the collection (utility, fallout)")] = 0,
    zscores: Annotated[Path | None, typer.Option(
        "-Z", help="Z-score file: lines 'qid measure mean stddev'")] = None,
    relformat: Annotated[str, typer.Option(
        "-R", help="Judgment format: qrels, prefs, qrels_prefs, qrels_jg")] = "qrels",
    compat: Annotated[int, typer.Option(
        "--compat", help="10: trec_eval 10 (default); 9: trec_eval 9.0.8 / pytrec_eval")] = 10,
    fmt: Annotated[str, typer.Option(
        "--format", help="trec (default), tsv, csv, json, parquet")] = "trec",
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write here instead of stdout (needed for parquet)")] = None,
    list_: Annotated[bool, typer.Option(
        "--list-measures", help="List every measure with a one-line description")] = False,
) -> None:
    """Evaluate runs against qrels with trec_eval's exact numbers.

    Example: relkit eval -m AP -m nDCG@10 qrels.txt run1.txt run2.txt
    """
    if list_:
        sys.stdout.write(list_measures())
        return
    if qrels is None or not runs:
        raise typer.BadParameter("give a QRELS file and at least one RUN file")
    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if compat not in (9, 10):
        raise typer.BadParameter(f"--compat must be 9 or 10; got {compat}")
    if relformat != "qrels":
        from relkit.metrics.trec_eval.modes import run_mode

        sys.stdout.write(run_mode(relformat, qrels, runs, measure or [], query, max_docs,
                                  summary=not no_summary, complete=complete, compat=compat,
                                  level=level, judged_only=judged_only))
        return
    if fmt == "trec":
        _skip_pyarrow_pandas_probe()
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.trec_eval.format import lines

    measures = measure or ["official"]
    ev = Evaluator(Qrels.read(qrels), measures, level=level, judged_only=judged_only,
                   max_docs=max_docs, complete=complete, num_docs=num_docs,
                   compat=compat)  # type: ignore[arg-type]
    z = _load_zscores(zscores) if zscores else None
    frames = []
    with contextlib.ExitStack() as stack:
        out: IO[str] = sys.stdout
        if output and fmt == "trec":
            out = stack.enter_context(open(output, "w", encoding="utf-8"))
        for path in runs:
            # the bar is closed (and erased) before this run's lines are written
            with Bar(f"evaluating {path}") as bar:
                source = sys.stdin.buffer if str(path) == "-" else path   # '-': stdin
                res = ev.compute(Run.read(source, eval_only=True), z, bar.update)
            if fmt == "trec":
                out.writelines(lines(res, per_query=query, summary=not no_summary,
                                     compat=compat, zscores=z is not None))
            else:
                frames.append(_tidy(res, query, not no_summary))
    if fmt != "trec":
        _write_tidy(frames, fmt, output)


def _tidy(res, per_query: bool, summary: bool):  # noqa: ANN001, ANN202
    import pandas as pd

    rows = []
    for m, v, s in zip(res.measures, res.values, res.summary, strict=True):
        if per_query and v is not None:
            for qid, x in zip(res.topics, v, strict=True):
                rows.append((res.run_id, qid, str(m), m.output, x))
        if summary and s is not None:
            rows.append((res.run_id, "all", str(m), m.output, s))
    return pd.DataFrame(rows, columns=["run_id", "query_id", "measure", "trec_name", "value"])


def _write_tidy(frames: list, fmt: str, output: Path | None) -> None:  # noqa: ANN001
    import pandas as pd

    df = pd.concat(frames, ignore_index=True)
    if fmt == "parquet":
        if output is None:
            raise typer.BadParameter("--format parquet needs -o FILE")
        df["value"] = df["value"].astype(str)
        df.to_parquet(output)
        return
    target = output if output else sys.stdout
    if fmt in ("tsv", "csv"):
        df.to_csv(target, sep="\t" if fmt == "tsv" else ",", index=False)
    else:
        text = json.dumps(df.to_dict(orient="records"), default=float)
        if output:
            Path(output).write_text(text + "\n")
        else:
            sys.stdout.write(text + "\n")
