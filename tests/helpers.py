"""Shared test helpers: where ../shared is, running the CLI in-process, PostgreSQL.

Tests import this as ``from helpers import ...``: ``tests/`` is on ``sys.path``
(``pythonpath`` in pyproject's pytest options), the repository root is not, so the
layers can only be imported by their installed names (``relkit.metrics``...), never as a
second, top-level copy (``metrics``). Fixtures live in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import shlex
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"

needs_shared = pytest.mark.skipif(
    not CONFORMANCE.is_dir(), reason=f"shared conformance data not found at {CONFORMANCE}")

# The share of each property test's examples run: 1 in `make test` (and CI), a third in
# `make check` (RELKIT_EXAMPLES=0.33: the fast loop is for quick feedback; the whole
# suite still runs every example). Every `max_examples` goes through examples()
# (tests/test_fast_loop.py walks the tests for one that does not).
try:
    EXAMPLES = float(os.environ.get("RELKIT_EXAMPLES") or 1)
except ValueError:
    raise SystemExit(f"RELKIT_EXAMPLES={os.environ['RELKIT_EXAMPLES']!r}: expected the "
                     "share of each property's examples to run, such as 0.33") from None


def examples(n: int) -> int:
    """``n`` examples scaled by $RELKIT_EXAMPLES, never fewer than ``min(n, 5)``."""
    return max(min(n, 5), round(n * EXAMPLES))


class _Oracle(types.ModuleType):
    """A module imported on its first attribute lookup (see :func:`oracle`)."""

    def __init__(self, name: str, skip: bool) -> None:
        super().__init__(name)
        self._skip = skip

    def __getattr__(self, attr: str) -> Any:
        # Collection probes every module-level name for pytest's private markers
        # (_pytestfixturefunction...), doctest and inspect for dunders: those must not
        # import the module. Tests use the oracles' public names only.
        if attr.startswith("_"):
            raise AttributeError(attr)
        mod = (pytest.importorskip(self.__name__) if self._skip
               else importlib.import_module(self.__name__))
        return getattr(mod, attr)


def oracle(name: str, *, skip: bool = False) -> types.ModuleType:
    """Module ``name``, imported when a test first uses it, not when pytest collects.

    The oracle libraries (pingouin, crowd-kit, ranx, tea-tasting, irrCAC...) take one to
    five CPU-seconds each to import, mostly for their own dependencies (matplotlib,
    numba, scikit-learn, ibis); imported at the top of a test module they were paid at
    every collection, by ``-k`` runs and by ``make check`` alike. ``skip``: a missing
    module skips the test that uses it (``pytest.importorskip``) instead of failing.
    """
    return _Oracle(name, skip)


def run_cli(args: list[str] | str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run ``relkit ARGS`` in this process; return (exit code, stdout, stderr)."""
    from relkit.judging.cli import main

    if isinstance(args, str):
        args = shlex.split(args)
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


# -- judging store backends ------------------------------------------------------------
# PostgreSQL: .ci/postgres starts a real server and exports RELKIT_TEST_PG (an admin URL);
# each test gets a fresh database on it. Outside CI, without it, those tests skip with a
# reason; with RELKIT_REQUIRE_PG=1 (set by .ci/run) a missing server is a failure.
PG_URL = os.environ.get("RELKIT_TEST_PG")
BACKENDS = ["sqlite", "postgresql"]


def fresh_pg_database(admin_url: str) -> tuple[str, Callable[[], None]]:
    """A new, empty database on the server at ``admin_url``: (its URL, a function dropping it)."""
    import uuid

    from sqlalchemy import create_engine, text

    name = f"relkit_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url.replace("postgresql://", "postgresql+psycopg://", 1),
                          isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    base = admin_url.rsplit("/", 1)[0]

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return f"{base}/{name}", drop


def pytrec_dicts(qrels: Any, run: Any) -> tuple[dict[str, dict[str, int]],
                                                dict[str, dict[str, float]]]:
    """pytrec_eval's dict-of-dicts shape from a relkit ``Qrels`` and ``Run``."""
    qd: dict[str, dict[str, int]] = {}
    for q, d, g in qrels.frame[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        qd.setdefault(q, {})[d] = int(g)
    rd: dict[str, dict[str, float]] = {}
    for q, d, s in run.frame[["query_id", "doc_id", "score"]].itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    return qd, rd
