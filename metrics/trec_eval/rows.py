"""Shared plumbing of the trec_eval ``-R prefs`` / ``qrels_prefs`` / ``qrels_jg`` modes.

Both modes return their results as :class:`Row` tuples in trec_eval's print
order: every per-topic row first (topics in ``strcmp`` order, measures in the
order of trec_eval's measure table, ``measures.c``), then the ``all`` rows.
:func:`render` turns rows into trec_eval's exact text; a caller that wants
``-q`` off keeps only the ``all`` rows, one that wants ``-n`` drops them.

The helpers here also pick the topics to evaluate and average them, following
trec_eval 10's ``trec_eval.c``: the loop runs over the *judgment* topics.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from relkit.metrics.core.errors import EvaluationError, MeasureError
from relkit.metrics.measures.context import seq_sum
from relkit.metrics.trec_eval.format import fmt_float, line

__all__ = ["Row", "render", "seq_sum"]

# A measure's parsed parameter list: cut-offs (ints) or multipliers (floats), depending on
# the measure; the mode that asked for it knows which.
Params = tuple[Any, ...]


class Row(NamedTuple):
    """One output line: ``measure``, ``query_id`` (or ``"all"``), ``value``, ``kind``.

    ``kind`` is ``"int"`` (printed ``%ld``), ``"float"`` (printed ``%6.4f``) or
    ``"str"`` (printed as is; only ``runid``).
    """

    measure: str
    query_id: str
    value: float | int | str
    kind: str


def render(rows: Sequence[Row]) -> str:
    """trec_eval's text for ``rows``: ``"%-22s\\t%s\\t%6.4f\\n"`` per row.

    Counts print as ``%ld`` (the value truncated to an integer) and ``runid``
    prints its string, as in ``meas_print_single.c`` / ``meas_print_final.c``.
    """
    out = []
    for name, qid, value, kind in rows:
        if kind == "str":
            text = str(value)
        elif kind == "int":
            text = str(int(value))
        else:
            text = fmt_float(float(value))
        out.append(line(name, qid, text))
    return "".join(out)


def div(num: float, den: float) -> float:
    """IEEE division (C semantics): ``x/0`` is ``±inf`` and ``0/0`` is NaN."""
    if den == 0:
        if num == 0 or math.isnan(num):
            return math.nan
        return math.copysign(math.inf, num)
    return num / den


# --- measure requests ----------------------------------------------------------

_LEADING_INT = re.compile(r"\s*[+-]?\d+")
_LEADING_FLOAT = re.compile(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)")


def atol(text: str) -> int:
    """C ``atol``: the leading integer of ``text``, 0 when there is none."""
    m = _LEADING_INT.match(text)
    return int(m.group()) if m else 0


def atof(text: str) -> float:
    """C ``atof`` for plain decimal numbers: the leading number, else 0.0."""
    m = _LEADING_FLOAT.match(text)
    return float(m.group()) if m else 0.0


def long_cutoffs(measure: str, text: str) -> tuple[int, ...]:
    """Parse ``"5,10"`` like ``meas_init.c`` ``get_long_cutoffs``: sorted, > 0, unique."""
    cuts = sorted(atol(part) for part in text.split(","))
    if cuts[0] <= 0:
        raise MeasureError(f"{measure}: cutoffs must be positive; got {text!r}")
    if len(set(cuts)) != len(cuts):
        raise MeasureError(f"{measure}: duplicate cutoffs in {text!r}")
    return tuple(cuts)


def double_cutoffs(measure: str, text: str) -> tuple[float, ...]:
    """Parse ``"0.2,1"`` like ``get_double_cutoffs``: sorted and unique (no sign check)."""
    cuts = sorted(atof(part) for part in text.split(","))
    if len(set(cuts)) != len(cuts):
        raise MeasureError(f"{measure}: duplicate cutoffs in {text!r}")
    return tuple(cuts)


def resolve_measures(
    specs: Sequence[str] | None,
    table: Sequence[str],
    nicknames: Mapping[str, Sequence[str]],
    default: str,
    parsers: Mapping[str, Callable[[str, str], Params]],
    mode: str,
) -> dict[str, Params | None]:
    """Requested measures of one mode, in table order, with their parameters.

    ``specs`` are trec_eval ``-m`` arguments (``"all_prefs"``, ``"P_avgjg.5,10"``);
    ``None`` means the ``default`` nickname. As in trec_eval, the first
    parameter list given for a measure wins. Measures without a parser take
    no parameters. Returns ``{name: params or None}`` ordered like ``table``.
    """
    chosen: set[str] = set()
    params: dict[str, Params] = {}
    for spec in [default] if specs is None else specs:
        name, dot, text = spec.partition(".")
        if dot:
            if name not in parsers:
                raise MeasureError(f"measure {name!r} takes no parameters; got {spec!r}")
            if not text:
                raise MeasureError(f"improper measure in parameter {spec!r}")
            params.setdefault(name, parsers[name](name, text))
        if name in nicknames:
            chosen.update(nicknames[name])
        elif name in table:
            chosen.add(name)
        else:
            raise MeasureError(f"unknown measure {name!r} for the {mode} mode; "
                               f"expected one of {', '.join(sorted(set(table) | set(nicknames)))}")
    return {name: params.get(name) for name in table if name in chosen}


# --- topics and summaries ------------------------------------------------------

def select_topics(judged: Sequence[str], ranking: dict[str, list[str]], *,
                  complete: bool, missing: str) -> list[tuple[str, list[str]]]:
    """Topics to evaluate, in ``strcmp`` order, each with its ranked docnos.

    trec_eval 10 loops over the judgment topics; run topics without judgments
    are ignored. A judged topic absent from the run gets an empty ranking with
    ``complete`` (``-c``; trec_eval's one-document dummy ranking scores the same
    in these modes). Otherwise ``missing="error"`` raises as trec_eval 10 does
    (it exits), and ``missing="skip"`` ignores it as trec_eval 9.0.8 did.
    """
    if missing not in ("error", "skip"):
        raise ValueError(f"missing must be 'error' or 'skip'; got {missing!r}")
    chosen = []
    for qid in sorted(set(judged)):
        if qid in ranking:
            chosen.append((qid, ranking[qid]))
        elif complete:
            chosen.append((qid, []))
        elif missing == "error":
            raise EvaluationError(f"topic {qid!r} has judgments but no run lines "
                                  "(trec_eval 10 stops here; use complete=True to score it 0)")
    if not chosen:
        raise EvaluationError("No queries with both results and relevance info")
    return chosen


def summary_rows(per_topic: list[list[Row]], want: dict[str, Params | None], run_id: str,
                 num_judged: int, complete: bool) -> list[Row]:
    """The ``all`` block: runid, num_q, then each measure of the per-topic rows.

    Count rows (kind ``"int"``) are summed (``te_calc_avg_meas_empty``). Other
    rows are averaged: the left-to-right sum over topics divided by the number
    of topics evaluated, or by the number of judged topics under ``-c``
    (``meas_avg.c``).
    """
    count = len(per_topic)
    denom = num_judged if complete else count
    rows: list[Row] = []
    if "runid" in want:
        rows.append(Row("runid", "all", run_id, "str"))
    if "num_q" in want:
        rows.append(Row("num_q", "all", count, "int"))
    if not per_topic:
        return rows
    for j, first in enumerate(per_topic[0]):
        values = [topic[j].value for topic in per_topic]
        if first.kind == "int":
            rows.append(Row(first.measure, "all", sum(int(v) for v in values), "int"))
        else:
            total = seq_sum([float(v) for v in values])
            rows.append(Row(first.measure, "all", total / denom if denom else total, "float"))
    return rows
