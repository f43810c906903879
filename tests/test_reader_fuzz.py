"""Every registered reader fuzzed: random bytes and mutated seeds read or raise a relkit error.

The readers come from :data:`relkit.metrics.core.readers.READERS`, each with a small valid
file (its seed), so a new reader is fuzzed as soon as it is registered (and
tests/test_reader_registry.py fails while a module reads files unregistered). Each either
returns (an iterator is read to the end) or raises
:class:`relkit.metrics.core.errors.RelkitError` whose message names the file; any other
exception, or a ``RelkitError`` not naming the file, is a failure (issue 23, D; issue 32).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.readers import READERS

# Readers with a known, not yet fixed escape: xfailed (not strict) with the reason.
# Empty: every registered reader is clean.
ELSEWHERE: dict[str, str] = {}


def read_all(name: str, path: Path) -> None:
    out = READERS[name].reader()(path)
    if hasattr(out, "__next__"):
        for _ in out:
            pass


def check(name: str, data: bytes) -> str | None:
    """None if the reader behaved; else what it did wrong."""
    filename = READERS[name].filename
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / filename
        path.write_bytes(data)
        try:
            read_all(name, path)
        except RelkitError as exc:
            if filename not in str(exc):
                return f"RelkitError not naming the file: {exc}"
        except Exception as exc:  # noqa: BLE001 - that is the finding
            return f"{type(exc).__name__}: {exc}"
    return None


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """``seed`` with a few random edits: bytes flipped, inserted, lines cut or doubled."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut", "dup", "token"]))
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and data:
            del data[i:i + draw(st.integers(1, 16))]
        elif op == "cut":
            data = data[:i]
        elif op == "dup":
            lines = bytes(data).splitlines(keepends=True)
            if lines:
                j = draw(st.integers(0, len(lines) - 1))
                lines.insert(j, lines[j])
                data = bytearray(b"".join(lines))
        elif op == "token":
            data[i:i] = draw(st.sampled_from([b" ", b"\t", b"\n", b"\x00", b"\xff", b"-1",
                                              b"99999999999999999999999", b"1e23", b"nan",
                                              b'"', b"=", b"[", b"{", b"<", b"</DOC>", b"#",
                                              b",", b"inf", b"-0"]))
    return bytes(data)


FUZZ = settings(max_examples=examples(60),
                deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def names() -> list[object]:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=ELSEWHERE[n], strict=False))
            if n in ELSEWHERE else n for n in READERS]


@pytest.mark.parametrize("name", list(READERS))
def test_the_seed_is_valid(name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / READERS[name].filename
        path.write_bytes(READERS[name].seed_bytes())
        read_all(name, path)


@pytest.mark.parametrize("name", names())
def test_random_bytes(name: str) -> None:
    @FUZZ
    @given(st.binary(max_size=400))
    def run(data: bytes) -> None:
        assert check(name, data) is None, (data[:80], check(name, data))

    run()


@pytest.mark.parametrize("name", names())
def test_mutated_valid_files(name: str) -> None:
    seed = READERS[name].seed_bytes()

    @FUZZ
    @given(mutated(seed))
    def run(data: bytes) -> None:
        assert check(name, data) is None, (data[:120], check(name, data))

    run()


def test_a_parquet_column_name_not_in_utf8_is_named() -> None:
    """Found by the fuzzer in CI: DuckDB read the name, its Python binding raised
    RuntimeError("nanobind::str(): conversion error!") out of the reader."""
    seed = READERS["click-log-parquet"].seed_bytes()
    assert b"user_id" in seed
    data = seed.replace(b"user_id", b"user\xffid")
    assert check("click-log-parquet", data) is None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.parquet"
        path.write_bytes(data)
        with pytest.raises(RelkitError, match="column name"):
            read_all("click-log-parquet", path)
