"""What one browser may cost `relkit serve` (issue 33): the key meter and the seats, alone.

The server-level cases (a real `relkit serve`, real websockets) are in
tests/test_serve_abuse.py.
"""

from __future__ import annotations

import asyncio

from relkit.judging.serve import limits
from relkit.judging.serve.limits import Bucket, KeyMeter, Seat, Seats, count_keys


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_key_is_a_character_or_one_escape_sequence_or_one_paste() -> None:
    assert count_keys("abc") == 3
    assert count_keys("\x1b[A\x1b[B") == 2                       # two arrows
    assert count_keys("\x1b[<35;10;5M\x1b[<35;11;5M") == 2       # two mouse reports
    assert count_keys("\x1bOP") == 1                             # F1 (SS3)
    assert count_keys("\x1b[200~" + "x" * 5000 + "\x1b[201~") == 1   # one Paste event
    assert count_keys("\x1b") == 1                               # Escape alone


def test_the_bucket_gives_a_burst_then_its_rate() -> None:
    clock = Clock()
    b = Bucket(10, 5, clock)
    assert b.take(10) and not b.take(1)
    clock.t += 1.0
    assert b.take(5) and not b.take(1)
    clock.t += 100.0                        # refilled, never past the burst
    assert not b.take(11) and b.take(10)


def test_typing_a_held_key_and_a_mouse_sweep_pass_a_flood_does_not() -> None:
    clock = Clock()
    meter = KeyMeter(clock)
    # ten minutes of a person: 10 keys a second, a held arrow at 40 a second, and 120
    # mouse reports a second while the mouse moves (every second one)
    for second in range(600):
        for _ in range(10):
            assert meter.allow("3")
        for _ in range(40):
            assert meter.allow("\x1b[B")
        if second % 2:
            for i in range(120):
                assert meter.allow(f"\x1b[<35;{i % 80 + 1};12M")
        clock.t += 1.0
    assert meter.allow("\x1b[200~" + "note " * 3000 + "\x1b[201~")     # a long paste
    flood = KeyMeter(clock)
    sent = 0
    while flood.allow("1" * 100) and sent < 10**6:
        sent += 100
    assert sent == limits.KEY_BURST                    # then refused, at once
    bulk = KeyMeter(clock)                              # pastes: bounded by the bytes
    n = 0
    while bulk.allow("\x1b[200~" + "x" * 16000 + "\x1b[201~") and n < 1000:
        n += 1
    assert n == limits.BYTE_BURST // 16012


def test_seats_per_token_and_in_all() -> None:
    async def main() -> None:
        seats = Seats(per_token=2, total=3)
        a1, a2 = await seats.take("A", "ann"), await seats.take("A", "ann")
        assert isinstance(a1, Seat) and isinstance(a2, Seat)
        assert await seats.take("A", "ann") == (limits.SIGNED_IN_CODE,
                                                limits.SIGNED_IN_ELSEWHERE.format(n=2))
        assert isinstance(await seats.take("B", "bob"), Seat)
        assert await seats.take("C", "lee") == (limits.FULL_CODE, limits.FULL.format(n=3))
        seats.release(a1)
        assert isinstance(await seats.take("C", "lee"), Seat)

    asyncio.run(main())


def test_a_reload_waits_for_its_old_session_to_end_rather_than_being_refused() -> None:
    async def main() -> None:
        seats = Seats(per_token=1, total=5)
        old = await seats.take("A", "ann")
        assert isinstance(old, Seat)
        old.ending = True                    # the old tab's browser has gone
        asyncio.get_running_loop().call_later(0.05, seats.release, old)
        assert isinstance(await seats.take("A", "ann"), Seat)

    asyncio.run(main())


def test_every_reason_fits_a_websocket_close_frame_and_the_cli_defaults_are_these() -> None:
    for reason in (limits.TOO_FAST, limits.SIGNED_IN_ELSEWHERE.format(n=9999),
                   limits.FULL.format(n=99999), limits.STOPPING, limits.TOO_BIG):
        assert len(reason.encode()) <= 123, reason
    from relkit.judging.serve.cli import serve

    defaults = serve.__defaults__ or ()
    assert limits.TOTAL in [getattr(d, "default", None) for d in defaults]
    assert limits.PER_TOKEN in [getattr(d, "default", None) for d in defaults]
    assert limits.QUIT_GRACE < 2.0            # issue 33: a process ends within 2 s
