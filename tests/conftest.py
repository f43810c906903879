"""Shared test helpers: where ../shared is, and running the CLI in-process."""

from __future__ import annotations

import contextlib
import io
import os
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"

needs_shared = pytest.mark.skipif(
    not CONFORMANCE.is_dir(), reason=f"shared conformance data not found at {CONFORMANCE}")


def run_cli(args: list[str] | str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run ``relkit ARGS`` in this process; return (exit code, stdout, stderr)."""
    from judging.cli import main

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
