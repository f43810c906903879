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
    Failures,
)
from relkit.judging.store.tokens import issue
from serve_helpers import served, wait_until
from store_helpers import make_project
from test_serve import project


def test_failures_are_forgotten_by_time_only_never_by_a_success() -> None:
    now = [0.0]
    b = Failures(clock=lambda: now[0])
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


def test_an_address_and_a_token_are_counted_apart() -> None:
    b = Backoff(clock=lambda: 0.0)
    for i in range(FREE_FAILURES):                  # one token, guessed from 3 addresses
        assert b.failed(f"10.0.0.{i}", "k1") == (1, i + 1)
    assert b.delay("10.0.0.9", "k1") == 1.0         # the token is slowed, from anywhere
    assert b.delay("10.0.0.0", "k2") == 0.0         # not the addresses, nor another token
    assert b.delay("10.0.0.0") == 0.0
    for _ in range(FREE_FAILURES):                  # unknown keys: the address counts
        b.failed("10.0.0.5")
    assert b.delay("10.0.0.5", "k2") == 1.0 and b.delay("10.0.0.6", "k2") == 0.0
    assert b.delay("10.0.0.5", "k1") == 1.0         # both slowed: the longer wait


class _Attempts:
    """Concurrent attempts through one :class:`Backoff` with a fake clock: each records
    how long it waited for its delay (or "busy"), and how many were checked at once."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []
        self.inside = self.most = 0
        self.b = Backoff(clock=lambda: self.now, sleep=self.sleep)

    async def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s
        await asyncio.sleep(0)

    async def one(self, address: str, token: str | None, valid: bool) -> float | str:
        try:
            async with self.b.turn(address, token) as waited:
                self.inside += 1
                self.most = max(self.most, self.inside)
                await asyncio.sleep(0)               # the token check: other tasks run
                await asyncio.sleep(0)
                if not valid:
                    self.b.failed(address, token)
                self.inside -= 1
                return waited
        except Busy as exc:
            return f"busy {exc.what}"

    def run(self, *attempts: tuple[str, str | None, bool]) -> list[float | str]:
        async def main() -> list[float | str]:
            return list(await asyncio.gather(*(self.one(*a) for a in attempts)))

        self.inside = self.most = 0
        got = asyncio.run(main())
        assert self.b._lines == {}                   # nothing kept per address after
        return got


def test_eight_valid_attempts_at_once_all_go_three_at_a_time() -> None:
    t = _Attempts()
    got = t.run(*[("10.0.0.7", f"k{i}", True) for i in range(8)])
    assert got == [0.0] * 8 and t.most == FREE_FAILURES and t.slept == []
    # and the same token eight times at once (eight tabs of one person)
    assert t.run(*[("10.0.0.7", "k1", True)] * 8) == [0.0] * 8


def test_wrong_attempts_at_once_from_one_address_are_slowed_one_after_another() -> None:
    t = _Attempts()
    # eight at once: three are checked together (they may all fail for free); once they
    # have failed the others are checked one at a time, each after its own wait, and at
    # most QUEUE are in line: the others are refused at once
    got = t.run(*[("10.0.0.7", f"k{i}", False) for i in range(8)])
    assert got == [0.0] * FREE_FAILURES + [1.0, 2.0, 4.0] + ["busy address"] * 2, got
    assert t.slept == [1.0, 2.0, 4.0]
    got = t.run(*[("10.0.0.7", "k9", True)] * QUEUE)   # the address has six failures now
    assert got == [8.0, 8.0, 8.0] and t.most == 1      # valid ones wait too, in turn
    # another address is not slowed
    assert t.run(*[("10.0.0.8", f"k{i}", True) for i in range(8)]) == [0.0] * 8


def test_wrong_attempts_at_one_token_from_many_addresses_are_slowed() -> None:
    t = _Attempts()
    got = t.run(*[(f"10.0.0.{i}", "k1", False) for i in range(8)])
    assert got == [0.0] * FREE_FAILURES + [1.0, 2.0, 4.0] + ["busy token"] * 2, got
    assert t.most == FREE_FAILURES
    # those addresses are not slowed for other tokens: eight valid ones at once go
    assert t.run(*[(f"10.0.0.{i}", f"k{i + 2}", True) for i in range(8)]) == [0.0] * 8


def _sign_in_all(url: str, tokens: list[str], source: str = "127.0.0.1") -> list[int]:
    """POST each token to /signin at once (concurrently) from address ``source``; the
    statuses, in order."""
    return _sign_in_from(url, [(t, source) for t in tokens])


def _sign_in_from(url: str, attempts: list[tuple[str, str]]) -> list[int]:
    """POST each (token, source address) to /signin at once (any address of 127.0.0.0/8
    reaches the server, which sees that address); the statuses, in order."""
    import aiohttp

    async def one(token: str, source: str) -> int:
        connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session, session.post(
                url + "/signin", data={"token": token}, allow_redirects=False) as resp:
            await resp.read()
            return resp.status

    async def main() -> list[int]:
        return list(await asyncio.gather(*(one(t, a) for t, a in attempts)))

    return asyncio.run(main())


def _waits(log: str) -> list[tuple[int, float]]:
    return [(int(n), float(w)) for n, w in re.findall(
        r"\(failure (\d+) from this address, after waiting ([\d.]+) s\)", log)]


UNKNOWN = "rk_" + "0" * 12 + "_" + "0" * 40   # well-formed, a key no token has


@pytest.mark.slow  # a real server; ~10 s of waiting by design
def test_parallel_wrong_sign_ins_are_served_one_after_another(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    wrong = UNKNOWN                                  # counted at the address
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
    assert log.count(f"{QUEUE} attempts from this address are already in line") == 2


@pytest.mark.slow  # a real server; ~7 s of waiting by design
def test_guesses_at_one_token_from_many_addresses_are_slowed_at_that_token(
        tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    wrong = toks["ann"][:-4] + "0000"                # ann's public key, a wrong secret
    with served(db, tmp_path) as server:
        for i in range(FREE_FAILURES):               # one guess from each of 3 addresses
            assert _sign_in_all(server.url, [wrong], f"127.0.0.{2 + i}") == [403]
        # four at once from four more: in line at ann's token, one refused (429); and
        # bob, from an address that guessed: his token and that address are not slowed
        got = _sign_in_from(server.url, [(wrong, f"127.0.1.{i}") for i in range(QUEUE + 1)]
                            + [(toks["bob"], "127.0.0.2")])
        log = server.log()
    assert sorted(got[:-1]) == [403] * QUEUE + [429] and got[-1] == 303, got
    waits = [(int(t), float(w)) for t, w in re.findall(
        r"a token of ann \(failure (\d+) at this token, after waiting ([\d.]+) s\)", log)]
    # counted at the token only (its key is known); its fourth to sixth waited 1, 2, 4 s
    assert sorted(waits) == [(1, 0.0), (2, 0.0), (3, 0.0), (4, 1.0), (5, 2.0), (6, 4.0)], log
    assert log.count(f"{QUEUE} attempts at this token are already in line") == 1, log
    assert "bob (assessor) signed in from 127.0.0.2" in log


@pytest.mark.slow  # a real server
def test_a_valid_sign_in_does_not_erase_the_addresses_failures(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    wrong = UNKNOWN
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
            # the answer is a new page: wait for it (a loaded machine is slow to load it)
            error = wait_until(lambda: browser.find_elements(By.ID, "error"),
                               "the refusal's page", 30)[0]
            assert "not valid" in error.text
            after = browser.execute_script(width)
            browser.set_window_size(420, 700)                   # a phone: it still fits
            narrow = browser.execute_script(width)
            inner = browser.execute_script("return window.innerWidth")
        finally:
            browser.quit()
    assert before == after, (before, after)
    assert narrow <= inner, (narrow, inner)


@pytest.mark.slow  # a real server
def test_eight_valid_sign_ins_at_once_from_one_address_all_get_in(tmp_path: Path) -> None:
    # behind a reverse proxy everyone signs in from the proxy's address
    people = tuple(f"p{i}" for i in range(8))
    db = str(tmp_path / "p.db")
    store = make_project(db, assessors=people)
    toks = [issue(store, n) for n in people]
    store.close()
    with served(db, tmp_path) as server:
        got = _sign_in_all(server.url, toks)
        log = server.log()
    assert got == [303] * 8, (got, log)
    assert sorted(re.findall(r"(p\d) \(assessor\) signed in from 127.0.0.1", log)) == \
        sorted(people), log


@pytest.mark.slow  # a real server
def test_failures_at_a_known_token_do_not_hold_up_the_proxys_other_sign_ins(
        tmp_path: Path) -> None:
    """Review of issue 33: behind a proxy every browser has one address; a stale cookie
    (its token revoked) failing on each page load slowed every valid sign-in after it,
    and more than three at once got 429. A key the database knows is held up only at
    its own token; and the 429 says which line refused it."""
    import aiohttp

    people = tuple(f"p{i}" for i in range(8))
    db = str(tmp_path / "p.db")
    store = make_project(db, assessors=people)
    toks = [issue(store, n) for n in people]
    stale = toks[0]
    toks[0] = issue(store, people[0])              # p0's old token revoked
    store.close()
    with served(db, tmp_path) as server:
        for _ in range(FREE_FAILURES):             # the stale cookie, three page loads
            assert _sign_in_all(server.url, [stale]) == [403]
        assert _sign_in_all(server.url, toks) == [303] * 8
        log = server.log()

        async def first_refusal() -> tuple[int, str]:
            # QUEUE + 1 at once with the stale token: the last is refused at once
            async def one() -> tuple[int, str]:
                async with aiohttp.ClientSession() as s, s.post(
                        server.url + "/signin", data={"token": stale}) as resp:
                    return resp.status, await resp.text()

            tasks = [asyncio.create_task(one()) for _ in range(QUEUE + 1)]
            for done in asyncio.as_completed(tasks):
                got = await done
                if got[0] == 429:
                    break
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return got

        status, body = asyncio.run(first_refusal())
    assert sorted(re.findall(r"(p\d) \(assessor\) signed in from 127.0.0.1", log)) == \
        sorted(people), log
    assert "after waiting 1 s" not in log and "in line" not in log, log
    assert status == 429 and "with this token" in body and "your address" not in body, body
