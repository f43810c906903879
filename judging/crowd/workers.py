"""Per-worker quality: ``relkit agree --workers``.

For each worker: how many labels, accuracy against gold (on gold items),
accuracy against the aggregate (the chosen method's labels), the method's own
skill estimate, and Dawid-Skene's confusion diagonal (P(says c | true c) per
class c). JSON adds the full Dawid-Skene confusion matrix and the counts of each
label given against each gold grade (``gold_confusion[gold][given]``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.judging.crowd.result import Aggregate
from relkit.judging.crowd.table import CrowdError

FORMATS = ("text", "tsv", "json", "markdown")


@dataclass(frozen=True)
class WorkerReport:
    """The per-worker table and what it was computed from."""

    method: str
    classes: list[int]
    rows: list[dict[str, Any]]
    gold_items: int

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "classes": self.classes, "gold_items": self.gold_items,
                "workers": self.rows}


def _share(right: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.divide(right, n, out=np.full(len(n), np.nan), where=n > 0)


def worker_report(model: Aggregate, ds: Aggregate,
                  gold: dict[tuple[str, str], int] | None = None) -> WorkerReport:
    """Each worker against gold, against ``model``'s labels, and ``ds``'s confusion."""
    t = model.table
    nw = t.n_workers
    n = np.bincount(t.worker, minlength=nw).astype(np.float64)
    given = t.classes[t.label]
    agg_hit = (given == model.labels[t.item]).astype(np.float64)
    acc_agg = _share(np.bincount(t.worker, weights=agg_hit, minlength=nw), n)
    gold_items = 0
    acc_gold = np.full(nw, np.nan)
    n_gold = np.zeros(nw)
    gold_conf: dict[int, dict[str, dict[str, int]]] = {}   # worker -> gold -> given -> n
    if gold:
        g = np.array([gold.get((str(a), str(b)), -1)
                      for a, b in zip(t.topics, t.docs, strict=True)], dtype=np.int64)
        gold_items = int((g >= 0).sum())
        row_g = g[t.item]
        on = row_g >= 0
        n_gold = np.bincount(t.worker[on], minlength=nw).astype(np.float64)
        hit = (given[on] == row_g[on]).astype(np.float64)
        acc_gold = _share(np.bincount(t.worker[on], weights=hit, minlength=nw), n_gold)
        for w, gg, lab in zip(t.worker[on].tolist(), row_g[on].tolist(), given[on].tolist(),
                              strict=True):
            cell = gold_conf.setdefault(w, {}).setdefault(str(gg), {})
            cell[str(lab)] = cell.get(str(lab), 0) + 1
    if ds.confusion is None:
        raise CrowdError("the Dawid-Skene aggregate has no confusion matrices")
    diag = np.diagonal(ds.confusion, axis1=1, axis2=2)
    skills = model.skills if model.skills is not None else np.full(nw, np.nan)

    def num(x: float) -> float | None:
        return None if np.isnan(x) else float(x)

    rows = [{"worker": str(t.workers[w]), "labels": int(n[w]), "gold_labels": int(n_gold[w]),
             "accuracy_gold": num(acc_gold[w]), "accuracy_aggregate": num(acc_agg[w]),
             "skill": num(skills[w]),
             "ds_diagonal": [float(x) for x in diag[w]],
             "ds_confusion": [[float(x) for x in r] for r in ds.confusion[w]],
             "gold_confusion": gold_conf.get(w, {})}
            for w in range(nw)]
    from relkit.pooling.pool import natural

    rows.sort(key=lambda r: natural(str(r["worker"])))   # w2 before w10
    return WorkerReport(model.method, [int(c) for c in t.classes], rows, gold_items)


def render(report: WorkerReport, fmt: str) -> str:
    """The report as ``text``, ``tsv``, ``markdown`` or ``json``."""
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=1) + "\n"
    if fmt not in FORMATS:
        raise CrowdError(f"unknown worker report format {fmt!r}; expected one of "
                         f"{', '.join(FORMATS)}")
    head = ["worker", "labels", "gold_labels", "acc_gold", "acc_aggregate",
            f"skill({report.method})"] + [f"ds_p{c}|{c}" for c in report.classes]

    def cell(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    body = [[r["worker"], str(r["labels"]), str(r["gold_labels"]), cell(r["accuracy_gold"]),
             cell(r["accuracy_aggregate"]), cell(r["skill"])]
            + [cell(x) for x in r["ds_diagonal"]] for r in report.rows]
    if fmt == "tsv":
        return "\n".join("\t".join(r) for r in [head, *body]) + "\n"
    if fmt == "markdown":
        def md(cells: list[str]) -> str:  # a '|' in a cell (ds_p-2|-2) is escaped
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        return "\n".join([md(head), "|" + "---|" * len(head)] + [md(r) for r in body]) + "\n"
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = [f"Workers against gold ({report.gold_items:,} gold items) and against the "
             f"{report.method} aggregate; ds_pC|C: Dawid-Skene's P(says C | true C)", ""]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in [head, *body]]
    return "\n".join(lines) + "\n"
