"""trec_eval's text output: ``"%-22s\\t%s\\t%6.4f\\n"``, counts as ``%ld``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relkit.metrics.evaluator import Result
from relkit.metrics.measures.base import REGISTRY, is_count


def fmt_float(value: float) -> str:
    """C's ``%6.4f``; glibc prints 0/0 as ``-nan``."""
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def line(name: str, qid: str, text: str, prefix: str = "") -> str:
    # -Z prints "Z%-22s": the prefix sits outside the padded field
    return f"{prefix}{name:<22}\t{qid}\t{text}\n"


def lines(res: Result, *, per_query: bool, summary: bool, compat: int,
          zscores: bool = False) -> Iterator[str]:
    """Yield the output lines of one evaluation (``zscores``: ``-Z`` naming)."""
    prefix = "Z" if zscores else ""
    if per_query:
        for t, qid in enumerate(res.topics):
            if res.missing[t] and compat < 10:
                continue                      # 9.0.8 prints nothing for -c topics
            for m, v in zip(res.measures, res.values, strict=True):
                fam = REGISTRY[m.family]
                if v is None or not fam.per_query:
                    continue
                if isinstance(v, list):
                    yield line(m.output, qid, v[t])
                elif fam.kind == "int" and not zscores:
                    yield line(m.output, qid, str(int(v[t])))
                else:
                    yield line(m.output, qid, fmt_float(float(v[t])), prefix)
    if not summary:
        return
    for m, s in zip(res.measures, res.summary, strict=True):
        fam = REGISTRY[m.family]
        if s is None:
            continue
        if isinstance(s, str):
            yield line(m.output, "all", s)
        elif is_count(m) and not zscores:
            yield line(m.output, "all", str(int(s)))
        else:
            yield line(m.output, "all", fmt_float(float(s)), prefix)



def labelled(block: Iterable[str], run_id: str) -> Iterator[str]:
    """One run's lines, starting with its ``runid`` line (several runs in one output).

    trec_eval evaluates one run and prints its ``runid`` line only among the
    ``official`` measures, after the per-topic lines; relkit takes several runs, so
    each block is headed by the line trec_eval would print. A block that already
    starts with it (``-m official`` without ``-q``) is left as it is.
    """
    head = line("runid", "all", run_id)
    it = iter(block)
    first = next(it, None)
    if first != head:
        yield head
    if first is not None:
        yield first
    yield from it
