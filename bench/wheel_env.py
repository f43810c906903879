"""relkit as users get it: its wheel, installed in a clean venv outside the repository.

The development venv installs relkit editable, and its import hook (a finder on
``sys.meta_path`` that maps ``relkit.*`` to the repository's folders) adds about 10 ms to
every process, ``python -c pass`` included; a user installs the wheel. ``--wheel`` in
``bench/startup_bench.py`` and ``bench/run_bench.py`` times that:

1. the working tree's files (tracked, and untracked ones not ignored: uncommitted
   changes count) are copied to a temporary directory and the wheel is built there with
   ``pip wheel --no-deps`` (not in the repository, where setuptools' ``build/`` could
   carry a deleted module into the wheel);
2. a venv is made at ``--venv`` (default ``$TMPDIR/relkit-bench-wheel``) with the
   interpreter the benchmark runs on, and the wheel is installed there with its
   dependencies and the peers (pytrec_eval, ir_measures, ranx): minutes, once;
3. later runs reinstall only relkit (``--no-deps --force-reinstall``), and only when the
   wheel's bytes changed. pip compiles the ``.pyc`` files, as for a user.

Every tool, the peers and ``python -c pass`` included, then runs from that venv's
interpreter, so start-up is compared like with like. ``--baseline REV``
(``bench/startup_bench.py``) adds the relkit rows of commit REV's wheel, installed in a
copy of the same venv (:func:`baseline_tools`): before and after in one run.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = Path(tempfile.gettempdir()) / "relkit-bench-wheel"
PEER_PACKAGES = ("pytrec-eval-terrier", "ir-measures", "ranx")


@dataclass(frozen=True)
class Tools:
    """The interpreter the peers run on and the ``relkit`` command, and where they live."""

    python: str
    relkit: Path
    where: str   # for the results' header


def dev_tools() -> Tools:
    """The development venv: relkit editable, the benchmark's own interpreter."""
    return Tools(sys.executable, ROOT / ".venv" / "bin" / "relkit", "the development venv "
                 "(editable install)")


def build_wheel(out: Path) -> Path:
    """Build relkit's wheel from the working tree into ``out``; return its path."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           check=True, capture_output=True).stdout.decode().split("\0")
    with tempfile.TemporaryDirectory(prefix="relkit-src-") as tmp:
        src = Path(tmp)
        for name in filter(None, files):
            if (ROOT / name).is_file():
                (src / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, src / name)
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("relkit-*.whl"):
            old.unlink()
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--wheel-dir", str(out), str(src)], check=True)
    (wheel,) = out.glob("relkit-*.whl")
    return wheel


def baseline_tools(venv: Path, rev: str) -> Tools:
    """Commit ``rev``'s wheel in a copy of ``venv`` (same dependencies): the "before"."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    base = venv.with_name(f"{venv.name}-{sha}")
    python, relkit = base / "bin" / "python", base / "bin" / "relkit"
    if not relkit.exists():
        print(f"installing {rev} ({sha})'s wheel in {base} (a copy of {venv}) ...", flush=True)
        shutil.rmtree(base, ignore_errors=True)
        shutil.copytree(venv, base, symlinks=True)
        with tempfile.TemporaryDirectory(prefix="relkit-base-") as tmp:
            src, dist = Path(tmp) / "src", Path(tmp) / "dist"
            src.mkdir()
            archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--wheel-dir", str(dist), str(src)], check=True)
            (wheel,) = dist.glob("relkit-*.whl")
            # run by the copy's own python, so the script's first line names the copy
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                            "--force-reinstall", str(wheel)], check=True)
    return Tools(str(python), relkit, f"commit {sha}'s wheel in {base}")


def wheel_tools(venv: Path = DEFAULT_VENV) -> Tools:
    """relkit's wheel installed in ``venv`` (made, or brought up to date, here)."""
    python, relkit = venv / "bin" / "python", venv / "bin" / "relkit"
    wheel = build_wheel(venv.with_name(venv.name + "-dist"))
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    stamp = venv / ".relkit-wheel-sha256"
    if not python.exists():
        print(f"making a clean venv at {venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # as the README's setup does: the pip a venv comes with (Python 3.11's is 23.x)
        # writes console scripts that import ``re`` first (pip 26.0 and later do not),
        # which alone costs about half of ``python -c pass``
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                       check=True)
    if not relkit.exists():
        print(f"installing {wheel.name} and its dependencies, and the peers "
              f"({', '.join(PEER_PACKAGES)}): minutes, once ...", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel),
                        *PEER_PACKAGES], check=True)
    elif not stamp.exists() or stamp.read_text() != digest:
        print(f"reinstalling {wheel.name} (changed) ...", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                        "--force-reinstall", str(wheel)], check=True)
    stamp.write_text(digest)
    return Tools(str(python), relkit, f"its wheel in a clean venv ({venv}, wheel sha256 "
                 f"{digest[:12]})")
