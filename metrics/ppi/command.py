"""``relkit eval --ppi``: read the files, estimate, print one line per run and measure.

Columns (tab-separated, a header first): the run, the measure, the PPI++ estimate and
its interval, the human-only estimate and its interval from the same human labels,
the number of human labels and the effective number (human labels the human-only
estimate would need, at the same design and never more than the pool, for PPI++'s
variance; :func:`relkit.metrics.ppi.estimators.effective_labels`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from relkit.metrics.core.options import option_value

HEADER = ("run\tmeasure\testimate\tlow\thigh\thuman_only\thuman_low\thuman_high\t"
          "labels\teffective_labels\tlambda")
DEFAULT_MEASURES = ["P@10", "DCG@10"]


def run_ppi(runs: list[Path], *, human: Path, auto: Path, measures: list[str],
            design: str, level: int, labels: list[str] | None,
            output: Path | None) -> None:
    """Evaluate ``runs`` with PPI++ and write the table to ``output`` (or stdout)."""
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.ppi.design import ALL_DESIGNS, check_design
    from relkit.metrics.ppi.measures import parse_linear, ppi_evaluate

    with option_value("--design"):
        check_design(design, ALL_DESIGNS)
    with option_value("'-m'"):
        if design == "topics":
            from relkit.metrics.ppi.topics import check_measures

            check_measures(measures)
        else:
            for m in measures:
                parse_linear(m)
    read = {}
    for i, path in enumerate(runs):
        run = Run.read(path)
        read[labels[i] if labels else _name(run, path, runs)] = run
    rows = ppi_evaluate(Qrels.read(human), Qrels.read(auto), read, measures,
                        design=design, level=level)
    lines = [HEADER]
    for r in rows:
        lines.append("\t".join([
            r.system, r.measure, f"{r.ppi.value:.4f}", f"{r.ppi.low:.4f}",
            f"{r.ppi.high:.4f}", f"{r.classical.value:.4f}", f"{r.classical.low:.4f}",
            f"{r.classical.high:.4f}", str(r.labels), f"{r.effective:.0f}",
            f"{r.ppi.lam:.3f}"]))
    text = "\n".join(lines) + "\n"
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _name(run: object, path: Path, runs: list[Path]) -> str:
    """The run's tag; its path when several runs were given (tags may repeat)."""
    return str(path) if len(runs) > 1 else getattr(run, "name", str(path))
