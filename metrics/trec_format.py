"""trec_eval's text output: ``"%-22s\\t%s\\t%6.4f\\n"``, counts as ``%ld``."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from metrics.evaluator import Result
from metrics.measures.base import REGISTRY


def fmt_float(value: float) -> str:
    """C's ``%6.4f``; glibc prints 0/0 as ``-nan``."""
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def line(name: str, qid: str, text: str) -> str:
    return f"{name:<22}\t{qid}\t{text}\n"


def lines(res: Result, *, per_query: bool, summary: bool, compat: int,
          zscores: dict[tuple[str, str], tuple[float, float]] | None = None) -> Iterator[str]:
    """Yield the output lines of one evaluation."""
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
                elif zscores is not None:
                    yield line("Z" + m.output, qid, fmt_float(_z(zscores, qid, m.output, v[t])))
                elif fam.kind == "int":
                    yield line(m.output, qid, str(int(v[t])))
                else:
                    yield line(m.output, qid, fmt_float(float(v[t])))
    if not summary:
        return
    for m, v, s in zip(res.measures, res.values, res.summary, strict=True):
        fam = REGISTRY[m.family]
        if s is None:
            continue
        if isinstance(s, str):
            yield line(m.output, "all", s)
        elif zscores is not None and isinstance(v, np.ndarray):
            zs = np.array([_z(zscores, q, m.output, x) for q, x in
                           zip(res.topics, v.tolist(), strict=True)])
            yield line("Z" + m.output, "all", fmt_float(float(sum(zs.tolist())) / len(zs)))
        elif fam.kind == "int" and fam.summary != "gm":
            yield line(m.output, "all", str(int(s)))
        else:
            yield line(m.output, "all", fmt_float(float(s)))


def _z(table: dict[tuple[str, str], tuple[float, float]], qid: str, name: str,
       value: float) -> float:
    entry = table.get((qid, name))
    if entry is None:
        return -1000000.0
    mean, sd = entry
    return (value - mean) / sd


def render(res: Result, **kwargs: object) -> str:
    return "".join(lines(res, **kwargs))  # type: ignore[arg-type]
