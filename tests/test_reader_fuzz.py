"""Readers fuzzed: random bytes and mutated valid files parse or raise a relkit error.

Every reader a user points at a file (judgment files, topics, documents, collection
manifests, keymaps, and runs/qrels through the public ``Run.read``/``Qrels.read``) either
returns or raises :class:`relkit.metrics.core.errors.RelkitError` whose message names the
file, never another exception (issue 23, D). A ``RelkitError`` that does not name the file
counts as a failure too.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT
from relkit.metrics.core.errors import RelkitError

SAMPLE = ROOT / "corpora" / "sample"
KEYMAP = b'[keys]\nflag = "f"\nskip = "s"\n'
JUDGMENTS_TABLE = (b"assessor,topic,doc,grade\nann,101,D006,3\nbob,101,D006,1\n"
                   b"ann,102,D001,0\n")


def _read_docs(p: Path) -> Any:
    from relkit.corpora.loaders import read_docs

    return list(read_docs(p, "jsonl-docs"))


def _read_trec_docs(p: Path) -> Any:
    from relkit.corpora.loaders import read_docs

    return list(read_docs(p, "trec-docs"))


def _read_topics(p: Path) -> Any:
    from relkit.corpora.loaders import read_topics

    return list(read_topics(p, "trec-topics"))


def _read_tsv_topics(p: Path) -> Any:
    from relkit.corpora.loaders import read_topics

    return list(read_topics(p, "tsv-topics"))


def _read_judgments(p: Path) -> Any:
    from relkit.judging.judgment_files import read_judgment_files

    return read_judgment_files([p])


def _read_manifest(p: Path) -> Any:
    from relkit.corpora.collection import Collection

    return Collection.load(p)


def _read_keymap(p: Path) -> Any:
    from relkit.corpora.types import TREC_DL
    from relkit.judging.tui.keymap import load

    return load(p, TREC_DL)


def _read_run(p: Path) -> Any:
    from relkit.metrics.data import Run

    return Run.read(p)


def _read_qrels(p: Path) -> Any:
    from relkit.metrics.data import Qrels

    return Qrels.read(p)


def _seed(path: Path, lines: int = 40) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:lines])


READERS: dict[str, tuple[Callable[[Path], Any], Callable[[], bytes], str]] = {
    "qrels-judgments": (_read_judgments, lambda: _seed(SAMPLE / "qrels.txt"), "ann.qrels"),
    "table-judgments": (_read_judgments, lambda: JUDGMENTS_TABLE, "long.csv"),
    "trec-topics": (_read_topics, lambda: _seed(SAMPLE / "topics.trec"), "topics.trec"),
    "tsv-topics": (_read_tsv_topics, lambda: b"101\tsolar panels\n102\theat pumps\n",
                   "topics.tsv"),
    "jsonl-docs": (_read_docs, lambda: _seed(SAMPLE / "docs.jsonl", 5), "docs.jsonl"),
    "trec-docs": (_read_trec_docs, lambda: b"<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>\nsome text\n"
                  b"</TEXT>\n</DOC>\n", "docs.trec"),
    "manifest": (_read_manifest, lambda: (SAMPLE / "collection.toml").read_bytes(),
                 "collection.toml"),
    "keymap": (_read_keymap, lambda: KEYMAP, "keys.toml"),
    "run": (_read_run, lambda: _seed(SAMPLE / "runs" / "bm25.txt"), "run.txt"),
    "qrels": (_read_qrels, lambda: _seed(SAMPLE / "qrels.txt"), "qrels.txt"),
}


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
                                              b"99999999999999999999999", b"nan", b'"',
                                              b"=", b"[", b"<", b"</DOC>", b"#", b","]))
    return bytes(data)


# Nothing is exempt: a run or qrels with gzip's magic bytes but a broken stream is a
# FormatError too (it was the gzip module's own EOFError / BadGzipFile).
KNOWN: dict[str, tuple[type[BaseException], ...]] = {}


def check(name: str, data: bytes) -> str | None:
    """None if the reader behaved; else what it did wrong."""
    reader, _, filename = READERS[name]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / filename
        if name == "manifest":  # the manifest's relative paths point at the sample
            for part in ("docs.jsonl", "topics.trec", "qrels.txt"):
                (Path(tmp) / part).symlink_to(SAMPLE / part)
            (Path(tmp) / "runs").symlink_to(SAMPLE / "runs")
        path.write_bytes(data)
        try:
            reader(path)
        except RelkitError as exc:
            if filename not in str(exc):
                return f"RelkitError not naming the file: {exc}"
        except KNOWN.get(name, ()):
            return None
        except Exception as exc:  # noqa: BLE001 - that is the finding
            return f"{type(exc).__name__}: {exc}"
    return None


FUZZ = settings(max_examples=int(os.environ.get("RELKIT_FUZZ_EXAMPLES", "60")),
                deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("name", sorted(READERS))
def test_random_bytes(name: str) -> None:
    @FUZZ
    @given(st.binary(max_size=400))
    def run(data: bytes) -> None:
        assert check(name, data) is None, (data[:80], check(name, data))

    run()


@pytest.mark.parametrize("name", sorted(READERS))
def test_mutated_valid_files(name: str) -> None:
    seed = READERS[name][1]()
    assert check(name, seed) is None  # the seed itself is valid

    @FUZZ
    @given(mutated(seed))
    def run(data: bytes) -> None:
        assert check(name, data) is None, (data[:120], check(name, data))

    run()
