"""Sign-in tokens: shown once, stored as salted hashes, revocable; migration 0006."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from helpers import run_cli
from relkit.judging.store.models import StoreError
from relkit.judging.store.tokens import Identity, Refusal, issue, revoke, verify
from store_helpers import make_project, snapshot


def test_a_token_signs_in_its_owner_only(db_url: str) -> None:
    store = make_project(db_url)
    ann, bob = issue(store, "ann"), issue(store, "bob")
    assert verify(store, ann) == Identity("ann", "assessor")
    assert verify(store, bob) == Identity("bob", "assessor")
    # the right key with another secret, and garbage
    forged = ann[:-1] + ("0" if ann[-1] != "0" else "1")
    assert verify(store, forged) == Refusal("wrong secret", "ann")
    assert verify(store, "rk_" + "0" * 12 + "_" + "0" * 40) == Refusal("unknown")
    assert verify(store, "ann") == Refusal("malformed")
    assert verify(store, "") == Refusal("malformed")


def test_only_a_salted_hash_is_stored(db_url: str) -> None:
    store = make_project(db_url)
    t1 = issue(store, "ann")
    t2 = issue(store, "bob")
    with store.engine.connect() as conn:
        rows = conn.execute(text("SELECT key, salt, digest FROM access_token")).all()
    dump = repr(rows)
    for t in (t1, t2):
        assert t.split("_")[2] not in dump          # the secret is nowhere
    assert len({r.salt for r in rows}) == 2          # a salt per token
    assert all(len(r.digest) == 64 for r in rows)


def test_revoked_and_replaced_tokens_are_refused_and_kept(db_url: str) -> None:
    store = make_project(db_url)
    old = issue(store, "ann")
    new = issue(store, "ann")                        # replaces the lost one
    assert verify(store, old) == Refusal("revoked", "ann")
    assert verify(store, new) == Identity("ann", "assessor")
    assert revoke(store, "ann") == 1
    assert verify(store, new) == Refusal("revoked", "ann")
    assert revoke(store, "ann") == 0
    with store.engine.connect() as conn:              # kept for the log
        assert conn.execute(text("SELECT count(*) FROM access_token "
                                 "WHERE revoked_at IS NOT NULL")).scalar() == 2


def test_leads_get_tokens_for_the_lead_view(tmp_path: Path) -> None:
    store = make_project(str(tmp_path / "p.db"))
    from relkit.judging.store.adjudication import register_leads

    register_leads(store, ["lee"])
    assert verify(store, issue(store, "lee")) == Identity("lee", "lead")


def test_unknown_or_automatic_names_get_no_token(tmp_path: Path) -> None:
    store = make_project(str(tmp_path / "p.db"))
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments

    import_judgments(store, [JudgmentLine("bot", "1", "d00", 0, "f", 1)], kind="automatic")
    before = snapshot(store)
    with pytest.raises(StoreError, match="no assessor or lead named 'zed'"):
        issue(store, "zed")
    with pytest.raises(StoreError, match="automatic assessor"):
        issue(store, "bot")
    with pytest.raises(StoreError, match="no assessor or lead named 'zed'"):
        revoke(store, "zed")
    assert snapshot(store) == before


def test_cli_prints_the_token_once_on_stdout(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db))
    code, out, err = run_cli(["token", "issue", "ann", "--db", str(db)])
    assert code == 0, err
    token = out.strip()
    assert out.count("\n") == 1 and verify(store, token) == Identity("ann", "assessor")
    assert "shown only this once" in err and token not in err
    code, out, err = run_cli(["token", "revoke", "ann", "--db", str(db)])
    assert (code, out) == (0, "") and "1 token of ann revoked" in err
    assert verify(store, token) == Refusal("revoked", "ann")
    code, out, err = run_cli(["token", "issue", "zed", "--db", str(db)])
    assert code == 1 and out == "" and err.count("\n") == 1 and "'zed'" in err


def test_assign_token_issues_one_per_person(tmp_path: Path) -> None:
    from relkit.corpora.types import TREC_DL
    from relkit.judging.store.assign import Store
    from store_helpers import DOCS, POOL, TOPICS

    db = tmp_path / "p.db"
    store = Store.open(db)
    store.create_collection("demo", TREC_DL, TOPICS, DOCS)
    store.import_pool(POOL, name="depth-8")
    code, out, err = run_cli(["assign", "ann", "bob", "--lead", "lee", "--token",
                              "--db", str(db)])
    assert code == 0, err
    lines = dict(line.split("\t") for line in out.splitlines())
    assert sorted(lines) == ["ann", "bob", "lee"]
    assert verify(store, lines["lee"]) == Identity("lee", "lead")
    assert verify(store, lines["bob"]) == Identity("bob", "assessor")
    # again for lee: the first token stops working, and stderr says so in one line
    code, out, err = run_cli(["assign", "--lead", "lee", "--token", "--db", str(db)])
    assert code == 0, err
    assert out.startswith("lee\t") and out.count("\n") == 1
    assert verify(store, lines["lee"]) == Refusal("revoked", "lee")
    said = [line for line in err.splitlines() if "revoked" in line]
    assert said == ["relkit: lee's earlier sign-in token was revoked (it signs in no more; "
                    "hand them the new one)"], err
    assert verify(store, lines["bob"]) == Identity("bob", "assessor")   # untouched


def test_upgrade_from_0005_with_data(db_url: str) -> None:
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlmodel import SQLModel

    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import writer
    from relkit.judging.store.migrate import _config, current, head

    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d00", grade=3)
    cfg = _config()
    with writer(store.engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005")
    assert current(store.engine) == "0005"
    store.engine.dispose()
    reopened = Store.open(db_url)          # a write open: upgraded to head
    assert current(reopened.engine) == head() >= "0006"
    assert [j.grade for j in reopened.assessor("ann").judgments("1")] == [3]
    with reopened.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                SQLModel.metadata)
        assert diff == []
    assert verify(reopened, issue(reopened, "ann")) == Identity("ann", "assessor")


def test_the_servers_verifier_proves_a_token_once_and_still_sees_revocation(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # One browser shows its token three times (sign-in, page, websocket): scrypt once,
    # then only the row is read, so a revocation refuses it at the very next use.
    import relkit.judging.store.tokens as tokens

    store = make_project(db_url)
    ann = issue(store, "ann")
    calls = []
    real = tokens._digest
    monkeypatch.setattr(tokens, "_digest", lambda *a: calls.append(1) or real(*a))
    check = tokens.Verifier(store)
    assert [check(ann) for _ in range(3)] == [Identity("ann", "assessor")] * 3
    assert len(calls) == 1
    forged = ann[:-1] + ("0" if ann[-1] != "0" else "1")   # same key, wrong secret
    assert check(forged) == check(forged) == Refusal("wrong secret", "ann")
    assert len(calls) == 3                                  # never remembered
    revoke(store, "ann")
    assert check(ann) == Refusal("revoked", "ann")
    assert len(calls) == 3
    new = issue(store, "ann")
    assert check(new) == Identity("ann", "assessor")
    issue(store, "ann")                                     # replaced: the old one ends
    assert check(new) == Refusal("revoked", "ann")
