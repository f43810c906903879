"""Measures with named parameters, spelled as ir_measures spells them.

``INST(T=3.0)``, ``RBP(p=0.8)``, ``NERR8(max_rel=3)@10``, ``Compat(p=0.9,normalize=False)``:
the parameters are ``key=value`` pairs in parentheses, written in sorted key order with
defaults left out, and a cutoff, where the measure has one, after ``@``. This is what
``str()`` of an ir_measures measure object gives, so relkit's names read back in
ir_measures and the other way round. In trec_eval's request syntax the same measure is
``family.key=value,...`` (``inst.T=3.0``, ``nerr8.k=10,max_rel=3``).

A family with named parameters has ``param_kind="named"`` and a :class:`Named` spec;
its parsed value is a tuple of ``(key, value)`` pairs for every key (defaults filled),
so two spellings of the same parameters give equal measures.
"""

from __future__ import annotations

from typing import Any

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.params import Param, bad_param
from relkit.metrics.core.record import Record

Value = tuple[tuple[str, Any], ...]


class Named(Record, frozen=True):
    """The named parameters of one family.

    Attributes
    ----------
    head : ir_measures' name of the measure (``INST``).
    params : the parameters; a default of ``None`` means "from the qrels" (``max_rel``).
    cutoff : the key written after ``@`` (``k``; ``K`` for BPM), if the measure has one.
    rel : whether ``rel=`` is taken (the measure's own relevance level, ``Measure.rel``).
    """

    head: str
    params: tuple[Param, ...]
    cutoff: str | None = None
    rel: bool = False

    def keys(self) -> list[str]:
        return [p.name for p in self.params]

    def parse(self, family: str, text: str) -> Value:
        """``"T=3,max_rel=2"`` -> every key's value, in :attr:`params` order."""
        given: dict[str, Any] = {}
        for part in [p for p in text.split(",")] if text else []:
            key, sep, val = part.partition("=")
            key = key.strip()
            if not sep or key not in self.keys() or key in given:
                keys = ", ".join(self.keys())
                raise bad_param(family, "pair", f"key=value with a key among {keys}, "
                                "each once", part)
            given[key] = val
        out = []
        for p in self.params:
            out.append((p.name, p.convert(family, given[p.name], MeasureError)
                        if p.name in given else p.default))
        return tuple(out)

    def text(self, value: Value) -> str:
        """The canonical parameter text: keys sorted, defaults left out but the cutoff."""
        defaults = {p.name: p.default for p in self.params}
        # The cutoff always shows (nerr8.k=10, output nerr8_k=10), as it does after "@".
        return ",".join(f"{k}={_spell(v)}" for k, v in sorted(value)
                        if k == self.cutoff or not _same(v, defaults[k]))

    def spell(self, value: Value, rel: int | None) -> str:
        """ir_measures' spelling: ``INST(T=3.0)``, ``NERR8(max_rel=3)@10``, ``RBP(rel=2)``."""
        defaults = {p.name: p.default for p in self.params}
        pairs = [(k, _spell(v)) for k, v in value
                 if k != self.cutoff and not _same(v, defaults[k])]
        if rel is not None:
            pairs.append(("rel", str(rel)))
        inner = ",".join(f"{k}={v}" for k, v in sorted(pairs))
        name = self.head + (f"({inner})" if inner else "")
        if self.cutoff is not None:
            name += f"@{dict(value)[self.cutoff]}"
        return name


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _spell(v: Any) -> str:
    # repr: 3.0 stays "3.0" (ir_measures refuses T=3 for a float parameter), True "True";
    # a string (a choice: EBU(user=informational)) bare, as it is parsed
    return v if isinstance(v, str) else repr(v)


def value_of(value: Value, key: str) -> Any:
    """One parameter of a parsed value."""
    return dict(value)[key]
