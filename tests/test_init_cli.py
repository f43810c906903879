"""relkit init + pool --into + assign on a real collection, through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SHARED, run_cli
from relkit.judging.store.assign import Store

CRAN = SHARED / "corpora" / "cranfield"


@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
def test_cranfield_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    db = str(tmp_path / "cf.db")
    code, _, err = run_cli(["init", "--topics", str(CRAN / "cran.qry"), "--docs",
                            str(CRAN / "cran.all.1400"), "--scale", "binary", "--db", db])
    assert code == 0, err
    assert "225 topics" in err
    runs = sorted(map(str, CRAN.glob("runs/*/*.txt")))
    code, _, err = run_cli(["pool", *runs, "--depth", "5", "--into", db])
    assert code == 0, err
    # Running it again is refused whole: the same pool cannot be imported twice.
    code, _, err = run_cli(["pool", *runs, "--depth", "5", "--into", db])
    assert code == 1 and "the same pool (the same entries) is already imported as 'depth-5'" \
        in err
    # A different pool at the same depth (fewer runs) is not a duplicate: it gets its own
    # default name (it was refused as "already imported" before its entries were read).
    code, _, err = run_cli(["pool", *runs[:2], "--depth", "5", "--into", db])
    assert code == 0, err
    assert Store.open(db, readonly=True).pool_names() == ["depth-5", "depth-5-2"]
    code, _, err = run_cli(["pool", *runs[:3], "--depth", "5", "--name", "depth-5",
                            "--into", db])
    assert code == 1 and "another pool is already named 'depth-5'" in err
    code, _, err = run_cli(["assign", "ann", "bob", "--overlap", "0.5", "--db", db])
    assert code == 0, err
    store = Store.open(db)
    ann = store.assessor("ann")
    first = ann.next_item(ann.topics()[0].key)
    assert first is not None and first.text  # the pooled document's text was copied in
    # Only pooled documents are copied in, not the whole collection.
    from sqlalchemy import text
    with store.engine.connect() as conn:
        n = conn.execute(text("SELECT COUNT(*) FROM document")).scalar_one()
    assert 0 < n < 1400


def test_init_errors(tmp_path: Path) -> None:
    bad = tmp_path / "t.trec"
    bad.write_text("<top><num>1</num><title>x</title></top>\n<top><num>1</num></top>\n")
    code, _, err = run_cli(["init", "--topics", str(bad), "--db", str(tmp_path / "x.db")])
    assert code == 1 and "topic '1' twice" in err
    good = tmp_path / "g.tsv"
    good.write_text("1\tcats\n")
    code, _, err = run_cli(["init", "--topics", str(good), "--scale", "nope",
                            "--db", str(tmp_path / "y.db")])
    assert code == 2 and "unknown relevance scale 'nope'" in err  # a usage error


@pytest.mark.parametrize(("topics", "docs"), [
    ("<top>\n<num> Number: 1\n<title> caf\xe9\n</top>\n".encode("latin-1"),
     b'{"_id": "D1", "text": "ok"}\n'),
    (b"<top>\n<num> Number: 1\n<title> cafe\n</top>\n",
     '{"_id": "D1", "text": "caf\xe9"}\n'.encode("latin-1")),
    (b"1\tcafe\n", b"<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>caf\xe9</TEXT>\n</DOC>\n"),
], ids=["trec-topics", "jsonl-docs", "trec-docs"])
def test_bytes_that_are_not_utf8_are_said_not_silently_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, topics: bytes, docs: bytes) -> None:
    """Old collections hold Latin-1 bytes: init keeps going (U+FFFD in their place), but
    says which file held them, each time (the documents' store is cached), even under
    --quiet: the text an assessor will judge is not the file's. A newcomer found the
    replacement silent."""
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    ext = ".tsv" if topics.startswith(b"1\t") else ".trec"
    (tmp_path / f"t{ext}").write_bytes(topics)
    (tmp_path / ("d.jsonl" if docs.startswith(b"{") else "d.trec")).write_bytes(docs)
    bad = next(p for p in tmp_path.iterdir() if p.is_file() and b"\xe9" in p.read_bytes())
    good = next(p for p in tmp_path.iterdir() if p.is_file() and p != bad)
    for attempt in range(2):
        db = tmp_path / f"{attempt}.db"
        args = ["init", "--topics", str(tmp_path / f"t{ext}"), "--docs",
                str(next(tmp_path.glob("d.*"))), "--db", str(db), "--quiet"]
        code, _, err = run_cli(args)
        assert code == 0, err
        assert f"relkit: warning: {bad}: bytes that are not UTF-8 are kept as U+FFFD" in err
        assert str(good) not in err, err
    code, _, err = run_cli(["init", "--topics", str(SAMPLE_TOPICS), "--db",
                            str(tmp_path / "ok.db"), "--quiet"])
    assert code == 0 and "warning" not in err, err


SAMPLE_TOPICS = Path(__file__).resolve().parents[1] / "corpora" / "sample" / "topics.trec"


def test_what_init_would_refuse_on_writing_is_refused_before_indexing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer waited for the documents to be indexed before hearing that --db named a
    directory, a missing one, or a database already holding the collection."""
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    sample = SAMPLE_TOPICS.parent
    init = ["init", "--topics", str(SAMPLE_TOPICS), "--docs", str(sample / "docs.jsonl")]
    (tmp_path / "folder").mkdir()
    db = tmp_path / "p.db"
    code, _, err = run_cli([*init, "--db", str(db)])
    assert code == 0 and "indexed" in err, err
    for where, said in ((tmp_path / "nowhere" / "p.db", "directory "
                         f"{tmp_path / 'nowhere'} does not exist"),
                        (tmp_path / "folder", "is a directory; name a file in it"),
                        (db, "collection 'topics' already exists in this database (named "
                         "after the topics file: --name NAME for another)")):
        code, _, err = run_cli([*init, "--db", str(where)])
        assert code == 1 and said in err and "indexed" not in err, err
        assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "nowhere").exists() and not any((tmp_path / "folder").iterdir())
