"""Which grade keys of a ``cal`` pool are slow: each key's kind, for ``tui_bench.py --cal``.

A key's kind is what the strategy did on it (``Cal._retrain`` wrapped, so the same
instrument measures a tree before a change, run with its ``PYTHONPATH``):

* ``inside``: the key's document was not the last of its batch (no training);
* ``end, plan ready``: the batch ended and the plan made ahead had finished;
* ``end, plan waited``: it had been asked for but not finished: the key waited for it;
* ``end, trained on key``: no plan for that state had been asked for: trained on the key;
* ``first of topic``: the first grade key after the topic was opened (whatever it did).

And per key whether the screen had wrapped the next document while the previous one
was read (``wrapped ahead``): a key without it wraps the document on its own path.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

EVENTS: list[tuple[str, float]] = []   # (what the retraining found, its ms) in this key


def install() -> bool:
    """Wrap ``Cal._retrain`` (False: the tree has no cal strategy)."""
    try:
        from relkit.pooling.cal import strategy
    except ImportError:
        return False
    if getattr(strategy.Cal._retrain, "_bench", False):
        return True
    original = strategy.Cal._retrain

    def retrain(self: Any, judged: Any) -> None:
        ahead = self._ahead.get(strategy._state(judged, self.labels, self.batches))
        found = ("trained on key" if ahead is None
                 else "plan ready" if ahead.done() else "plan waited")
        t0 = time.perf_counter()
        original(self, judged)
        EVENTS.append((found, (time.perf_counter() - t0) * 1000))

    retrain._bench = True  # type: ignore[attr-defined]
    strategy.Cal._retrain = retrain  # type: ignore[method-assign]
    return True


def kind(first: bool) -> str:
    """The kind of the key just measured (and forget its events)."""
    found = [f for f, _ in EVENTS]
    EVENTS.clear()
    if first:
        return "first of topic"
    return f"end, {found[0]}" if found else "inside"


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def rows(label: str, keys: list[tuple[str, bool, float]]) -> list[str]:
    """Markdown rows: per kind (and wrapped ahead or not) n, p50, p95, max of key→painted."""
    groups: dict[tuple[str, bool], list[float]] = {}
    for k, wrapped, ms in keys:
        groups.setdefault((k, wrapped), []).append(ms)
    out = []
    for (k, wrapped), xs in sorted(groups.items()):
        out.append(f"| {label} | {k} | {'yes' if wrapped else 'no'} | {len(xs)} | "
                   f"{statistics.median(xs):.1f} | {pct(xs, 95):.1f} | {max(xs):.1f} |")
    return out


HEADER = ("| run | key kind | next document wrapped ahead | keys | key→painted p50 | p95 "
          "| max |\n|---|---|---|---|---|---|---|")
