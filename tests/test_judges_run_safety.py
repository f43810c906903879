"""``relkit judges-run``: secrets never shown or stored, answers keyed by what was asked,
odd answers costing one pair only. End to end against the real local chat server
(tests/chat_server.py), which scripts every misbehaviour and counts every request."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_server import ChatServer, grade_of, servers
from helpers import run_cli
from ports import refused_port
from store_helpers import POOL

N = len(POOL)  # 16 pooled pairs
EXPECTED = {(t, d): grade_of(t, d) for t, d in POOL}
KEY = "sk-" + "A" * 40
QUERY_SECRET = "QuerySecret-9876"


@pytest.fixture
def chat_server() -> Iterator[Any]:
    yield from servers()


@pytest.fixture
def db(tmp_path: Path) -> str:
    from store_helpers import make_project

    path = str(tmp_path / "p.db")
    make_project(path).close()
    return path


def _judge(db: str, endpoint: str, *more: str) -> tuple[int, str, str]:
    return run_cli(["judges-run", "--db", db, "--endpoint", endpoint, "--model", "m1",
                    "--backoff", "0", *more])


def _grades(db: str) -> dict[tuple[str, str], int]:
    from relkit.judging.store.assign import Store
    from relkit.judging.store.reports import export_qrels

    store = Store.open(db, readonly=True)
    try:
        if "m1" not in store.assessors():
            return {}
        return {(t, d): g for t, d, g in export_qrels(store, "assessor", assessor="m1",
                                                      unjudged=False)}
    finally:
        store.close()


def _leaks(text: str | bytes) -> list[str]:
    """The secrets (the key, any 8+ character start of it, the URL's query value and
    password) found in ``text``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    found = [KEY[:n] for n in range(8, len(KEY) + 1) if KEY[:n] in text][-1:]
    return found + [s for s in (QUERY_SECRET, "pw-secret") if s in text]


def _scale() -> list[tuple[int, str, str]]:
    return [(0, "no", ""), (1, "yes", ""), (2, "a", ""), (3, "b", "")]


# -- 1: the key is taken out before the server's text is cut ------------------------------

def test_a_key_straddling_the_cut_is_never_shown() -> None:
    from relkit.judging.autojudge.chat import ChatBackend
    from relkit.judging.autojudge.prompt import Template

    b = ChatBackend("http://127.0.0.1:9/v1", "m", Template.read(None), _scale(),
                    api_key=KEY)
    for pad in range(140, 200, 3):  # the key starting before, at and after the cut
        said = b._clean("error: " + "x" * pad + " Incorrect API key provided: " + KEY)
        assert _leaks(said) == [], (pad, said)
        assert len(said) <= 200
    # A server quoting only a start of the key, cut at 200: that start is taken out too.
    said = b._clean("x" * 190 + " " + KEY[:20])
    assert _leaks(said) == [], said


# -- 2: one endpoint, one key; userinfo refused; the query never shown --------------------

def test_one_endpoint_spelled_three_ways_is_asked_once(db: str, chat_server: Any) -> None:
    server = chat_server()
    assert _judge(db, server.url)[0] == 0
    for spelling in (server.url + "/", server.url + "/chat/completions",
                     server.url.replace("http://", "HTTP://") + "/chat/completions/"):
        code, _, err = _judge(db, spelling)
        assert code == 0, err
        assert f"{N} answers from the cache, 0 requests" in err, (spelling, err)
    assert server.total == N


def test_userinfo_in_the_endpoint_is_refused_without_showing_it(db: str,
                                                                chat_server: Any) -> None:
    server = chat_server()
    url = server.url.replace("http://", "http://user:pw-secret@")
    code, out, err = _judge(db, url)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--endpoint" in err and "--key-env" in err
    assert _leaks(err) == [], err
    assert server.total == 0


def test_the_query_is_sent_never_shown_nor_stored(db: str, chat_server: Any,
                                                  tmp_path: Path) -> None:
    server = chat_server({("1", "d04"): [("status", 500, {})] * 3})
    url = server.url + "?api-key=" + QUERY_SECRET
    code, out, err = _judge(db, url, "--retries", "1")
    assert code == 1
    assert server.counts[("1", "d04")] == 2
    line = next(x for x in err.splitlines() if "d04" in x)
    assert line == (f"relkit: error: {server.url}?***: topic '1' document 'd04': no answer "
                    "after 2 attempts (HTTP 500)")
    assert _leaks(out + err) == []
    assert _leaks((tmp_path / "p.answers.sqlite").read_bytes()) == []


# -- 3: an odd answer costs its pair only; the answers in flight are stored ---------------

def _completion(content: str, usage: object) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                       "usage": usage})


def test_odd_token_counts_and_malformed_http_cost_one_pair(db: str, chat_server: Any,
                                                           tmp_path: Path) -> None:
    server = chat_server({
        ("1", "d01"): [("json", _completion("##final score: 1",
                                            {"prompt_tokens": "n/a",
                                             "completion_tokens": 2.5}))],
        ("1", "d02"): [("json", _completion("##final score: 2", [1, 2]))],
        ("1", "d03"): [("raw", b"NOT HTTP AT ALL\r\n\r\n")],
        ("007", "d05"): [("raw", b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n")] * 9,
    })
    code, out, err = _judge(db, server.url, "--retries", "2", "--concurrency", "3",
                            "--answers", str(tmp_path / "a.tsv"))
    assert code == 1, err
    assert "Traceback" not in err
    assert server.counts[("1", "d03")] == 2       # a malformed answer is asked again
    assert server.counts[("007", "d05")] == 3     # three times, then given up
    assert (f"relkit: error: {server.url}: topic '007' document 'd05': no answer after 3 "
            "attempts (a malformed HTTP answer: LineTooLong)") in err.splitlines()
    assert set(EXPECTED) - set(_grades(db)) == {("007", "d05")}
    rows = {tuple(r.split("\t")[:2]): r.split("\t") for r in
            (tmp_path / "a.tsv").read_text().splitlines()[1:]}
    assert rows[("1", "d01")][2:6] == ["ok", "1", "0", "0"]  # odd counts count as 0
    assert rows[("1", "d02")][2:6] == ["ok", "2", "0", "0"]


def test_an_unexpected_error_fails_its_pair_and_keeps_the_others(tmp_path: Path) -> None:
    from relkit.judging.autojudge.backend import Answer, Request
    from relkit.judging.autojudge.cache import AnswerCache
    from relkit.judging.autojudge.runner import grade_all

    class Buggy:
        name = "buggy"

        def grade(self, request: Request) -> Answer:
            if request.doc == "d3":
                raise ValueError("invalid literal for int() with base 10: 'n/a'")
            return Answer("1", 1, "ok", 3, 1)

    reqs = [Request("1", f"d{i}", "q", "", "", "t") for i in range(8)]
    with AnswerCache(tmp_path / "c.sqlite") as cache:
        rep = grade_all(Buggy(), reqs, cache, concurrency=3)
        assert cache.count() == 7  # every other answer, in flight or not, is stored
    assert rep.requests == 7 and rep.fatal is None
    assert rep.failed == [(("1", "d3"), "topic '1' document 'd3': ValueError: invalid "
                                        "literal for int() with base 10: 'n/a'")]


# -- 4: the stored answer is the one to the prompt sent now -------------------------------

def test_a_changed_prompt_or_max_tokens_asks_again(db: str, chat_server: Any) -> None:
    server = chat_server({("1", "d01"): [("text", "##final")]})  # cut off by --max-tokens
    code, _, err = _judge(db, server.url, "--max-tokens", "2")
    assert code == 0, err
    assert "1/d01 (unparsed)" in err
    code, _, err = _judge(db, server.url)  # another --max-tokens: asked again
    assert code == 0, err
    assert server.total == 2 * N
    assert _grades(db) == EXPECTED
    with sqlite3.connect(db) as c:  # the same ids, another text
        c.execute("UPDATE document SET text = 'Text of document 5. Now longer.' "
                  "WHERE key = 'd05'")
    code, _, err = _judge(db, server.url)
    assert code == 0, err
    assert f"{N - 2} answers from the cache, 2 requests" in err
    assert server.counts[("1", "d05")] == server.counts[("007", "d05")] == 3
    assert _judge(db, server.url)[0] == 0 and server.total == 2 * N + 2


# -- the class: no message and no file of judges-run holds a secret -----------------------

ECHO = f"Incorrect API key provided: {KEY}; url /v1/chat/completions?api-key={QUERY_SECRET}"
SCRIPTS: dict[str, list[Any]] = {
    "401": [("status", 401, {}, ECHO)],
    "403": [("status", 403, {}, "x" * 170 + " " + ECHO)],
    "400": [("status", 400, {}, "y" * 185 + " " + KEY)],
    "404": [("status", 404, {}, ECHO)],
    "500": [("status", 500, {}, ECHO)] * 3,
    "429": [("status", 429, {"Retry-After": "0"}, ECHO)] * 3,
    "drop": ["drop"] * 3,
    "slow": [("slow", 2.0)] * 3,
    "not-json": [("json", ECHO)],
    "not-a-completion": [("json", json.dumps({"error": ECHO, KEY: 1}))],
    "content-not-text": [("json", json.dumps({"choices": [{"message": {"content": [KEY]}}]}))],
    "odd-usage": [("json", _completion("##final score: 1", {"prompt_tokens": KEY}))],
    "bad-status-line": [("raw", (ECHO + "\r\n\r\n").encode())] * 3,
    "long-header": [("raw", b"HTTP/1.1 200 OK\r\nX: " + ECHO.encode() * 800 + b"\r\n\r\n")] * 3,
}


@pytest.mark.parametrize("case", [*SCRIPTS, "unreachable"])
def test_no_message_or_file_ever_holds_a_secret(case: str, db: str, chat_server: Any,
                                                tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_TEST_KEY", KEY)
    answers = tmp_path / "a.tsv"
    with contextlib.ExitStack() as held:
        if case == "unreachable":
            base = f"http://127.0.0.1:{held.enter_context(refused_port())}/v1"
        else:
            server: ChatServer = chat_server({("1", "d02"): SCRIPTS[case]})
            base = server.url
        code, out, err = _judge(db, f"{base}?api-key={QUERY_SECRET}", "--key-env",
                                "RELKIT_TEST_KEY", "--retries", "2", "--timeout", "0.5",
                                "--concurrency", "1", "--answers", str(answers))
    assert code in (0, 1), err
    assert "Traceback" not in err and err.strip(), err
    assert _leaks(out + err) == [], err
    for f in tmp_path.iterdir():  # the answers file (and its journal), --answers, the db
        if f.is_file():
            assert _leaks(f.read_bytes()) == [], f
