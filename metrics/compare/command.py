"""``relkit compare``'s work: check the options, read the qrels and runs, compare.

:func:`compare_files` checks every option value before it reads a file (a usage error
names the option), names the systems by their files (or ``--names``), reads the
inputs (``-`` is stdin, for the qrels or one run), and compares
(:func:`relkit.metrics.compare.core.compare`). :class:`Compared` renders the table
(:meth:`Compared.text`) and writes the HTML report (:meth:`Compared.write_html`). The
command prints; this module never does (a warning on the qrels goes to ``warn``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relkit.metrics.core.options import OptionError, option_value
from relkit.metrics.core.progress import Bar

DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10"]


@dataclass(frozen=True, kw_only=True)
class CompareRequest:
    """What ``relkit compare`` was asked (its options, by their parameters' names)."""

    qrels: Path
    runs: list[Path]
    measure: list[str] | None = None
    baseline: str | None = None
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    samples: int = 10_000
    seed: int = 0
    ci: float | None = None
    ci_method: str = "t"
    fmt: str = "rich"
    pairs: bool = False
    per_topic: str | None = None
    level: int = 1
    complete: bool = False
    names: str | None = None
    name_from_file: bool = False


@dataclass(frozen=True)
class Compared:
    """A comparison and what it was made from: the request, the table format, the
    systems' names (in the runs' order), the qrels and the runs by name."""

    request: CompareRequest
    form: Any
    labels: list[str]
    qrels: Any
    runs: dict[str, Any]
    result: Any

    def text(self, to_terminal: bool) -> str | None:
        """The table (or the tested pairs with ``--pairs``) as text; None when it is for
        the terminal's rich table (``--format rich`` to stdout), which the caller prints
        (:func:`relkit.metrics.compare.terminal.rich_table`)."""
        if self.request.pairs:
            frame = self.result.pairs_frame()
            text: str = (frame.to_json(orient="records", indent=2) + "\n"
                         if self.form.name == "json" else frame.to_csv(index=False))
            return text
        if self.form.name == "rich" and to_terminal:
            return None
        return str(self.form.render(self.result))

    def write_html(self, html: Path) -> None:
        """The self-contained HTML report with charts, written to ``html``."""
        from relkit.metrics.compare.report import html_report, report_steps

        r = self.request
        sources = {"Qrels": str(r.qrels), **{f"Run {n}": str(p) for n, p in
                                             zip(self.labels, r.runs, strict=True)}}
        # Shown from the first table to the written file (each chart named; matplotlib's
        # import is in the first): seconds, not a hang. Its last label names the file.
        steps = report_steps(self.result, self.qrels, self.runs) + 1
        with Bar("the report's tables", steps, unit="steps") as bar:
            report = html_report(self.result, self.qrels, self.runs, measure=r.per_topic,
                                 level=r.level, sources=sources,
                                 progress=lambda done, _, label: bar.update(done, label=label))
            bar.update(steps - 1, label=f"writing the report to {html}")
            html.write_text(report, encoding="utf-8")
            bar.update(steps, label=f"report written to {html}")


def check(r: CompareRequest) -> Any:
    """Raise :class:`OptionError` for a value an option cannot take (before any work);
    the table format."""
    from relkit.metrics.compare.core import CI_METHODS
    from relkit.metrics.compare.corrections import CORRECTIONS
    from relkit.metrics.compare.formats import FORMATS
    from relkit.metrics.compare.significance import TESTS
    from relkit.metrics.evaluator import resolve

    with option_value("--format"):
        form = FORMATS.lookup(r.fmt)
    with option_value("--test"):
        TESTS.lookup(r.test)
    with option_value("--correction"):
        CORRECTIONS.lookup(r.correction)
    with option_value("-m"):
        resolve(r.measure or [])
    with option_value("--per-topic"):
        resolve([r.per_topic] if r.per_topic else [])
    if r.ci_method not in CI_METHODS:
        raise OptionError("--ci-method", f"expected one of {', '.join(CI_METHODS)}; got "
                          f"{r.ci_method!r}")
    if not 0 < r.alpha < 1:
        raise OptionError("--alpha", f"expected a number in (0, 1); got {r.alpha}")
    if r.ci is not None and not 0 < r.ci < 1:
        raise OptionError("--ci", f"expected a confidence level in (0, 1); got {r.ci}")
    if len(r.runs) < 2:  # a missing argument: a usage error (exit 2)
        raise OptionError(None, "give at least two RUN files to compare")
    if [str(p) for p in (r.qrels, *r.runs)].count("-") > 1:
        raise OptionError(None, "stdin ('-') can feed the qrels or one run, not "
                          f"{'both' if str(r.qrels) == '-' else 'two runs'}")
    return form


def system_names(r: CompareRequest) -> list[str]:
    """The systems' names: the files' names unless ``--names`` (compare never names a
    system by its run tag); the same file twice is an error."""
    from relkit.metrics.commands.run_names import run_labels
    from relkit.metrics.compare.errors import CompareError

    labels = (run_labels(r.runs, r.names, r.name_from_file)
              or run_labels(r.runs, None, True) or [])
    if len(set(labels)) != len(labels):
        twice = sorted({str(p) for p, n in zip(r.runs, labels, strict=True)
                        if labels.count(n) > 1})
        raise CompareError(f"the same run file is given twice: {', '.join(twice)}")
    return labels


def compare_files(r: CompareRequest, warn: Callable[[str], object]) -> Compared:
    """Check ``r``, read its qrels and runs and compare the systems.

    Raises
    ------
    OptionError
        A value an option cannot take, fewer than two runs, stdin given twice.
    CompareError
        The same run file twice, or inputs that cannot be compared.
    """
    from relkit.metrics.commands.grade_checks import inverted_grades
    from relkit.metrics.compare.core import compare
    from relkit.metrics.data import Qrels, Run

    form = check(r)
    if r.pairs and form.name not in ("rich", "csv", "json"):   # (said, not refused)
        warn(f"relkit compare: --pairs writes CSV (JSON with --format json): --format "
             f"{form.name} does not apply to it")
    labels = system_names(r)
    baseline = r.baseline
    if baseline is not None:
        by_file = {str(p): n for p, n in zip(r.runs, labels, strict=True)}
        baseline = by_file.get(baseline, baseline)
    q = Qrels.read(sys.stdin.buffer if str(r.qrels) == "-" else r.qrels)  # '-': stdin
    inverted = inverted_grades(q)     # said, not refused: the numbers are still shown
    if inverted is not None:
        warn(f"relkit compare: warning: {inverted}")
    loaded = {n: Run.read(sys.stdin.buffer if str(p) == "-" else p)  # '-': stdin
              for n, p in zip(labels, r.runs, strict=True)}
    with Bar("evaluating runs", len(loaded), unit="runs") as bar:
        cmp = compare(q, loaded, r.measure or DEFAULT_MEASURES, baseline=baseline,
                      test=r.test, correction=r.correction, alpha=r.alpha,
                      samples=r.samples, seed=r.seed, ci=r.ci,
                      ci_method=r.ci_method,  # type: ignore[arg-type]
                      level=r.level, complete=r.complete, progress=bar.update)
    return Compared(r, form, labels, q, loaded, cmp)
