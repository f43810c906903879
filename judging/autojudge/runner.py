"""Grading many pairs: cache first, then the backend with bounded concurrency and budgets.

At most ``concurrency`` requests are in flight; each answer is stored in the
:class:`~relkit.judging.autojudge.cache.AnswerCache` by the calling thread as soon as it
arrives, before another request is sent. A budget (``max_requests``, ``max_cost``) stops
the sending of new requests; the ones in flight (at most ``concurrency - 1`` past the
cost budget, none past the request budget) finish and are stored. A fatal backend error
and a first Ctrl-C (``KeyboardInterrupt``) stop the same way; a second Ctrl-C stops
waiting. Any other error a backend raises (a bug, an answer nobody foresaw) fails that
pair only: the run goes on and every answer received is stored.

An answer's key in the cache is the backend's ``cache_key(request)`` when it has one
(the chat backend's: the endpoint, the model and a hash of the request it sends), else
its ``name``.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from relkit.judging.autojudge.backend import Answer, Backend, BackendError, Request
from relkit.judging.autojudge.cache import AnswerCache

Pair = tuple[str, str]
Progress = Callable[[int, int, str], None]  # (done, total, label with rate and ETA)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens in (prompt) and out (completion)."""

    tokens_in: float
    tokens_out: float

    def cost(self, t_in: int, t_out: int) -> float:
        return (t_in * self.tokens_in + t_out * self.tokens_out) / 1e6


@dataclass
class RunReport:
    """What a run did: answers by pair (stored ones and new ones), what was paid for."""

    answers: dict[Pair, Answer] = field(default_factory=dict)
    cached: int = 0          # answers found in the cache: not asked again
    requests: int = 0        # answers received now (each paid for, each stored)
    tokens_in: int = 0       # of the requests sent now
    tokens_out: int = 0
    cost: float | None = None
    stopped: str | None = None   # "max-requests", "max-cost" or "interrupted": pairs left
    failed: list[tuple[Pair, str]] = field(default_factory=list)  # no answer (not stored)
    fatal: str | None = None
    left: int = 0            # pairs not asked (a budget, an interrupt or a fatal error)


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def grade_all(backend: Backend, requests: Sequence[Request], cache: AnswerCache, *,
              concurrency: int = 4, max_requests: int | None = None,
              max_cost: float | None = None, price: Price | None = None,
              progress: Progress | None = None,
              per_request: Callable[[Request, Answer], None] | None = None) -> RunReport:
    """Answers for ``requests``: the cache's, then the backend's (see the module docstring).

    ``per_request(request, answer)`` is called for each new answer (its token counts).
    """
    rep = RunReport(cost=0.0 if price is not None else None)
    key_of: Callable[[Request], str] | None = getattr(backend, "cache_key", None)
    keys = {(r.topic, r.doc): key_of(r) if key_of is not None else backend.name
            for r in requests}
    rep.answers = cache.get_keyed((k, t, d) for (t, d), k in keys.items())
    rep.cached = len(rep.answers)
    todo = [r for r in requests if (r.topic, r.doc) not in rep.answers]
    total = len(requests)
    start = time.monotonic()

    def tick() -> None:
        if progress is None:
            return
        done = rep.cached + rep.requests + len(rep.failed)
        elapsed = time.monotonic() - start
        rate = rep.requests / elapsed if elapsed > 0 else 0.0
        eta = _clock((total - done) / rate) if rate > 0 else "-:--:--"
        progress(done, total, f"judging ({rate:.1f} req/s, ETA {eta})")

    def budget_left() -> str | None:
        if max_requests is not None and rep.requests + len(running) >= max_requests:
            return "max-requests"
        if max_cost is not None and price is not None and (rep.cost or 0.0) >= max_cost:
            return "max-cost"
        return None

    def take(fut: Future[Answer]) -> None:
        r = running.pop(fut)
        try:
            a = fut.result()
        except BackendError as exc:
            if exc.fatal:
                rep.fatal = rep.fatal or str(exc)
                queue.append(r)
            else:
                rep.failed.append(((r.topic, r.doc), str(exc)))
            return
        except Exception as exc:  # one pair's failure, never the run's
            rep.failed.append(((r.topic, r.doc), f"topic {r.topic!r} document {r.doc!r}: "
                               f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"))
            return
        cache.put(keys[(r.topic, r.doc)], r.topic, r.doc, a)  # stored before anything else
        rep.answers[(r.topic, r.doc)] = a
        rep.requests += 1
        rep.tokens_in += a.tokens_in
        rep.tokens_out += a.tokens_out
        if price is not None:
            rep.cost = price.cost(rep.tokens_in, rep.tokens_out)
        if per_request is not None:
            per_request(r, a)

    tick()
    queue = list(reversed(todo))
    running: dict[Future[Answer], Request] = {}
    with _FirstCtrlC() as interrupted, \
            ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        while queue or running:
            if interrupted:
                rep.stopped = "interrupted"
            while (queue and len(running) < concurrency and rep.fatal is None
                   and rep.stopped != "interrupted"):
                why = budget_left()
                if why is not None:
                    rep.stopped = why
                    break
                r = queue.pop()
                running[pool.submit(backend.grade, r)] = r
            if not running:
                break
            # A timeout, to notice a Ctrl-C while every request is slow.
            finished, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
            for fut in finished:
                take(fut)
            tick()
    rep.left = len(queue)
    return rep


class _FirstCtrlC:
    """While it is entered (in the main thread), a first SIGINT only sets a flag (read
    as the object's truth) and a second raises ``KeyboardInterrupt`` as usual: an answer
    is never cut off between its arrival and its storage."""

    def __init__(self) -> None:
        self.hit = False
        self._old: Any = None

    def __bool__(self) -> bool:
        return self.hit

    def _handler(self, signum: int, frame: Any) -> None:
        if self.hit:
            raise KeyboardInterrupt
        self.hit = True

    def __enter__(self) -> _FirstCtrlC:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *_: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
