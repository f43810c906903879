"""``relkit compare``: systems x measures with significance, and an HTML report.

Heavy imports (pandas, scipy, matplotlib) happen inside the command, so the
CLI starts as fast as before.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from relkit.metrics.commands.numopt import COUNT, GRADE, PROPORTION, SEED, Num
from relkit.metrics.commands.run_names import NameFromFileOption, NamesOption
from relkit.metrics.compare.corrections import CORRECTIONS
from relkit.metrics.compare.formats import FORMATS
from relkit.metrics.compare.significance import TESTS

app = typer.Typer(add_completion=False, no_args_is_help=True)

EPILOG = """Examples:

  relkit compare qrels.txt bm25.txt lm.txt rm3.txt               # every pair, t test, Holm

  relkit compare -m AP -m nDCG@10 --baseline bm25 --test randomisation qrels.txt runs/*.txt

  relkit compare --format latex --ci 0.95 --html report.html qrels.txt runs/*.txt
"""


@app.command("compare", epilog=EPILOG)
def compare_cmd(
    qrels: Annotated[Path, typer.Argument(
        help="Qrels file (4 or 3 columns; .gz ok; '-' reads it from stdin)")],
    runs: Annotated[list[Path], typer.Argument(
        help="Two or more TREC run files; systems are named by file (stem); '-' reads "
        "one from stdin (named 'stdin')")],
    measure: Annotated[list[str] | None, typer.Option(
        "-m", "--measure", help="Measure averaged over topics (AP, nDCG@10, P.10...). "
        "Repeatable. Default: AP, nDCG@10, P@10")] = None,
    baseline: Annotated[str | None, typer.Option(
        "--baseline", help="Test each system against this one (its name or file); "
        "default: every pair")] = None,
    test: Annotated[str, typer.Option(
        "--test", help=f"Paired test: {', '.join(TESTS.names())}")] = "t",
    correction: Annotated[str, typer.Option(
        "--correction", help=f"Multiple-comparison correction: "
        f"{', '.join(CORRECTIONS.names())}")] = "holm",
    alpha: Annotated[float, Num("--alpha", within=PROPORTION, help="Significance level")] = 0.05,
    samples: Annotated[int, Num(
        "--samples", within=COUNT,
        help="Samples of the randomisation and bootstrap tests")] = 10_000,
    seed: Annotated[int, Num("--seed", within=SEED, help="Seed of the resampling")] = 0,
    ci: Annotated[float | None, Num(
        "--ci", within=PROPORTION,
        help="Show a confidence interval of each mean at this level (e.g. 0.95)")]
        = None,
    ci_method: Annotated[str, typer.Option(
        "--ci-method", help="Interval: t (Student) or bootstrap (percentile)")] = "t",
    fmt: Annotated[str, typer.Option(
        "--format", help=f"Table format: {', '.join(FORMATS.names())}")] = "rich",
    pairs: Annotated[bool, typer.Option(
        "--pairs", help="Print every tested pair (p, adjusted p, effect) as CSV "
        "(JSON with --format json) instead of the table")] = False,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Also write a self-contained HTML report with charts here")] = None,
    per_topic: Annotated[str | None, typer.Option(
        "--per-topic", help="Measure of the report's per-topic charts (default AP)")] = None,
    level: Annotated[int, Num("-l", within=GRADE, help="Lowest grade counted as relevant")] = 1,
    complete: Annotated[bool, typer.Option(
        "-c", help="Use every judged topic (runs score 0 where they have no lines)")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write the table here instead of stdout")] = None,
    names: NamesOption = None,
    name_from_file: NameFromFileOption = False,
) -> None:
    """Compare systems: mean of each measure, with paired significance tests.

    Systems are named by their files (as --name-from-file does; run tags often repeat),
    or by --names. Means are printed to 4 decimals. The best of each measure is in bold,
    and so is every system a reader cannot tell from it: its mean prints the same, or
    equals the best up to floating-point noise (53/60 summed in another order). csv and
    json give the full numbers.

    Example: relkit compare -m AP -m P@10 --baseline bm25 qrels.txt bm25.txt lm.txt
    """
    from relkit.metrics.compare.command import CompareRequest, compare_files
    from relkit.metrics.core.errors import check_outputs

    check_outputs((output, "-o"), (html, "--html"))   # before the work
    done = compare_files(CompareRequest(
        qrels=qrels, runs=runs, measure=measure, baseline=baseline, test=test,
        correction=correction, alpha=alpha, samples=samples, seed=seed, ci=ci,
        ci_method=ci_method, fmt=fmt, pairs=pairs, per_topic=per_topic, level=level,
        complete=complete, names=names, name_from_file=name_from_file),
        warn=lambda msg: sys.stderr.write(msg + "\n"))
    text = done.text(to_terminal=output is None)
    if text is None:
        _print_rich(done.result)
    elif output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if html is not None:
        from relkit.metrics.core.exitgc import freeze_at_exit

        done.write_html(html)
        sys.stderr.write(f"relkit: report written to {html}\n")
        freeze_at_exit()  # the collector's last pass over matplotlib's objects: ~1.5 s


def _print_rich(result: object) -> None:
    """The comparison as a rich table on the terminal."""
    from rich.console import Console

    from relkit.metrics.compare.terminal import rich_table

    # NO_COLOR (no-color.org): rich drops colours itself; no styling at all either.
    plain = bool(os.environ.get("NO_COLOR"))
    Console(soft_wrap=False, color_system=None if plain else "auto").print(
        rich_table(result))  # type: ignore[arg-type]
