"""``relkit.metrics.core.record.Record`` behaves as the ``@dataclass`` it replaced.

Each check builds the same class both ways from generated field lists and compares
constructors (positional, keyword, defaults, wrong calls), repr, equality, hashing,
frozen assignment and ``replace``; then walks every Record subclass relkit defines.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

import relkit.metrics
from relkit.metrics.core.record import FrozenInstanceError, Record

NAMES = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=5,
                 unique=True)
VALUES = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none(), st.tuples(st.integers()))


def _pair(names: list[str], defaults: dict[str, Any], frozen: bool) -> tuple[type, type]:
    ns = {"__annotations__": {n: "Any" for n in names}, **defaults}
    data = dataclasses.dataclass(frozen=frozen)(type("P", (), dict(ns)))
    ours = type("P", (Record,), dict(ns), frozen=frozen)
    return data, ours


def _outcome(make: Any) -> tuple[str, Any]:
    try:
        return "ok", make()
    except TypeError:
        return "TypeError", None


@given(NAMES, st.data(), st.booleans())
def test_a_record_is_built_printed_compared_and_hashed_as_a_dataclass(
        names: list[str], data: st.DataObject, frozen: bool) -> None:
    n_required = data.draw(st.integers(0, len(names)))
    defaults = {n: data.draw(VALUES) for n in names[n_required:]}
    data_cls, ours = _pair(names, defaults, frozen)
    args = data.draw(st.lists(VALUES, max_size=len(names) + 1))
    kwargs = data.draw(st.dictionaries(st.sampled_from([*names, "zz"]), VALUES, max_size=3))
    (kind_d, d), (kind_o, o) = (_outcome(lambda: data_cls(*args, **kwargs)),
                                _outcome(lambda: ours(*args, **kwargs)))
    assert kind_d == kind_o
    if d is None:
        return
    assert repr(o) == repr(d)
    assert [getattr(o, n) for n in names] == [getattr(d, n) for n in names]
    twin = ours(**{n: getattr(o, n) for n in names})
    assert o == twin
    assert not o != twin  # noqa: SIM202 (__ne__ from __eq__, as dataclass's)
    if frozen:
        assert hash(o) == hash(twin)
        with pytest.raises(FrozenInstanceError):
            o.a = 1
        with pytest.raises(AttributeError):      # dataclasses' error is one too
            d.a = 1
    else:
        with pytest.raises(TypeError):
            hash(o)
        with pytest.raises(TypeError):
            hash(d)
    changed = {names[0]: "other"}
    assert repr(o.replace(**changed)) == repr(dataclasses.replace(d, **changed))


def test_what_a_dataclass_refuses_a_record_refuses() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default"):
        type("Bad", (Record,), {"__annotations__": {"a": "int", "b": "int"}, "a": 1})
    with pytest.raises(ValueError, match="mutable default"):
        type("Bad", (Record,), {"__annotations__": {"a": "list"}, "a": []})
    # A record of another class is not equal, even with equal fields.
    a = type("A", (Record,), {"__annotations__": {"x": "int"}})(1)
    b = type("B", (Record,), {"__annotations__": {"x": "int"}})(1)
    assert a != b


def test_a_class_var_and_an_own_method_are_kept() -> None:
    class Point(Record, frozen=True):
        kind: ClassVar[str] = "point"
        x: int
        y: int = 0

        def __repr__(self) -> str:
            return f"<{self.x},{self.y}>"

    assert Point._fields == ("x", "y") and repr(Point(1)) == "<1,0>"
    assert {Point(1, 2), Point(1, 2)} == {Point(1, 2)}


def test_a_subclass_of_a_record_is_refused() -> None:
    class Point(Record, frozen=True):
        x: int

    with pytest.raises(TypeError, match="a Record is not subclassed"):
        type("Point3", (Point,), {"__annotations__": {"z": "int"}})


def test_a_field_left_out_of_equality_is_left_out_of_the_hash() -> None:
    # Family.order (field(compare=False) in the dataclass): register() sets it after
    # the family is built, which must not change its hash or equality
    from relkit.metrics.measures.base import REGISTRY

    fam = REGISTRY["P"]
    moved = fam.replace(order=fam.order + 1)
    assert moved == fam and hash(moved) == hash(fam) and moved.order != fam.order
    assert "order=" in repr(fam)
    assert fam.replace(name="Pz") != fam


def _records() -> list[type]:
    """Every Record subclass of relkit.metrics (the modules that name Record imported)."""
    for mod in pkgutil.walk_packages(relkit.metrics.__path__, "relkit.metrics."):
        spec = importlib.util.find_spec(mod.name)
        if spec and spec.origin and spec.origin.endswith(".py") \
                and "(Record" in Path(spec.origin).read_text():
            importlib.import_module(mod.name)
    found, todo = [], list(Record.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return [c for c in found if c.__module__.startswith("relkit.")]


def test_every_record_of_relkit_declares_its_fields() -> None:
    # the registry walk: a record whose fields were not found would build empty objects
    records = _records()
    assert {"Measure", "Family", "Param", "Result"} <= {c.__name__ for c in records}
    for cls in records:
        assert cls._fields, cls
        assert set(cls._defaults) <= set(cls._fields), cls
