"""A real local HTTP server speaking OpenAI's chat-completions protocol, for the
``relkit judges-run`` tests: scripted grades and misbehaviour (malformed answers, 429
with Retry-After, 500, answers slower than the client's timeout, dropped connections).

It knows the pair a request is about from the prompt (the store_helpers project: the
query is a topic's title, the passage "Text of document N."), answers
``##final score: G`` with G = :func:`grade_of` unless a script says otherwise, and counts
every request per pair. Start it with the ``chat_server`` fixture, which always stops it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ports import POLL

TITLES = {"solar power": "1", "bond films": "007"}
_DOC = re.compile(r"Text of document (\d+)\.")
_QUERY = re.compile(r"(solar power|bond films)")


def grade_of(topic: str, doc: str) -> int:
    """The scripted grade of a pair: its document number mod 4 (topic 007: reversed)."""
    n = int(doc[1:]) % 4
    return 3 - n if topic == "007" else n


def overlap_grade(prompt: str) -> int:
    """A toy judge for any project (``python tests/chat_server.py``): the query's words
    (of 3+ letters) found in the passage, at most 3. Reads the default prompt's
    ``Query:`` and ``Passage:`` lines."""
    q = re.search(r"^Query: (.*)$", prompt, re.MULTILINE)
    p = re.search(r"^Passage: (.*)$", prompt, re.MULTILINE | re.DOTALL)
    if q is None or p is None:
        return 0
    words = {w for w in re.findall(r"[a-z]{3,}", q.group(1).lower())}
    text = set(re.findall(r"[a-z]{3,}", p.group(1).lower()))
    return min(3, len(words & text))


def pair_of(prompt: str) -> tuple[str, str]:
    d, q = _DOC.search(prompt), _QUERY.search(prompt)
    return (TITLES[q.group(1)] if q else "?"), (f"d{int(d.group(1)):02d}" if d else "?")


class ChatServer:
    """``script[(topic, doc)]``: actions for that pair's successive requests (then "ok"):
    ``"ok"``, ``("text", content)``, ``("status", code, headers)`` (or ``("status", code,
    headers, error_text)``), ``("slow", seconds)``, ``"drop"``, ``("json", raw_body)``,
    ``("raw", bytes)`` (written as the whole answer, then the connection is closed).
    ``key``: the bearer key required (401 otherwise).
    ``gate``: the request number (1-based) that waits for :meth:`release`, then answers
    nothing (its client was killed) or, with ``gate_answers``, answers as usual.
    """

    def __init__(self, script: dict[tuple[str, str], list[Any]] | None = None, *,
                 key: str | None = None, gate: int | None = None, gate_answers: bool = False,
                 port: int = 0) -> None:
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.key = key
        self.counts: Counter[tuple[str, str]] = Counter()
        self.total = 0
        self.prompts: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.usage_in = 0   # tokens reported in answers that were sent
        self.usage_out = 0
        self.answered: list[tuple[str, str]] = []  # pairs whose answer was sent
        self.gate = gate
        self.gate_answers = gate_answers
        self.arrived = threading.Event()   # the gated request has come
        self._open = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                server.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(POLL,),
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def release(self) -> None:
        self._open.set()

    def stop(self) -> None:
        self._open.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        pair = pair_of(prompt)
        with self._lock:
            self.total += 1
            number = self.total
            self.counts[pair] += 1
            self.prompts.append(prompt)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            todo = self.script.get(pair)
            action = todo.pop(0) if todo else "ok"
        try:
            if self.gate is not None and number == self.gate:
                self.arrived.set()
                self._open.wait(30)
                if self.gate_answers:  # then answered as usual (an interrupted client)
                    self.gate = None
                else:
                    return  # the client was killed meanwhile: nothing to answer
            if self.key is not None and h.headers.get("Authorization") != f"Bearer {self.key}":
                self._send(h, 401, {"error": {"message": "Incorrect API key provided"}})
                return
            if action == "drop":
                h.close_connection = True
                h.connection.close()
                return
            if isinstance(action, tuple) and action[0] == "status":
                said = action[3] if len(action) > 3 else "busy"
                self._send(h, action[1], {"error": {"message": said}}, action[2])
                return
            if isinstance(action, tuple) and action[0] == "raw":
                h.close_connection = True
                h.wfile.write(action[1])
                h.wfile.flush()
                h.connection.close()
                return
            if isinstance(action, tuple) and action[0] == "json":
                self._raw(h, 200, action[1].encode())
                return
            if isinstance(action, tuple) and action[0] == "slow":
                time.sleep(action[1])
            grade = grade_of(*pair) if "?" not in pair else overlap_grade(prompt)
            content = (action[1] if isinstance(action, tuple) and action[0] == "text"
                       else f"##final score: {grade}")
            t_in, t_out = len(prompt.split()), 5
            try:
                self._send(h, 200, {"id": f"c{number}", "object": "chat.completion",
                                    "model": body["model"],
                                    "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant",
                                                             "content": content}}],
                                    "usage": {"prompt_tokens": t_in, "completion_tokens": t_out,
                                              "total_tokens": t_in + t_out}})
            except OSError:
                return  # the client gave up (its timeout) before the answer came
            with self._lock:
                self.answered.append(pair)
                self.usage_in += t_in
                self.usage_out += t_out
        finally:
            with self._lock:
                self.in_flight -= 1

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, code: int, doc: object,
              headers: dict[str, str] | None = None) -> None:
        ChatServer._raw(h, code, json.dumps(doc).encode(), headers)

    @staticmethod
    def _raw(h: BaseHTTPRequestHandler, code: int, data: bytes,
             headers: dict[str, str] | None = None) -> None:
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()


def servers() -> Iterator[Any]:
    """The ``chat_server`` fixture's body: a factory; every server made is stopped."""
    made: list[ChatServer] = []

    def make(*args: Any, **kwargs: Any) -> ChatServer:
        s = ChatServer(*args, **kwargs)
        made.append(s)
        return s

    try:
        yield make
    finally:
        for s in made:
            s.stop()



if __name__ == "__main__":  # docs/automatic-judges.md's worked example: a local endpoint
    import sys

    server = ChatServer(port=int(sys.argv[1]) if len(sys.argv) > 1 else 8765)
    print(f"chat completions at {server.url} (Ctrl-C stops it)", flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        server.stop()
