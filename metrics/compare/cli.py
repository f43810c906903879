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
from relkit.metrics.core.progress import Bar

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
    from relkit.metrics.commands.run_names import run_labels
    from relkit.metrics.compare.core import CI_METHODS, compare
    from relkit.metrics.compare.errors import CompareError
    from relkit.metrics.core.options import OptionError, option_value
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import resolve

    # Values the options cannot take are usage errors (exit 2), found before any work.
    with option_value("--format"):
        form = FORMATS.lookup(fmt)
    with option_value("--test"):
        TESTS.lookup(test)
    with option_value("--correction"):
        CORRECTIONS.lookup(correction)
    with option_value("-m"):
        resolve(measure or [])
    with option_value("--per-topic"):
        resolve([per_topic] if per_topic else [])
    if ci_method not in CI_METHODS:
        raise OptionError("--ci-method", f"expected one of {', '.join(CI_METHODS)}; got "
                          f"{ci_method!r}")
    if not 0 < alpha < 1:
        raise OptionError("--alpha", f"expected a number in (0, 1); got {alpha}")
    if ci is not None and not 0 < ci < 1:
        raise OptionError("--ci", f"expected a confidence level in (0, 1); got {ci}")
    if len(runs) < 2:  # a missing argument: a usage error (exit 2)
        raise typer.BadParameter("give at least two RUN files to compare")
    if [str(p) for p in (qrels, *runs)].count("-") > 1:
        raise typer.BadParameter("stdin ('-') can feed the qrels or one run, not "
                                 f"{'both' if str(qrels) == '-' else 'two runs'}")
    # the files' names unless --names: compare never names a system by its run tag
    labels = run_labels(runs, names, name_from_file) or run_labels(runs, None, True) or []
    if len(set(labels)) != len(labels):
        twice = sorted({str(p) for p, n in zip(runs, labels, strict=True) if labels.count(n) > 1})
        raise CompareError(f"the same run file is given twice: {', '.join(twice)}")
    if baseline is not None:
        by_file = {str(p): n for p, n in zip(runs, labels, strict=True)}
        baseline = by_file.get(baseline, baseline)
    q = Qrels.read(sys.stdin.buffer if str(qrels) == "-" else qrels)  # '-': stdin
    from relkit.metrics.commands.grade_checks import inverted_grades

    inverted = inverted_grades(q)     # said, not refused: the numbers are still shown
    if inverted is not None:
        sys.stderr.write(f"relkit compare: warning: {inverted}\n")
    loaded = {n: Run.read(sys.stdin.buffer if str(p) == "-" else p)  # '-': stdin
              for n, p in zip(labels, runs, strict=True)}
    with Bar("evaluating runs", len(loaded), unit="runs") as bar:
        cmp = compare(q, loaded, measure or ["AP", "nDCG@10", "P@10"], baseline=baseline,
                      test=test, correction=correction, alpha=alpha, samples=samples,
                      seed=seed, ci=ci, ci_method=ci_method,  # type: ignore[arg-type]
                      level=level, complete=complete, progress=bar.update)
    if pairs:
        frame = cmp.pairs_frame()
        text = (frame.to_json(orient="records", indent=2) + "\n" if form.name == "json"
                else frame.to_csv(index=False))
    elif form.name == "rich" and output is None:
        from rich.console import Console

        from relkit.metrics.compare.terminal import rich_table

        # NO_COLOR (no-color.org): rich drops colours itself; no styling at all either.
        plain = bool(os.environ.get("NO_COLOR"))
        Console(soft_wrap=False, color_system=None if plain else "auto").print(rich_table(cmp))
        text = ""
    else:
        text = form.render(cmp)
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if html is not None:
        from relkit.metrics.compare.report import html_report

        sources = {"Qrels": str(qrels), **{f"Run {n}": str(p) for n, p in
                                           zip(labels, runs, strict=True)}}
        from relkit.metrics.compare.report import report_steps
        from relkit.metrics.core.exitgc import freeze_at_exit

        # Shown from the first table to the written file (each chart named; matplotlib's
        # import is in the first): seconds, not a hang. Its last label names the file.
        steps = report_steps(cmp, q, loaded) + 1
        with Bar("the report's tables", steps, unit="steps") as bar:
            report = html_report(cmp, q, loaded, measure=per_topic, level=level,
                                 sources=sources,
                                 progress=lambda done, _, label: bar.update(done, label=label))
            bar.update(steps - 1, label=f"writing the report to {html}")
            html.write_text(report, encoding="utf-8")
            bar.update(steps, label=f"report written to {html}")
        sys.stderr.write(f"relkit: report written to {html}\n")
        freeze_at_exit()  # the collector's last pass over matplotlib's objects: ~1.5 s
