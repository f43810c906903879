"""``relkit judges-run`` end to end against a real local chat-completions server
(tests/chat_server.py): no network, no model. The server scripts the grades and the
misbehaviour and counts every request, so "paid nothing", "repeated nothing" and "lost
nothing" are counted, not assumed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autojudge_helpers import automatic_grades as _grades
from chat_server import ChatServer, grade_of, servers
from helpers import run_cli
from ports import refused_port
from store_helpers import POOL

N = len(POOL)  # 16 pooled pairs


@pytest.fixture
def chat_server() -> Iterator[Any]:
    yield from servers()


@pytest.fixture
def db(tmp_path: Path) -> str:
    from store_helpers import make_project

    path = str(tmp_path / "p.db")
    make_project(path).close()
    return path


def _judge(db: str, server: ChatServer, *more: str) -> tuple[int, str, str]:
    return run_cli(["judges-run", "--db", db, "--endpoint", server.url, "--model", "m1",
                    "--backoff", "0", *more])


def _history(db: str) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute("SELECT COUNT(*) FROM judgment_history").fetchone()[0])


EXPECTED = {(t, d): grade_of(t, d) for t, d in POOL}


def test_grades_a_pool_as_an_automatic_assessor(db: str, chat_server: Any,
                                                tmp_path: Path) -> None:
    server = chat_server()
    code, out, err = _judge(db, server, "--answers", str(tmp_path / "a.tsv"))
    assert code == 0, err
    assert out == ""
    assert _grades(db) == EXPECTED
    assert server.total == N and set(server.counts.values()) == {1}
    # Token totals: what the server reported, summed.
    assert (f"{N} requests ({server.usage_in:,} tokens in, {server.usage_out:,} out)"
            in err), err
    rows = (tmp_path / "a.tsv").read_text().splitlines()
    assert rows[0].split("\t") == ["topic", "doc", "status", "grade", "tokens_in",
                                   "tokens_out", "raw"]
    assert len(rows) == N + 1
    t, d, st, g, _, t_out, raw = rows[1].split("\t")
    assert (t, d, st, int(g), t_out) == ("1", "d00", "ok", 0, "5")
    assert raw == '"##final score: 0"'
    # The default prompt: UMBRELA's structure with the project's scale and texts.
    first = next(p for p in server.prompts if "Text of document 0." in p)
    assert "Query: solar power" in first and "Passage: Text of document 0." in first
    assert "3 = " in first and "##final score" in first


def test_a_rerun_pays_nothing(db: str, chat_server: Any) -> None:
    server = chat_server()
    assert _judge(db, server)[0] == 0
    history = _history(db)
    code, _, err = run_cli(["judges-run", "--db", db, "--endpoint", server.url, "--model",
                            "m1"])
    assert code == 0, err
    assert server.total == N  # hit rate 100%: not one request more
    assert f"{N} answers from the cache, 0 requests" in err
    assert "no new grades to import" in err
    assert _history(db) == history and _grades(db) == EXPECTED


def test_a_new_template_or_model_asks_again(db: str, chat_server: Any,
                                            tmp_path: Path) -> None:
    server = chat_server()
    assert _judge(db, server)[0] == 0
    tpl = tmp_path / "t.txt"
    tpl.write_text("Topic {topic} ({title}; {description}) document {doc}:\n{text}\n"
                   "Grades {low}-{high}:\n{scale}\nAnswer ##final score: G {{literal}}\n")
    code, _, err = _judge(db, server, "--template", str(tpl), "--assessor", "m1-custom")
    assert code == 0, err
    assert server.total == 2 * N
    p = next(p for p in server.prompts[N:] if "document d00:" in p)
    assert p.startswith("Topic 1 (solar power; Find documents on solar panels.) document "
                        "d00:\nText of document 0.\nGrades 0-3:\n3 = ")
    assert p.endswith("Answer ##final score: G {literal}\n")
    assert _grades(db, "m1-custom") == EXPECTED
    assert _judge(db, server, "--model", "m2")[0] == 0  # the model is part of the key
    assert server.total == 3 * N


def test_unparsed_answers_are_counted_listed_never_guessed(db: str, chat_server: Any,
                                                           tmp_path: Path) -> None:
    server = chat_server({("1", "d01"): [("text", "Probably 2, or maybe 3.")],
                          ("1", "d02"): [("text", "##final score: 7")],
                          ("007", "d09"): [("text", "")],
                          ("007", "d10"): [("text", "2")]})
    code, _, err = _judge(db, server, "--answers", str(tmp_path / "a.tsv"))
    assert code == 0, err
    assert ("3 answers gave no grade on the scale, not imported: 007/d09 (unparsed), "
            "1/d01 (unparsed), 1/d02 (off_scale)") in err
    got = _grades(db)
    assert set(EXPECTED) - set(got) == {("1", "d01"), ("1", "d02"), ("007", "d09")}
    assert got[("007", "d10")] == 2  # a bare integer is an answer
    rows = {tuple(r.split("\t")[:2]): r.split("\t") for r in
            (tmp_path / "a.tsv").read_text().splitlines()[1:]}
    assert rows[("1", "d01")][2:4] == ["unparsed", ""]
    assert rows[("1", "d01")][6] == '"Probably 2, or maybe 3."'
    assert rows[("1", "d02")][2:4] == ["off_scale", ""]
    # Paid answers, even unparsed ones, are not asked again.
    assert _judge(db, server)[0] == 0 and server.total == N


def test_retries_429_500_timeouts_and_dropped_connections(db: str, chat_server: Any) -> None:
    server = chat_server({("1", "d00"): [("status", 429, {"Retry-After": "0"})] * 2,
                          ("1", "d03"): [("status", 500, {})],
                          ("1", "d05"): [("status", 503, {})],
                          ("007", "d06"): [("slow", 3.0)],
                          ("007", "d08"): ["drop", "drop"]})
    code, _, err = _judge(db, server, "--timeout", "0.5", "--concurrency", "3")
    assert code == 0, err
    assert _grades(db) == EXPECTED
    assert server.counts[("1", "d00")] == 3 and server.counts[("007", "d08")] == 3
    assert server.counts[("1", "d03")] == server.counts[("007", "d06")] == 2
    assert server.total == N + 2 + 1 + 1 + 1 + 2
    assert f"{N} requests" in err  # answers received: retries are not answers


def test_no_answer_after_the_retries(db: str, chat_server: Any) -> None:
    server = chat_server({("1", "d04"): [("status", 500, {})] * 4})
    code, _, err = _judge(db, server, "--retries", "2")
    assert code == 1
    assert server.counts[("1", "d04")] == 3
    assert ("relkit: error: " + server.url + ": topic '1' document 'd04': no answer after "
            "3 attempts (HTTP 500)") in err.splitlines()
    assert set(EXPECTED) - set(_grades(db)) == {("1", "d04")}  # the others are stored
    assert server.total == N + 2
    assert _judge(db, server)[0] == 0  # only it is asked again: a 500, then its answer
    assert server.total == N + 4 and server.counts[("1", "d04")] == 5
    assert _grades(db) == EXPECTED


def test_retry_after_is_honoured_and_backoff_doubles(chat_server: Any) -> None:
    from relkit.judging.autojudge.backend import Request
    from relkit.judging.autojudge.chat import ChatBackend
    from relkit.judging.autojudge.prompt import Template

    server = chat_server({("1", "d02"): [("status", 429, {"Retry-After": "7"}),
                                         ("status", 500, {}), ("status", 502, {}),
                                         ("status", 429, {"Retry-After": "1.5"})]})
    waits: list[float] = []
    b = ChatBackend(server.url, "m", Template.read(None), [(0, "no", ""), (1, "yes", ""),
                                                          (2, "a", ""), (3, "b", "")],
                    backoff=0.25, sleep=waits.append)
    a = b.grade(Request("1", "d02", "solar power", "", "", "Text of document 2."))
    assert (a.grade, a.status) == (2, "ok")
    assert waits == [7.0, 0.5, 1.0, 1.5]  # Retry-After; backoff * 2**attempt; Retry-After


def test_budgets_stop_cleanly_and_a_resume_repeats_nothing(db: str, chat_server: Any) -> None:
    # Slow answers (well inside the timeout), so that requests overlap: never more than
    # --concurrency at once.
    server = chat_server({p: [("slow", 0.2)] for p in POOL})
    code, _, err = _judge(db, server, "--max-requests", "5", "--concurrency", "3")
    assert code == 0, err
    assert server.max_in_flight <= 3
    assert server.total == 5 and len(_grades(db)) == 5
    assert "stopped at --max-requests: 11 pairs not asked yet" in err
    assert _judge(db, server)[0] == 0
    assert server.total == N and set(server.counts.values()) == {1}
    assert _grades(db) == EXPECTED


def test_max_cost_with_a_price(db: str, chat_server: Any) -> None:
    server = chat_server()
    code, _, err = _judge(db, server, "--max-requests", "1", "--price", "1,1")
    assert code == 0, err
    assert "about $" in err
    # The server's usage: the prompt's words in, 5 out; at $1 per million tokens each way
    # a request costs (words + 5) / 1e6. Budget: three and a half first requests.
    budget = 3.5 * (server.usage_in + server.usage_out) / 1e6
    code, _, err = _judge(db, server, "--concurrency", "1", "--max-cost", repr(budget),
                          "--price", "1,1")
    assert code == 0, err
    assert "stopped at --max-cost" in err
    costs = [(len(p.split()) + 5) / 1e6 for p in server.prompts[1:]]
    # No request is sent once the cost is reached; one is while it is below.
    assert sum(costs[:-1]) < budget <= sum(costs)
    assert f"about ${sum(costs):.4f}" in err


def test_bad_endpoints_keys_templates_one_line_each(db: str, chat_server: Any,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def one_line(args: list[str], code: int, *words: str) -> None:
        got, out, err = run_cli(["judges-run", "--db", db, "--model", "m1", *args])
        assert got == code and out == "" and err.count("\n") == 1, (args, got, err)
        for w in words:
            assert w in err, (w, err)

    one_line(["--endpoint", "localhost:8000"], 2, "--endpoint", "http://")
    one_line(["--endpoint", "ftp://x/v1"], 2, "--endpoint")
    with refused_port() as port:
        one_line(["--endpoint", f"http://127.0.0.1:{port}/v1"], 1,
                 "cannot reach the endpoint")
    server = chat_server(key="sekret-123")
    monkeypatch.setenv("RELKIT_TEST_KEY", "wrong-key-456")
    one_line(["--endpoint", server.url, "--key-env", "RELKIT_TEST_KEY"], 1,
             "refused the API key (HTTP 401")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    one_line(["--endpoint", server.url], 1, "asks for an API key (HTTP 401")
    monkeypatch.setenv("RELKIT_TEST_KEY", "sekret-123")
    code, out, err = run_cli(["judges-run", "--db", db, "--model", "m1", "--endpoint",
                              server.url, "--key-env", "RELKIT_TEST_KEY"])
    assert code == 0 and "sekret" not in out + err
    # The key is never an option.
    one_line(["--endpoint", server.url, "--api-key", "x"], 2, "--api-key")
    bad = tmp_path / "bad.txt"
    bad.write_text("Query: {query}\nPassage: {passage}\n")
    one_line(["--endpoint", server.url, "--template", str(bad)], 1,
             f"{bad}:2: unknown field {{passage}}")
    bad.write_text("Grade the query {query}.\n")
    one_line(["--endpoint", server.url, "--template", str(bad)], 1,
             "never shows the document", "{text}")
    bad.write_text("Grade {query\n")
    one_line(["--endpoint", server.url, "--template", str(bad)], 1, f"{bad}:1:")
    one_line(["--endpoint", server.url, "--template", str(tmp_path / "none.txt")], 1,
             "none.txt: no such file")
    one_line(["--endpoint", server.url, "--max-cost", "1"], 2, "--max-cost", "--price")
    one_line(["--endpoint", server.url, "--price", "cheap"], 2, "--price")
    one_line(["--endpoint", server.url, "--assessor", "ann"], 2, "human assessor")
    one_line(["--endpoint", server.url, "--pool", "nope"], 1, "no pool named 'nope'")
    with sqlite3.connect(db) as c:
        c.execute("UPDATE document SET text = '' WHERE key = 'd05'")
    quiet = chat_server()
    one_line(["--endpoint", quiet.url], 1, "2 pairs of pool 'depth-8' have a document with no text",
             "'d05'")
    assert quiet.total == 0
    with sqlite3.connect(db) as c:
        c.execute("UPDATE document SET text = 'Text of document 5.' WHERE key = 'd05'")
    odd = chat_server({("1", "d00"): [("json", '{"hello": 1}')]})
    one_line(["--endpoint", odd.url, "--model", "m9"], 1, "not a chat completion")


def test_kill_and_resume_loses_and_repeats_nothing(db: str, chat_server: Any,
                                                   tmp_path: Path) -> None:
    stored_before = 6
    server = chat_server(gate=stored_before + 1)
    env = {**os.environ, "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "relkit", "judges-run", "--db", db, "--endpoint",
           server.url, "--model", "m1", "--concurrency", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        assert server.arrived.wait(120), "the gated request never came"
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
    server.release()
    cache = tmp_path / "p.answers.sqlite"
    with sqlite3.connect(cache) as c:
        kept = {(t, d) for t, d in c.execute("SELECT topic, doc FROM answer")}
    assert len(kept) == stored_before  # every answer received before the kill
    assert _grades(db) == {}  # killed before the import: the judgments come on resume
    code, _, err = _judge(db, server)
    assert code == 0, err
    assert f"{stored_before} answers from the cache, {N - stored_before} requests" in err
    for pair in kept:
        assert server.counts[pair] == 1  # no stored answer asked for again
    assert server.total == N + 1  # only the request the kill cut off is repeated
    assert _grades(db) == EXPECTED


# -- the parts, without the command ------------------------------------------------------

@pytest.mark.parametrize(("raw", "grade", "status"), [
    ("##final score: 2", 2, "ok"),
    ("M=2, T=1.\n## Final Score: 3\n", 3, "ok"),
    ("the form is ##final score: G ... ##final score: 1", 1, "ok"),  # the last one
    ("##final score 0", 0, "ok"),
    (" 3\n", 3, "ok"),
    ("2.", 2, "ok"),
    ("##final score: 4", None, "off_scale"),
    ("-1", None, "off_scale"),
    ("Relevant (3)", None, "unparsed"),   # a number somewhere is never taken as the grade
    ("2 or 3", None, "unparsed"),
    ("", None, "unparsed"),
    ("##final score: high", None, "unparsed"),
])
def test_answers_are_parsed_never_guessed(raw: str, grade: int | None, status: str) -> None:
    from relkit.judging.autojudge.prompt import parse

    a = parse(raw, {0, 1, 2, 3}, 10, 2)
    assert (a.raw, a.grade, a.status, a.tokens_in, a.tokens_out) == (raw, grade, status, 10, 2)


def test_the_progress_callback_ends_at_the_total(tmp_path: Path) -> None:
    """The bar is told done/total with the rate and the time left, any backend."""
    from relkit.judging.autojudge.backend import Answer, Request
    from relkit.judging.autojudge.cache import AnswerCache
    from relkit.judging.autojudge.runner import grade_all

    class Fixed:
        name = "fixed"

        def grade(self, request: Request) -> Answer:
            return Answer("1", 1, "ok", 3, 1)

    reqs = [Request("1", f"d{i}", "q", "", "", "t") for i in range(7)]
    calls: list[tuple[int, int, str]] = []
    with AnswerCache(tmp_path / "c.sqlite") as cache:
        cache.put("fixed", "1", "d0", Answer("0", 0, "ok"))
        rep = grade_all(Fixed(), reqs, cache, concurrency=2,
                        progress=lambda d, t, label: calls.append((d, t, label)))
    assert (rep.cached, rep.requests, rep.tokens_in, rep.tokens_out) == (1, 6, 18, 6)
    assert rep.answers[("1", "d0")].grade == 0  # the cache's answer, not asked again
    assert calls[0][:2] == (1, 7) and calls[-1][:2] == (7, 7)
    assert [d for d, _, _ in calls] == sorted(d for d, _, _ in calls)
    assert all("req/s, ETA " in label for _, _, label in calls)


def test_ctrl_c_keeps_the_answers_in_flight(db: str, chat_server: Any,
                                            tmp_path: Path) -> None:
    """A first Ctrl-C sends nothing more but stores what was paid for, then imports it."""
    server = chat_server(gate=4, gate_answers=True)
    cmd = [sys.executable, "-m", "relkit", "judges-run", "--db", db, "--endpoint",
           server.url, "--model", "m1", "--concurrency", "2"]
    proc = subprocess.Popen(cmd, env={**os.environ, "NO_COLOR": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert server.arrived.wait(120), "the gated request never came"
        proc.send_signal(signal.SIGINT)
        server.release()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "relkit: interrupted: " in err
    with sqlite3.connect(tmp_path / "p.answers.sqlite") as c:
        kept = {(t, d) for t, d in c.execute("SELECT topic, doc FROM answer")}
    assert kept == set(server.answered)  # every answer the server sent is stored
    assert 4 <= len(kept) < N
    assert _grades(db) == {p: EXPECTED[p] for p in kept}  # and imported


def test_both_backends_store_the_same_grades(db_url: str, chat_server: Any,
                                             tmp_path: Path) -> None:
    """SQLite and PostgreSQL: the pool read, the grades imported, a re-run importing
    nothing (the answers file sits in --cache for a PostgreSQL project)."""
    from store_helpers import make_project

    make_project(db_url).close()
    server = chat_server({("1", "d01"): [("text", "no idea")]})
    cache = str(tmp_path / "answers.sqlite")
    code, _, err = _judge(db_url, server, "--cache", cache)
    assert code == 0, err
    want = {p: g for p, g in EXPECTED.items() if p != ("1", "d01")}
    assert _grades(db_url) == want
    code, _, err = _judge(db_url, server, "--cache", cache)
    assert code == 0 and "no new grades to import" in err and server.total == N
    # `relkit judges --db` compares it with the humans like an imported judge.
    from relkit.judging.store.assign import Store

    store = Store.open(db_url)
    try:
        who = {t.key: n for n in ("ann", "bob") for t in store.assessor(n).topics()}
        for t, d in [("1", "d00"), ("1", "d01"), ("1", "d02"), ("007", "d05")]:
            store.assessor(who[t]).record(topic=t, doc=d, grade=grade_of(t, d))
    finally:
        store.close()
    code, out, err = run_cli(["judges", "--db", db_url, "--format", "tsv"])
    assert code == 0, err
    row = out.splitlines()[1].split("\t")
    assert row[:3] == ["m1", "3", "1.0000"]  # 3 pairs both graded, all alike


def test_the_docs_worked_example(chat_server: Any, tmp_path: Path) -> None:
    """docs/automatic-judges.md's example, on the sample project: its output verbatim."""
    from helpers import ROOT

    doc = (ROOT / "docs" / "automatic-judges.md").read_text()
    server = chat_server()  # unknown pairs: the toy rule, as `python tests/chat_server.py`
    db = str(tmp_path / "demo.db")
    assert run_cli(["demo", "--no-judge", "--db", db, "--quiet"])[0] == 0
    base = ["judges-run", "--db", db, "--endpoint", server.url, "--model", "toy"]
    code, _, err = run_cli([*base, "--price", "0.15,0.60"], cwd=tmp_path)
    assert code == 0 and err in doc, err
    code, _, err = run_cli([*base, "--answers", "answers.tsv"], cwd=tmp_path)
    assert code == 0 and err in doc, err
    head = "".join((tmp_path / "answers.tsv").read_text().splitlines(keepends=True)[:3])
    assert "$ head -3 answers.tsv\n" + head in doc
