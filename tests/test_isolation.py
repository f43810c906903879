"""The check every test passes (tests/conftest.py): nothing it leaves behind in the
environment or the working directory reaches the tests after it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import isolation

# How the names of environment variables end (a string constant such as KEY_ENV =
# "OPENAI_API_KEY", or a tuple of names, is found by these).
ENV_ENDINGS = ("_DIR", "_HOME", "_KEY", "_DB", "_MASTER", "_PORT", "_PAIRS", "_STRATEGY",
               "_RENDERER", "_FPS", "_KEYMAP")


def test_a_variable_set_changed_or_unset_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_ISOLATION_A", "1")
    monkeypatch.setenv("RELKIT_ISOLATION_B", "x")
    monkeypatch.delenv("RELKIT_ISOLATION_C", raising=False)
    before = isolation.snapshot()
    os.environ["RELKIT_SERVE_PAIRS_TEST"] = "1"
    os.environ["RELKIT_ISOLATION_B"] = "y"
    del os.environ["RELKIT_ISOLATION_A"]
    os.environ["SOME_LIBRARYS_OWN"] = "1"      # not watched: a library's business
    try:
        assert isolation.changes(before, isolation.snapshot()) == [
            "unset RELKIT_ISOLATION_A",
            "changed RELKIT_ISOLATION_B from 'x' to 'y'",
            "set RELKIT_SERVE_PAIRS_TEST='1'"]
        isolation.restore(before)
        assert isolation.changes(before, isolation.snapshot()) == []
        assert os.environ["RELKIT_ISOLATION_A"] == "1"
        assert "RELKIT_SERVE_PAIRS_TEST" not in os.environ
    finally:
        os.environ.pop("RELKIT_SERVE_PAIRS_TEST", None)
        os.environ.pop("SOME_LIBRARYS_OWN", None)


def test_a_move_of_the_working_directory_is_named(tmp_path: Path) -> None:
    before = isolation.snapshot()
    os.chdir(tmp_path)
    try:
        assert isolation.changes(before, isolation.snapshot()) == [
            f"moved the working directory from {before[1]} to {tmp_path}"]
    finally:
        isolation.restore(before)
    assert os.getcwd() == before[1]


def test_what_a_served_session_reads_is_watched() -> None:
    """Every variable relkit's code reads by name is watched (a new one is covered
    without anyone listing it): the names in os.environ.get / os.environ[...] / getenv
    calls of the package's source."""
    import re

    root = Path(__file__).resolve().parent.parent
    names = set()
    for part in ("metrics", "pooling", "corpora", "judging"):
        for path in (root / part).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            names |= set(re.findall(
                r"""(?:environ\.get\(|environ\[|getenv\(|envvar=)\s*["']([A-Z0-9_]+)["']""",
                text))
            # names kept in a constant or a tuple first, when the module reads os.environ
            if "environ" in text or "getenv" in text:
                names |= {n for n in re.findall(r"""["']([A-Z][A-Z0-9]*_[A-Z0-9_]+)["']""", text)
                          if n.endswith(ENV_ENDINGS)}
    assert {"RELKIT_SERVE_PAIRS", "RELKIT_DB", "HADOOP_CONF_DIR", "YARN_CONF_DIR",
            "OPENAI_API_KEY"} <= names                               # (the scan works)
    unwatched = sorted(n for n in names if not isolation.watched(n))
    assert unwatched == ["PYSPARK_GATEWAY_PORT"]   # (isolation.NOT_WATCHED says why)
