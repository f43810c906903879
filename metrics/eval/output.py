"""What ``relkit eval`` writes besides trec_eval's text: tidy tables and warnings.

The tidy formats (tsv, csv, json, parquet) share one table, ``run_id, query_id,
measure, trec_name, value``; the warnings are the lines said on stderr after the
numbers (the CLI, :mod:`relkit.metrics.eval.cli`, prints them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # type names only: pandas is imported by the formats that need it
    from pathlib import Path

    import pandas as pd

    from relkit.metrics.evaluator import Result
    from relkit.metrics.zeros import ZeroTopics


def _warnings(zeros: ZeroTopics, run_ids: dict[str, list[str]],
              qrels: os.PathLike[str] | str) -> Iterator[str]:
    """What ``relkit eval`` says on stderr after the numbers (each at most once)."""
    def some(topics: list[str]) -> str:
        shown = ", ".join(topics[:10])
        return shown + (f", ... ({len(topics) - 10} more)" if len(topics) > 10 else "")

    def count(topics: list[str]) -> tuple[str, str, str]:
        one = len(topics) == 1
        return (f"{len(topics)} topic{'' if one else 's'} of {qrels}", "has" if one else "have",
                "scores" if one else "score")

    if zeros.unjudged:
        n, have, score = count(zeros.unjudged)
        yield (f"{n} {have} no judged document (only -1 lines: pooled, unjudged) and {score} "
               f"0 for every run: {some(zeros.unjudged)}; see docs/trec_eval.md, "
               "'Silent zeros'")
    if zeros.no_relevant:
        n, have, score = count(zeros.no_relevant)
        yield (f"{n} {have} no document graded >= {zeros.level} (-l) and {score} 0 on every "
               f"relevance measure for every run: {some(zeros.no_relevant)}; see "
               "docs/trec_eval.md, 'Silent zeros'")
    yield from shared_run_ids(run_ids)


def shared_run_ids(run_ids: dict[str, list[str]]) -> Iterator[str]:
    """A warning for each run id that labels several run files (``run_ids``: label ->
    the files it labels), said by every ``-R`` format's ``relkit eval``."""
    for run_id, paths in run_ids.items():
        if len(paths) > 1:
            yield (f"runs {', '.join(paths)} have the same run id {run_id!r}: their results "
                   "carry the same label (--name-from-file or --names tells them apart)")


def _tidy(res: Result, per_query: bool, summary: bool) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for m, v, s in zip(res.measures, res.values, res.summary, strict=True):
        if m.output == "runid":   # the run_id column says it on every row
            continue
        if per_query and v is not None:
            for qid, x in zip(res.topics, v, strict=True):
                rows.append((res.run_id, qid, str(m), m.output, x))
        if summary and s is not None:
            rows.append((res.run_id, "all", str(m), m.output, s))
    return pd.DataFrame(rows, columns=["run_id", "query_id", "measure", "trec_name", "value"])


def _write_tidy(frames: list[pd.DataFrame], fmt: str, output: Path | str | None) -> None:
    import pandas as pd

    df: pd.DataFrame = pd.concat(frames, ignore_index=True)
    if fmt == "parquet":
        if output is None:
            import typer  # only here: the fast entry (eval_argv) never gets this far

            raise typer.BadParameter("--format parquet needs -o FILE")
        # Numbers stay numbers (float64); a measure whose value is text (relstring)
        # keeps it in a `text` column, its `value` left empty.
        numeric = pd.to_numeric(df["value"], errors="coerce")
        words = df["value"].where(numeric.isna() & df["value"].notna())
        df["value"] = numeric.astype("float64")
        if words.notna().any():
            df["text"] = words.astype("string")
        df.to_parquet(output)
        return
    target = output if output else sys.stdout
    if fmt in ("tsv", "csv"):
        df.to_csv(target, sep="\t" if fmt == "tsv" else ",", index=False)
    else:
        import json

        text = json.dumps(df.to_dict(orient="records"), default=float)
        if output:
            from pathlib import Path

            Path(output).write_text(text + "\n")
        else:
            sys.stdout.write(text + "\n")
