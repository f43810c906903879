"""The wheel, installed in a fresh virtual environment, is one package: ``relkit``.

Built from this checkout, installed with its dependencies into a new venv (pip's cache
makes the second install quick), then used from a folder that holds a ``metrics.py`` and a
``judging/`` package of its own: a user's files must not shadow relkit's layers.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora" / "sample"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built as a release is (``python -m build``: the sdist
    first, then the wheel from the unpacked sdist, so the sdist must hold everything)."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    # No setuptools deprecation or notice on a regular build (what `make demo` runs);
    # pip's own "WARNING: ..." lines about the local index are the machine's, not ours.
    assert not [ln for ln in (proc.stdout + proc.stderr).splitlines()
                if "Warning" in ln or "!!" in ln], proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (whl,) = dist.glob("relkit-*.whl")
    return whl


def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    sdists, wheels = list(dist.glob("relkit-*.tar.gz")), list(dist.glob("relkit-*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, list(dist.iterdir())
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                           str(sdists[0]), str(wheels[0])],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def test_the_metadata_is_complete(wheel: Path) -> None:
    import email

    (meta_name,) = [n for n in zipfile.ZipFile(wheel).namelist()
                    if n.endswith(".dist-info/METADATA")]
    meta = email.message_from_bytes(zipfile.ZipFile(wheel).read(meta_name))
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == ">=3.11"
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().startswith("# relkit")   # the README, as PyPI shows it
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert {u.split(",")[0] for u in meta.get_all("Project-URL")} >= {"Homepage", "Changelog"}
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names[-10:]
    assert "MIT License" in (ROOT / "LICENSE").read_text()


def test_wheel_holds_only_the_relkit_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"relkit"}
    for layer in ("metrics", "pooling", "corpora", "judging"):
        assert f"relkit/{layer}/__init__.py" in names
    # Sub-packages are listed by hand in pyproject.toml: every folder with an __init__.py
    # under a layer must be in the wheel (pooling/strategies once was not).
    for init in ROOT.glob("*/**/__init__.py"):
        rel = init.relative_to(ROOT)
        if rel.parts[0] in {"metrics", "pooling", "corpora", "judging"} \
                and rel.parts[1] != "_relkit":
            assert f"relkit/{rel.as_posix()}" in names, rel
    assert "relkit/__init__.py" in names and "relkit/__main__.py" in names
    assert "relkit/judging/store/migrations/script.py.mako" in names
    # The judging screens' style sheets (CSS_PATH and the widgets' DEFAULT_CSS).
    for tcss in (ROOT / "judging" / "tui").glob("*.tcss"):
        assert f"relkit/judging/tui/{tcss.name}" in names, tcss.name
    assert "relkit/corpora/sample/collection.toml" in names
    assert not any("make_runs" in n for n in names)


def test_installed_wheel_works_beside_a_users_own_metrics_and_judging(
        wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # --no-compile: pip would byte-compile every installed module (pandas, pyarrow,
    # textual... about half its CPU time); the commands below compile what they import,
    # and pip ignores a module that does not compile anyway, so nothing checked is lost.
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                          "--no-compile", str(wheel)],
                         capture_output=True, text=True, timeout=1200)
    assert pip.returncode == 0, pip.stderr[-3000:]
    site = next((venv / "lib").glob("python*/site-packages"))
    ours = {p.name for p in site.iterdir()} & {"metrics", "pooling", "corpora", "judging"}
    assert not ours, f"installed at the top level of site-packages: {ours}"

    work = tmp_path / "work"
    (work / "judging").mkdir(parents=True)
    (work / "metrics.py").write_text("raise ImportError('the user metrics.py was imported')\n")
    (work / "judging" / "__init__.py").write_text("raise ImportError('user judging/')\n")
    relkit = str(venv / "bin" / "relkit")

    ev = subprocess.run([relkit, "eval", "-m", "AP", "-m", "nDCG@10",
                         str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")],
                        cwd=work, capture_output=True, text=True, timeout=300)
    assert ev.returncode == 0, ev.stderr
    assert ev.stdout.splitlines()[0].split()[:2] == ["map", "all"]

    demo = subprocess.run([relkit, "demo", "--db", str(work / "demo.db")], cwd=work,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert demo.returncode == 0, demo.stderr
    assert (work / "demo.db").stat().st_size > 0

    # The shipped sample is a known collection by name, from the installed package data.
    listed = subprocess.run([relkit, "corpora", "list"], cwd=work, capture_output=True,
                            text=True, timeout=300)
    assert listed.returncode == 0 and any(
        ln.startswith("sample\t") and "\tshipped\t" in ln for ln in listed.stdout.splitlines())
    info = subprocess.run([relkit, "corpora", "info", "sample"], cwd=work, capture_output=True,
                          text=True, timeout=300)
    assert info.returncode == 0 and "documents\t265" in info.stdout.splitlines(), info.stderr
    assert str(site) in subprocess.run([relkit, "corpora", "fetch", "sample"], cwd=work,
                                       capture_output=True, text=True, timeout=300).stdout

    # `python -m relkit` from the same folder: the working directory is on sys.path first.
    mod = subprocess.run([str(venv / "bin" / "python"), "-m", "relkit", "eval", "-m", "P@5",
                          str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "ql.txt")],
                         cwd=work, capture_output=True, text=True, timeout=300)
    assert mod.returncode == 0, mod.stderr
    assert mod.stdout.startswith("P_5")

    # The front door from the installed package: `import relkit` loads no layer, a name does.
    code = ("import sys, relkit; assert 'relkit.metrics' not in sys.modules; "
            f"print(relkit.evaluate({str(SAMPLE / 'qrels.txt')!r}, "
            f"{str(SAMPLE / 'runs' / 'bm25.txt')!r}, ['AP']))")
    front = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=work,
                           capture_output=True, text=True, timeout=300)
    assert front.returncode == 0, front.stderr
    assert front.stdout.startswith("<Result 'bm25': 6 topics, AP=0.7163>")

    # What a TREC-format eval imports beyond numpy and relkit's own modules, from the
    # wheel (the development venv's editable finder loads pathlib and more at start-up,
    # so only an installed relkit shows them): each one is start-up time of the
    # command (pathlib with urllib.parse and ipaddress was about 2.5 ms of 0.1 s;
    # difflib, queue and threading another 1).
    new = {}
    for what in (["numpy"], ["eval", "-m", "official", str(SAMPLE / "qrels.txt"),
                             str(SAMPLE / "runs" / "bm25.txt")]):
        got = subprocess.run([str(venv / "bin" / "python"), "-c", NEW_MODULES, *what],
                             cwd=work, capture_output=True, text=True, timeout=300)
        assert got.returncode == 0, got.stderr
        new[what[0]] = set(got.stdout.split())
    extra = {m for m in new["eval"] - new["numpy"] if m.split(".")[0] not in ("relkit", "numpy")}
    assert extra <= EVAL_MAY_IMPORT, sorted(extra - EVAL_MAY_IMPORT)


# The standard library modules a TREC-format ``relkit eval`` may import beyond numpy's
# (dataclasses: each class compiled its methods at import, metrics/core/record.py).
EVAL_MAY_IMPORT = {"__future__", "atexit", "gc"}
NEW_MODULES = """
import os, sys
before = set(sys.modules)
if sys.argv[1:] == ["numpy"]:
    import numpy
else:
    from relkit.judging.cli import main
    out = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
    os.dup2(out, 1)
print(" ".join(sorted(set(sys.modules) - before)))
"""
