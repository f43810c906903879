"""``relkit corpora fetch`` against a real HTTP server on 127.0.0.1 (never the network)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import shutil
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SHARED, run_cli
from ports import POLL
from relkit.corpora import known
from relkit.corpora.collection import open_collection
from relkit.corpora.fetch import FetchError, fetch
from relkit.corpora.known import KNOWN, KnownCollection, RemoteFile
from relkit.corpora.stats import collection_stats
from relkit.metrics.core.registry import Registry

CORPORA = SHARED / "corpora"
needs_corpora = pytest.mark.skipif(not (CORPORA / "cranfield").is_dir(),
                                   reason=f"shared corpora not at {CORPORA}")


class _Server:
    def __init__(self, root: Path) -> None:
        self.requests: list[str] = []
        log = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, fmt: str, *args: object) -> None:
                log.append(self.path)

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(POLL,),
                                       daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator:  # type: ignore[type-arg]
    servers: list[_Server] = []

    def start(root: Path) -> _Server:
        servers.append(_Server(root))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    # No retries (pooch waits 1 s, 2 s... between them) unless a test asks for them.
    monkeypatch.setattr("relkit.corpora.fetch.RETRIES", 0)
    return tmp_path / "cache"


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".part" in p.name or ".extract" in p.name)


@needs_corpora
def test_fetch_cranfield_from_a_local_mirror(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = serve(CORPORA)
    code, out, err = run_cli(["corpora", "fetch", "cranfield",
                              "--url-base", f"{server.url}/cranfield"])
    assert code == 0, err
    root = Path(out.strip())
    assert root == tmp_path / "cache" / "collections" / "cranfield"
    for name in ("cran.all.1400", "cran.qry", "cranqrel", "cranqrel.readme"):
        assert (root / name).read_bytes() == (CORPORA / "cranfield" / name).read_bytes()
    assert "checksum matches" in err
    st = collection_stats(open_collection("cranfield"))       # by name, from the cache
    assert (st.docs, st.topics, st.qrels) == (1400, 225, 1837) and st.grades[4] == 128
    # Again: every file is already there with the right checksum, nothing is downloaded.
    served = len(server.requests)
    code, _, err = run_cli(["corpora", "fetch", "cranfield",
                            "--url-base", f"{server.url}/cranfield"])
    assert code == 0 and len(server.requests) == served and "already here" in err
    code, out, _ = run_cli(["corpora", "list"])
    assert any(line.startswith("cranfield\t") and "\tyes\t" in line for line in out.splitlines())


@needs_corpora
def test_corrupted_bytes_are_a_checksum_error_and_leave_no_file(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mirror = tmp_path / "mirror"
    shutil.copytree(CORPORA / "cranfield", mirror, ignore=shutil.ignore_patterns("runs"))
    data = bytearray((mirror / "cran.qry").read_bytes())
    data[100] ^= 0x20                                    # one flipped bit, same size
    (mirror / "cran.qry").chmod(0o644)
    (mirror / "cran.qry").write_bytes(bytes(data))
    server = serve(mirror)
    dest = tmp_path / "out"
    with pytest.raises(FetchError) as exc:
        fetch("cranfield", dest=dest, url_base=server.url)
    msg = str(exc.value)
    assert "checksum mismatch for cran.qry" in msg and KNOWN["cranfield"].sources[
        "github"][1].sha256 in msg and hashlib.sha256(data).hexdigest() in msg
    assert not (dest / "cran.qry").exists() and _leftovers(dest) == []
    assert not (dest / "collection.json").exists()       # not a usable collection
    code, _, err = run_cli(["corpora", "fetch", "cranfield", "--dest", str(tmp_path / "o2"),
                            "--url-base", server.url])
    last = err.splitlines()[-1]
    assert code == 1 and last.startswith("relkit: error: ") and "checksum mismatch" in last


def test_missing_file_and_dead_server_are_clear_errors(serve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    server = serve(tmp_path / "empty")
    with pytest.raises(FetchError, match=r"/cran.all.1400: download failed \(HTTP 404 "):
        fetch("cranfield", dest=tmp_path / "out", url_base=server.url)
    assert _leftovers(tmp_path / "out") == []
    server.close()
    with pytest.raises(FetchError, match="download failed"):
        fetch("vaswani", dest=tmp_path / "out2", url_base=server.url)


def test_unverified_files_need_a_flag_then_unpack(serve, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FetchError, match="no checksum is known for cacm.tar.gz.*--unverified"):
        fetch("cacm", dest=tmp_path / "out")
    # A tiny CACM-shaped archive (SMART docs with .N/.X, zero-padded qrels).
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    files = {"cacm.all": ".I 1\n.T\nPreliminary Report\n.B\nCACM December, 1958\n.A\nPerlis, A.\n"
                         ".N\nCA581203 JB March 22, 1978\n.X\n100\t5\t1\n"
                         ".I 2\n.T\nExtraction of Roots\n.W\nroots by repeated subtraction\n",
             "query.text": ".I 1\n.W\nreports on algebra\n.N\n 1. Richard\n"
                           ".I 2\n.W\nroots\n",
             "qrels.text": "01 0001  0 0\n02 0002 0 0\n"}
    with tarfile.open(mirror / "cacm.tar.gz", "w:gz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    server = serve(mirror)
    root = fetch("cacm", dest=tmp_path / "out", url_base=server.url, unverified=True)
    c = open_collection(root)
    docs = list(c.iter_docs())
    assert [(d.id, d.title) for d in docs] == [("1", "Preliminary Report"),
                                               ("2", "Extraction of Roots")]
    assert docs[0].fields["authors"] == "Perlis, A." and "CA581203" not in docs[0].text
    st = collection_stats(c)
    assert (st.docs, st.topics, st.qrels, st.topics_without_relevant) == (2, 2, 2, [])
    # A verified archive: the same bytes with their checksum in the registry are accepted.
    digest = hashlib.sha256((mirror / "cacm.tar.gz").read_bytes()).hexdigest()
    checked = KnownCollection("cacm", "t", "d", {"glasgow": (RemoteFile(
        "cacm.tar.gz", "unused", None, digest, extract=True),)}, KNOWN["cacm"].manifest, {}, "")
    registry: Registry[KnownCollection] = Registry("collection", known.UnknownCollection)
    registry.register(*(checked if kc.name == "cacm" else kc for kc in KNOWN.values()))
    monkeypatch.setattr(known, "KNOWN", registry)
    root = fetch("cacm", dest=tmp_path / "out3", url_base=server.url)
    assert (root / "qrels.text").read_text() == files["qrels.text"]


def test_unknown_collection_and_source() -> None:
    code, _, err = run_cli(["corpora", "fetch", "vaswan"])
    assert code == 1 and "did you mean 'vaswani'" in err
    with pytest.raises(FetchError, match=r"no source 'x'; it has github, glasgow$"):
        fetch("cranfield", source="x")


def test_registry_is_honest() -> None:
    """Every SHA-256 in the registry is the local copy's, when that copy is here."""
    for kc in KNOWN.values():
        for files in kc.sources.values():
            for f in files:
                assert f.note, (kc.name, f.path)        # provenance or why none
                local = CORPORA / kc.name / f.path
                if f.sha256 is not None and local.is_file():
                    assert hashlib.sha256(local.read_bytes()).hexdigest() == f.sha256
                    assert local.stat().st_size == f.size
                if not f.verifiable:
                    assert "--unverified" in f.note


# -- falling through the known sources (pooch underneath) --------------------------------
TINY = {"docs.jsonl": b'{"_id": "d1", "title": "t", "text": "solar panels"}\n',
        "topics.trec": b"<top>\n<num> Number: 1\n<title> solar\n</top>\n",
        "qrels.txt": b"1 0 d1 1\n"}
TINY_MANIFEST = {"name": "tiny", "scale": "binary",
                 "docs": {"path": "docs.jsonl", "format": "jsonl-docs"},
                 "topics": {"path": "topics.trec", "format": "trec-topics"},
                 "qrels": {"path": "qrels.txt", "format": "trec-qrels"}}


def _tiny(monkeypatch: pytest.MonkeyPatch, bases: dict[str, str]) -> None:
    """A known collection 'tiny' whose sources (in order) are the servers in ``bases``."""
    sources = {name: tuple(RemoteFile(path, f"{base}/{path}", len(data),
                                      hashlib.sha256(data).hexdigest(), note="test")
                           for path, data in TINY.items())
               for name, base in bases.items()}
    registry: Registry[KnownCollection] = Registry("collection", known.UnknownCollection)
    registry.register(*KNOWN.values(), KnownCollection("tiny", "t", "d", sources,
                                                       TINY_MANIFEST, {}, ""))
    monkeypatch.setattr(known, "KNOWN", registry)


def _mirror(root: Path, corrupt: str | None = None) -> Path:
    root.mkdir(parents=True)
    for path, data in TINY.items():
        (root / path).write_bytes(data.upper() if path == corrupt else data)
    return root


def _dead_url() -> str:
    """An address on 127.0.0.1 where nothing listens (a server started and stopped)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_a_source_that_is_down_falls_through_to_the_next(serve, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    up = serve(_mirror(tmp_path / "up"))
    _tiny(monkeypatch, {"dead": _dead_url(), "up": up.url})
    said: list[str] = []
    root = fetch("tiny", dest=tmp_path / "out", say=said.append)
    assert {p: (root / p).read_bytes() for p in TINY} == TINY
    assert json.loads((root / "FETCHED.json").read_text())["source"] == "up"
    assert any(m.startswith("tiny: source 'dead' failed (") and "Connection refused" in m
               and m.endswith("trying the next source") for m in said)
    st = collection_stats(open_collection(root))
    assert (st.docs, st.topics, st.qrels) == (1, 1, 1)
    assert _leftovers(root) == [] and not any(p.name.startswith("tmp") for p in root.iterdir())


def test_a_source_with_wrong_bytes_falls_through_and_leaves_nothing(  # type: ignore[no-untyped-def]
        serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = serve(_mirror(tmp_path / "bad", corrupt="topics.trec"))
    good = serve(_mirror(tmp_path / "good"))
    _tiny(monkeypatch, {"bad": bad.url, "good": good.url})
    said: list[str] = []
    root = fetch("tiny", dest=tmp_path / "out", say=said.append)
    assert (root / "topics.trec").read_bytes() == TINY["topics.trec"]
    assert any("source 'bad' failed" in m and "checksum mismatch for topics.trec" in m
               for m in said)
    # docs.jsonl came intact from the first source: the second does not send it again
    assert "/docs.jsonl" not in good.requests and "/topics.trec" in good.requests
    assert sorted(p.name for p in root.iterdir()) == sorted([*TINY, "FETCHED.json",
                                                             "collection.json"])


def test_every_source_down_names_each_one_and_url_base(serve, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    empty = serve(tmp_path / "empty")
    dead = _dead_url()
    _tiny(monkeypatch, {"dead": dead, "empty": empty.url})
    with pytest.raises(FetchError) as exc:
        fetch("tiny", dest=tmp_path / "out")
    msg = str(exc.value)
    assert msg.startswith("tiny: every source failed: source 'dead': ")
    assert f"{dead}/docs.jsonl: download failed (Connection refused)" in msg
    assert f"source 'empty': {empty.url}/docs.jsonl: download failed (HTTP 404 " in msg
    assert msg.endswith("try again later, or download from a mirror with --url-base URL "
                        "(each file from URL/FILE)")
    assert not (tmp_path / "out" / "collection.json").exists()
    code, out, err = run_cli(["corpora", "fetch", "tiny", "--dest", str(tmp_path / "o2")])
    (line,) = [ln for ln in err.splitlines() if "error" in ln]
    assert code == 1 and out == "" and line == f"relkit: error: {msg}"
    # A mirror replaces the sources: its failure says how to go back to them.
    with pytest.raises(FetchError, match=r"^tiny: the download failed: mirror .*; check the "
                       r"mirror, or leave out --url-base to try the known sources "
                       r"\(dead, empty\)$"):
        fetch("tiny", dest=tmp_path / "out", url_base=empty.url)


def test_a_failed_transfer_is_retried(serve, tmp_path: Path,  # type: ignore[no-untyped-def]
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    flaky = serve(_mirror(tmp_path / "flaky"))
    failed: list[str] = []
    handler = flaky.httpd.RequestHandlerClass
    serve_get = handler.func.do_GET  # type: ignore[attr-defined]

    def once_503(self) -> None:  # type: ignore[no-untyped-def]
        if self.path not in failed:                     # each file fails on its first try
            failed.append(self.path)
            self.send_error(503)
            return
        serve_get(self)

    monkeypatch.setattr(handler.func, "do_GET", once_503)  # type: ignore[attr-defined]
    _tiny(monkeypatch, {"flaky": flaky.url})
    with pytest.raises(FetchError, match=r"HTTP 503 "):
        fetch("tiny", dest=tmp_path / "out", retries=0)
    failed.clear()
    root = fetch("tiny", dest=tmp_path / "out2", retries=1)
    assert {p: (root / p).read_bytes() for p in TINY} == TINY
    assert sorted(failed) == sorted(f"/{p}" for p in TINY)
