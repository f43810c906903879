"""Records: dataclasses without code generated at import.

``@dataclass`` writes and compiles an ``__init__``, ``__repr__`` and ``__eq__`` (and a
``__hash__`` and ``__setattr__`` when frozen) for each class it decorates: about 0.4 ms
a class on a quiet machine. ``relkit eval`` met eight of them on its way (the measure,
its family and parameters, the ranking's context, the gains, the result...): 3 ms of a
0.09 s command, a third of what it had to lose to be 0.9x pytrec_eval
(docs/performance.md). A :class:`Record` subclass behaves as the dataclass did, with
shared methods that read the fields the class declares: the same constructor
(positional or keyword, defaults), ``repr``, equality, a hash when frozen, assignment
refused when frozen, and :meth:`Record.replace` for ``dataclasses.replace``. Type
checkers see a dataclass (``typing.dataclass_transform``, PEP 681).

Kept small on purpose: no inheritance between records (refused), no ``field()`` (a
default is a plain value; a mutable default is refused, as by ``dataclass``; a class
names its fields left out of equality in ``_not_compared``), no ordering. Not a
dataclass to ``dataclasses`` (``fields``, ``asdict``, ``is_dataclass``), and the
constructor's signature is ``(*args, **kwargs)`` to ``inspect`` (type checkers see the
fields).
``tests/test_record.py`` checks each behaviour against ``dataclasses`` on generated
classes.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self, dataclass_transform

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (``dataclasses.FrozenInstanceError``)."""


@dataclass_transform(eq_default=True)
class Record:
    """Base of dataclass-like records: ``class Point(Record, frozen=True): x: int; y: int = 0``."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    # Fields left out of equality and the hash (dataclass's ``field(compare=False)``): a
    # class sets ``_not_compared`` to their names.
    _compared: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, *, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if any(issubclass(base, Record) and base is not Record for base in cls.__bases__):
            # A subclass of a record would lose its fields and hash here: refused
            raise TypeError(f"{cls.__qualname__}: a Record is not subclassed; declare "
                            "the fields in one class")
        own = cls.__dict__.get("__annotations__", {})
        fields = tuple(n for n, kind in own.items()
                       if not str(kind).strip("'\"").startswith(("ClassVar", "typing.ClassVar")))
        defaults = {n: cls.__dict__[n] for n in fields if n in cls.__dict__}
        required_after = [n for i, n in enumerate(fields) if n not in defaults
                          and any(m in defaults for m in fields[:i])]
        if required_after:   # what dataclass says of it
            raise TypeError(f"non-default argument {required_after[0]!r} follows "
                            "default argument")
        for name, value in defaults.items():
            if isinstance(value, (list, dict, set)):
                raise ValueError(f"mutable default {type(value)} for field {name} is not "
                                 "allowed: use a tuple or None")
        skipped = set(cls.__dict__.get("_not_compared", ()))
        cls._fields, cls._defaults = fields, defaults
        cls._compared = tuple(n for n in fields if n not in skipped)
        # dataclass's rule: a __hash__ of the class's own is kept (not the None Python
        # sets when the class defines __eq__); else frozen records hash their fields and
        # the others are unhashable, as equal-by-value mutable objects must be
        own_hash = cls.__dict__.get("__hash__", _MISSING)
        explicit_hash = not (own_hash is _MISSING
                             or (own_hash is None and "__eq__" in cls.__dict__))
        if frozen:
            cls.__setattr__ = _frozen_setattr   # type: ignore[method-assign,assignment]
            cls.__delattr__ = _frozen_delattr   # type: ignore[method-assign,assignment]
        if not explicit_hash:
            cls.__hash__ = _hash if frozen else None  # type: ignore[method-assign,assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__qualname__}() takes {len(fields)} arguments "
                            f"but {len(args)} were given")
        values = dict(zip(fields, args, strict=False))   # (fewer args: the rest by keyword)
        for name, value in kwargs.items():
            if name not in fields:
                raise TypeError(f"{type(self).__qualname__}() got an unexpected keyword "
                                f"argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__qualname__}() got multiple values for "
                                f"argument {name!r}")
            values[name] = value
        setter = object.__setattr__
        for name in fields:
            value = values.get(name, _MISSING)
            if value is _MISSING:
                value = self._defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{type(self).__qualname__}() missing required "
                                    f"argument: {name!r}")
            setter(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (``dataclasses.replace``)."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return type(self)(**values)


def _frozen_setattr(self: Record, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Record, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _hash(self: Record) -> int:
    return hash(self._values())
