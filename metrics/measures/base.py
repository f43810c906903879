"""Measure families, their parameters and the registry.

A *family* is one trec_eval measure (``P``, ``ndcg_cut``, ``utility``...) or
one of relkit's textbook additions. A :class:`Measure` is a family with one
concrete parameter: ``P@5`` is ``Measure("P", 5)`` and prints in trec_eval
output as ``P_5``. Requests in trec_eval syntax (``-m P.5,10``) expand to
several measures; readable names (``P@5``, ``nDCG@10``) parse in
:mod:`relkit.metrics.names`. The families are registered in :data:`REGISTRY` on first use,
from the table modules in one ordered list,
:data:`relkit.metrics.measures.families.TABLES` (trec_eval's print order, then relkit's).

Parameter kinds follow trec_eval's ``meas_init.c``:

``none``      no parameter.
``cutoffs``   a list of integers, parsed like C ``atol`` (``23.4`` -> 23),
              sorted, each > 0 and distinct; output ``name_%ld``.
``points``    a list of doubles, sorted; output ``name_%3.2f``.
``raw``       a list kept as typed (unsorted); output ``name_<text>``.
``pairs``     ``key=value`` pairs; output ``name_<text>``.
``named``     ir_measures' named parameters (``INST(T=3.0)``, ``NERR8(max_rel=3)@10``),
              see :mod:`relkit.metrics.measures.named`; output ``name_<canonical text>``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.params import bad_param
from relkit.metrics.core.record import Record
from relkit.metrics.core.registry import Registry
from relkit.metrics.measures.named import Named

ParamKind = Literal["none", "cutoffs", "points", "raw", "pairs", "named"]
Summary = Literal["mean", "sum", "gm", "none", "runid", "num_q", "nanmean"]
ValueKind = Literal["float", "int", "str"]
PARAM_KINDS = frozenset(get_args(ParamKind))

# Returns per-topic values: an array, a list of strings (relstring), or None
# for runid / num_q, which the evaluator fills in.
Compute = Callable[[Any, Any], Any]


class Family(Record, frozen=True):
    """One measure family.

    Attributes
    ----------
    name : trec_eval root name (``-m name.params``).
    summary : how per-topic values become the ``all`` value.
    kind : printed as float (``%6.4f``), int (``%ld``) or string.
    param_kind, default : the parameter grammar and its default text.
    compute : ``compute(ctx, value) -> per-topic array`` for one parsed value.
    parse : validates the text of one value (raw/pairs kinds: the whole text).
    description : one line for ``--list-measures``.
    doc : formula and reference (numpydoc-style paragraph).
    trec : True for trec_eval's own measures, False for relkit additions.
    v10_only : measures absent from trec_eval 9.0.8.
    """

    name: str
    summary: Summary
    kind: ValueKind
    param_kind: ParamKind
    default: str | None
    compute: Compute
    description: str
    doc: str = ""
    parse: Callable[[str], Any] | None = None
    trec: bool = True
    v10_only: bool = False
    per_query: bool = True
    readable: str | None = None    # e.g. "P@{}" or "AP"
    micro: Compute | None = None   # pooled-count value over all topics (micro average)
    order: int = 0   # set by register(): the print order
    _not_compared: ClassVar[tuple[str, ...]] = ("order",)   # registering changes no hash
    named: Named | None = None     # param_kind "named": the parameters' spec

    def values(self, text: str | None) -> list[tuple[Any, str]]:
        """Parse a parameter text into ``(value, output_name)`` pairs."""
        if self.param_kind == "none":
            if text:
                raise bad_param(self.name, "params", "absent (it takes none)", text)
            return [(None, self.name)]
        use = self.default if text is None else text
        if self.param_kind == "cutoffs":
            ks = sorted({_atol(self.name, p) for p in _split(self.name, use)})
            return [(k, f"{self.name}_{k}") for k in ks]
        if self.param_kind == "points":
            xs = sorted({_point(self.name, p) for p in _split(self.name, use)})
            return [(x, f"{self.name}_{x:3.2f}") for x in xs]
        if self.param_kind == "named":
            assert self.named is not None
            value = self.named.parse(self.name, use or "")
            canon = self.named.text(value)
            return [(value, f"{self.name}_{canon}" if canon else self.name)]
        assert self.parse is not None
        value = self.parse(use or "")
        return [(value, self.name if text is None else f"{self.name}_{text}")]


def _split(name: str, text: str | None) -> list[str]:
    parts = [p for p in (text or "").split(",")]
    if not parts or any(p == "" for p in parts):
        raise bad_param(name, "values", "comma-separated numbers", text)
    return parts


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")


def _atol(name: str, text: str) -> int:
    """C ``atol``: leading integer (``23.4`` -> 23); must be >= 1 here."""
    m = _INT_PREFIX.match(text)
    if not m or int(m.group()) < 1:
        raise bad_param(name, "cutoff", "an int >= 1", text)
    return int(m.group())


def _atof(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise bad_param(name, "value", "a number", text) from None
    if not np.isfinite(value):
        raise bad_param(name, "value", "a finite number", text)
    return value


def _point(name: str, text: str) -> float:
    """A recall point or R multiple: a number >= 0 (-0 reads as 0)."""
    value = _atof(name, text)
    if value < 0:
        raise bad_param(name, "point", "a number >= 0", text)
    return value + 0.0


def parse_floats(name: str, count: int | None = None) -> Callable[[str], tuple[float, ...]]:
    """Parser for a ``raw`` list of doubles (``utility.1,-1,0,0``)."""

    def parse(text: str) -> tuple[float, ...]:
        vals = tuple(_atof(name, p) for p in _split(name, text))
        if count is not None and len(vals) != count:
            raise bad_param(name, "values", f"exactly {count} numbers", text)
        return vals

    return parse


def parse_pairs(name: str, keys: Callable[[str], bool], what: str, c_float: bool = True
                ) -> Callable[[str], tuple[tuple[str, float], ...]]:
    """Parser for ``key=value`` pairs; values are C floats as trec_eval stores them
    (``c_float=False`` for relkit's own measures keeps doubles)."""

    def parse(text: str) -> tuple[tuple[str, float], ...]:
        if text == "":
            return ()
        out = []
        for part in _split(name, text):
            key, sep, val = part.partition("=")
            if not sep or not keys(key):
                raise bad_param(name, "pair", what, part)
            # trec_eval reads these into a C float: keep single precision.
            value = _atof(name, val)
            out.append((key, float(np.float32(value)) if c_float else value))
        return tuple(out)

    return parse


class Measure(Record, frozen=True):
    """A family with one concrete parameter value; the unit of evaluation.

    ``rel`` is this measure's own relevance level (the lowest grade counted as
    relevant), as in ir_measures' ``P(rel=2)@5``; ``None`` means the evaluation's
    level (``-l``, ``Evaluator(level=...)``). It shows in every spelling:
    ``P(rel=2)@5``, trec_eval request ``P.5(rel=2)``, output name ``P(rel=2)_5``.
    """

    family: str
    value: Any = None
    text: str | None = None        # parameter text as given (raw/pairs kinds)
    output: str = ""               # trec_eval output name, e.g. "P_5"
    rel: int | None = None         # own relevance level; None: the evaluation's

    def __str__(self) -> str:
        """The readable spelling (``P@5``, ``AP``); trec_eval's when there is none.

        It parses back to an equal measure (:func:`relkit.metrics.names.parse_measure`).
        """
        fam = REGISTRY[self.family]
        if fam.named is not None:
            return fam.named.spell(self.value, self.rel)
        if fam.readable and self.text is None:
            if "{}" in fam.readable:
                v = self.value
                if isinstance(v, float):   # shortest text that reads back as the same float
                    v = np.format_float_positional(v, trim="-")
                name = fam.readable.format(v)
            else:
                name = fam.readable
            if self.rel is not None:
                head, at, tail = name.partition("@")
                return f"{head}(rel={self.rel}){at}{tail}"
            return name
        return self.trec_name

    @property
    def trec_name(self) -> str:
        """trec_eval spelling that requests exactly this measure."""
        fam = REGISTRY[self.family]
        if fam.param_kind == "none":
            name = fam.name
        elif fam.param_kind == "cutoffs":
            name = f"{fam.name}.{self.value}"
        elif fam.param_kind == "points":
            name = f"{fam.name}.{self.value!r}"
        elif fam.named is not None:
            canon = fam.named.text(self.value)
            name = f"{fam.name}.{canon}" if canon else fam.name
        else:
            name = fam.name if self.text is None else f"{fam.name}.{self.text}"
        return name if self.rel is None else f"{name}(rel={self.rel})"


# One provider: relkit.metrics.measures.families registers every table's families in
# its one ordered list (trec_eval's print order, then relkit's).
REGISTRY: Registry[Family] = Registry(
    "measure", MeasureError, list_known=False,
    providers=["relkit.metrics.measures.families"])


def is_count(measure: Measure) -> bool:
    """trec_eval prints ``measure``'s summary whole (``%ld``): a count (``num_ret``...)
    whose ``all`` value is a sum, not a geometric mean. The one rule of relkit's trec_eval
    output (:mod:`relkit.metrics.trec_eval.format`) and of a result's repr and table."""
    fam = REGISTRY[measure.family]
    return fam.kind == "int" and fam.summary != "gm"


_ORDER = itertools.count()


def register(*families: Family) -> None:
    """Add families in trec_eval's table order (their print order)."""
    for fam in families:
        if fam.param_kind not in PARAM_KINDS:
            raise ValueError(f"unknown parameter kind {fam.param_kind!r}")
        object.__setattr__(fam, "order", next(_ORDER))
        REGISTRY.register(fam)
