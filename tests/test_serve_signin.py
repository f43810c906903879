"""`relkit serve`'s sign-in: the slow-down of failed attempts per address, signing out.

The slow-down is tested with a fake clock (:class:`Backoff`) and against a real server
with concurrent aiohttp sign-ins (no browser): the server's log says, per failure, how
long that attempt waited, so the tests read the order of events, not the clock.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from relkit.judging.serve.backoff import (
    FORGET_AFTER,
    FREE_FAILURES,
    KEEP,
    MAX_DELAY,
    QUEUE,
    Backoff,
    Busy,
)
from serve_helpers import served
from test_serve import project


def test_failures_are_forgotten_by_time_only_never_by_a_success() -> None:
    now = [0.0]
    b = Backoff(clock=lambda: now[0])
    waits = []
    for _ in range(FREE_FAILURES + 7):
        waits.append(b.delay("10.0.0.7"))
        b.failed("10.0.0.7")
    assert waits == [0.0] * FREE_FAILURES + [1.0, 2.0, 4.0, 8.0, 16.0, MAX_DELAY, MAX_DELAY]
    assert b.delay("10.0.0.8") == 0.0               # another address is not slowed
    assert not hasattr(b, "succeeded")              # a valid token erases nothing
    assert b.delay("10.0.0.7") == MAX_DELAY
    now[0] += FORGET_AFTER - 1                      # still remembered
    assert b.delay("10.0.0.7") == MAX_DELAY
    now[0] += 2                                     # a quarter of an hour after the last
    assert b.delay("10.0.0.7") == 0.0
    assert b.failed("10.0.0.7") == 1                # a fresh count

    # failures from many addresses: those past FORGET_AFTER are dropped, not kept forever
    from relkit.judging.serve import backoff

    for i in range(backoff.KEEP - 1):
        b.failed(f"10.1.{i // 256}.{i % 256}")
    now[0] += FORGET_AFTER + 1
    b.failed("10.0.0.9")
    assert set(b.failures) == {"10.0.0.9"}
    # ...and a stream of recent ones: never more than KEEP, the latest kept
    for i in range(3 * KEEP):
        now[0] += 0.001
        b.failed(f"10.2.{i // 256 // 256}.{i // 256 % 256}.{i % 256}")
    assert len(b.failures) <= KEEP and f"10.2.{(3 * KEEP - 1) // 256 // 256}." \
        f"{(3 * KEEP - 1) // 256 % 256}.{(3 * KEEP - 1) % 256}" in b.failures


def test_concurrent_attempts_from_one_address_take_turns_each_paying_its_wait() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s
        await asyncio.sleep(0)

    b = Backoff(clock=lambda: now[0], sleep=sleep)
    inside = [0]
    most = [0]

    async def attempt(address: str) -> float:
        async with b.turn(address) as waited:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            await asyncio.sleep(0)                   # the token check: other tasks run
            b.failed(address)
            inside[0] -= 1
            return waited

    async def main(n: int) -> list[float | str]:
        async def one() -> float | str:
            try:
                return await attempt("10.0.0.7")
            except Busy:
                return "busy"
        return list(await asyncio.gather(*(one() for _ in range(n))))

    # eight at once: QUEUE of them take turns, the others are refused at once
    got = asyncio.run(main(8))
    assert most[0] == 1                              # one at a time
    assert got == [0.0] * QUEUE + ["busy"] * (8 - QUEUE)
    got = asyncio.run(main(QUEUE))                   # the address has 3 failures now
    assert got == [1.0, 2.0, 4.0] and slept == [1.0, 2.0, 4.0]
    assert b._locks == {} and b._waiting == {}       # nothing kept per address after


def _sign_in_all(url: str, tokens: list[str]) -> list[int]:
    """POST each token to /signin at once (concurrently); the statuses, in order."""
    import aiohttp

    async def one(session: aiohttp.ClientSession, token: str) -> int:
        async with session.post(url + "/signin", data={"token": token},
                                allow_redirects=False) as resp:
            await resp.read()
            return resp.status

    async def main() -> list[int]:
        async with aiohttp.ClientSession() as session:
            return list(await asyncio.gather(*(one(session, t) for t in tokens)))

    return asyncio.run(main())


def _waits(log: str) -> list[tuple[int, float]]:
    return [(int(n), float(w)) for n, w in re.findall(
        r"\(failure (\d+) from this address, after waiting ([\d.]+) s\)", log)]


@pytest.mark.slow  # a real server; ~10 s of waiting by design
def test_parallel_wrong_sign_ins_are_served_one_after_another(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    wrong = toks["ann"][:-4] + "0000"
    with served(db, tmp_path) as server:
        for _ in range(FREE_FAILURES):
            assert _sign_in_all(server.url, [wrong]) == [403]
        # five at once: QUEUE take turns, the others are refused at once (429)
        got = _sign_in_all(server.url, [wrong] * (QUEUE + 2))
        log = server.log()
    assert sorted(got) == [403] * QUEUE + [429] * 2, got
    # one at a time: the fourth waited 1 s, the fifth 2, the sixth 4 (all at once, each
    # would have read a count of three failures and waited 1 s only)
    assert sorted(_waits(log)) == [(1, 0.0), (2, 0.0), (3, 0.0), (4, 1.0), (5, 2.0),
                                   (6, 4.0)], log
    assert log.count("attempts from this address are already waiting their turn") == 2


@pytest.mark.slow  # a real server
def test_a_valid_sign_in_does_not_erase_the_addresses_failures(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    wrong = toks["ann"][:-4] + "0000"
    with served(db, tmp_path) as server:
        for _ in range(2):
            # three wrong guesses, then one's own valid token, then guess again
            assert _sign_in_all(server.url, [wrong]) == [403]
            assert _sign_in_all(server.url, [wrong]) == [403]
            assert _sign_in_all(server.url, [wrong]) == [403]
            assert _sign_in_all(server.url, [toks["bob"]]) == [303]
        log = server.log()
    assert _waits(log) == [(1, 0.0), (2, 0.0), (3, 0.0), (4, 1.0), (5, 2.0), (6, 4.0)], log


@pytest.mark.slow  # a real Chromium
def test_the_sign_in_box_keeps_its_width_when_a_token_is_refused(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from serve_helpers import chrome

    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome((1280, 800))
        try:
            width = "return document.querySelector('form').getBoundingClientRect().width"
            browser.get(server.url)
            before = browser.execute_script(width)
            browser.find_element(By.ID, "token").send_keys("rk_nope")
            browser.find_element(By.ID, "signin").click()
            assert "not valid" in browser.find_element(By.ID, "error").text
            after = browser.execute_script(width)
            browser.set_window_size(420, 700)                   # a phone: it still fits
            narrow = browser.execute_script(width)
            inner = browser.execute_script("return window.innerWidth")
        finally:
            browser.quit()
    assert before == after, (before, after)
    assert narrow <= inner, (narrow, inner)
