"""What one browser may cost `relkit serve` (issue 33): the key meter and the seats, alone.

The server-level cases (a real `relkit serve`, real websockets) are in
tests/test_serve_abuse.py.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from aiohttp import WSMessage, WSMsgType

from relkit.judging.serve import limits, warm
from relkit.judging.serve.keys import KeyCounter
from relkit.judging.serve.limits import Bucket, KeyMeter, Resizer, Seat, Seats
from relkit.judging.serve.sessions import SessionLimits


def count_keys(*messages: str) -> int:
    """The keys the meter charges for ``messages``, one session's input in turn."""
    counter = KeyCounter()
    got = [counter.feed(m) for m in messages]
    assert None not in got
    return sum(g or 0 for g in got)


def textual_events(*messages: str) -> int:
    """The oracle: how many events Textual's own parser makes of ``messages`` (then
    the end of input, which flushes a sequence it was still reading)."""
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    return sum(len(list(parser.feed(m))) for m in (*messages, ""))


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_key_is_a_character_or_one_escape_sequence_or_one_paste() -> None:
    assert count_keys("abc") == 3
    assert count_keys("\x1b[1;5C") == 1                          # ctrl+right
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


def allow(meter: KeyMeter, counter: KeyCounter, keys: str) -> bool:
    """As the server charges one stdin message."""
    raw = json.dumps(["stdin", keys])
    got = counter.feed(keys)
    return got is not None and meter.allow(len(raw.encode()), got)


def test_typing_a_held_key_and_a_mouse_sweep_pass_a_flood_does_not() -> None:
    clock = Clock()
    meter, counter = KeyMeter(clock), KeyCounter()
    # ten minutes of a person: 10 keys a second, a held arrow at 40 a second, and 120
    # mouse reports a second while the mouse moves (every second one)
    for second in range(600):
        for _ in range(10):
            assert allow(meter, counter, "3")
        for _ in range(40):
            assert allow(meter, counter, "\x1b[B")
        if second % 2:
            for i in range(120):
                assert allow(meter, counter, f"\x1b[<35;{i % 80 + 1};12M")
        clock.t += 1.0
    assert allow(meter, counter, "\x1b[200~" + "note " * 3000 + "\x1b[201~")   # a long paste
    flood, counter = KeyMeter(clock), KeyCounter()
    sent = 0
    while allow(flood, counter, "1" * 100) and sent < 10**6:
        sent += 100
    assert sent == limits.KEY_BURST                    # then refused, at once
    bulk, counter = KeyMeter(clock), KeyCounter()      # pastes: bounded by the bytes
    n = 0
    while allow(bulk, counter, "\x1b[200~" + "x" * 16000 + "\x1b[201~") and n < 1000:
        n += 1
    assert n == limits.BYTE_BURST // len(json.dumps(["stdin", "\x1b[200~" + "x" * 16000
                                                      + "\x1b[201~"]))


# What the review found: counted 1 key each, 16,003 and 12,540 events in the app.
LONG_CSI = "\x1b[" + "1" * 16000 + "A"
ESC_PASTE = "\x1b[200~" + ("\x1b" + "y" * 40) * 340 + "\x1b[201~"


def test_the_meter_counts_at_least_the_events_textual_makes_of_the_keys() -> None:
    """Textual's parser is the oracle: whatever the page sends, however it is cut
    into messages, the meter charges at least as many keys as the app gets events."""
    for attack in (LONG_CSI, ESC_PASTE):
        assert count_keys(attack) >= textual_events(attack) > 10_000
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    cases: list[tuple[str, ...]] = [(k,) for k in ANSI_SEQUENCES_KEYS]
    cases += [(k + "x", k) for k in ANSI_SEQUENCES_KEYS]
    cases += [("\x1b[200~" + k + "\x1b[201~",) for k in ANSI_SEQUENCES_KEYS]
    # and random input from the pieces escape sequences are made of, cut anywhere (the
    # parser's state goes on from one message to the next: a paste's start split in two)
    pieces = ["\x1b", "[", "<", "1", "2", "0", "~", ";", "A", "M", "m", "x", "O", "u",
              "I", "P", "R", "t", "4", "8", "\x1b[200~", "\x1b[201~", "\x1b[<35;10;5M",
              "\x1b[A", "\x1b[1;5C", "\x1bO", "\x1b[48;"]
    rng = random.Random(33)
    for _ in range(1500):
        s = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 120)))
        cuts = sorted(rng.sample(range(1, len(s)), min(len(s) - 1, rng.randint(0, 6))))
        cases.append(tuple(s[a:b] for a, b in zip([0, *cuts], [*cuts, len(s)], strict=True)))
    for messages in cases:
        counter = KeyCounter()
        got = [counter.feed(m) for m in messages]
        if None in got:              # refused (an in-band resize): nothing reaches the app
            continue
        assert sum(g or 0 for g in got) >= textual_events(*messages), messages
    # a paste's start split over two messages still makes it a paste
    assert count_keys("\x1b[20", "0~" + "\x1b" + "y" * 40) >= textual_events(
        "\x1b[20", "0~" + "\x1b" + "y" * 40) == 33


def test_an_in_band_resize_in_the_keys_is_refused() -> None:
    """ESC [ 48 ; rows ; columns ; ... t resizes Textual's screen from the keys: no
    browser sends it, and it would pass the limits on resize messages."""
    assert KeyCounter().feed("\x1b[48;20000;20000;1;1t") is None
    split = KeyCounter()
    assert split.feed("ab\x1b[48;200") is not None
    assert split.feed("00;20000;1;1t") is None
    assert KeyCounter().feed("\x1b[200~\x1b[48;9999;9999;1;1t\x1b[201~") is None


def test_the_counter_looks_at_each_character_a_bounded_number_of_times() -> None:
    """Linear whatever the input: the paste regular expression it replaces took
    0.37 s of the shared event loop on 2,005 paste starts (14 KB) with no end."""
    for unit in ("\x1b[200~", "\x1b[201~", "\x1b[", "\x1b", "\x1b[<1;1;1", "x\x1b[200~x"):
        for n in (100, 1000, 2005):
            counter = KeyCounter()
            data = unit * n
            counter.feed(data)
            assert counter.scanned <= 2 * len(data) + 2 * limits_max(), (unit, n)
    counter = KeyCounter()
    assert counter.feed("\x1b[200~" * 2005) > limits.KEY_BURST and counter.paste


def limits_max() -> int:
    from relkit.judging.serve.keys import MAX_SEQUENCE

    return MAX_SEQUENCE + 1


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
                   limits.FULL.format(n=99999), limits.STOPPING, limits.TOO_BIG,
                   limits.TOO_MANY_STARTS, limits.BINARY):
        assert len(reason.encode()) <= 123, reason
    from relkit.judging.serve.cli import serve

    defaults = serve.__defaults__ or ()
    assert limits.TOTAL in [getattr(d, "default", None) for d in defaults]
    assert limits.PER_TOKEN in [getattr(d, "default", None) for d in defaults]
    assert limits.QUIT_GRACE < 2.0            # issue 33: a process ends within 2 s


# -- the server's side (judging/serve/sessions.py), with a websocket and an app faked --
def text(*envelope: Any) -> WSMessage:
    return WSMessage(WSMsgType.TEXT, json.dumps(list(envelope)), None)


class Socket:
    """A websocket whose browser never answers a close (aiohttp would wait 10 s)."""

    def __init__(self, *frames: WSMessage, answers: bool = False) -> None:
        self.frames, self.closes, self.sent = list(frames), [], []  # type: ignore[var-annotated]
        self.answers = answers

    def __aiter__(self) -> Socket:
        return self

    async def __anext__(self) -> WSMessage:
        if not self.frames:
            raise StopAsyncIteration
        return self.frames.pop(0)

    async def close(self, code: int = 1000, message: bytes = b"") -> None:
        self.closes.append((code, message.decode()))
        if not self.answers:
            await asyncio.Event().wait()

    async def send_json(self, data: Any) -> None:
        self.sent.append(data)


class App:
    name, why = "ann", ""

    def __init__(self) -> None:
        self.keys: list[bytes] = []
        self.sizes: list[tuple[int, int]] = []

    async def send_bytes(self, data: bytes) -> bool:
        self.keys.append(data)
        return True

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.sizes.append((width, height))


class Limits(SessionLimits):
    sessions: dict[Any, tuple[str, str]] = {}

    async def _close(self, websocket: Any, name: str, code: int = 4001,
                     reason: str = "") -> None:
        await websocket.close(code=code, message=reason.encode())


def relayed(*frames: WSMessage, limits_: Limits | None = None) -> tuple[Socket, App]:
    """The server's loop over ``frames``; it must return without waiting for the
    browser's answer to a close (a guard, not a timing: it never comes)."""
    socket, app = Socket(*frames), App()

    async def main() -> None:
        server = limits_ or Limits(2, 32)
        await asyncio.wait_for(server.relay(socket, app, "K"), 30)  # type: ignore[arg-type]
        await asyncio.sleep(0)                       # (the close, scheduled, begins)

    asyncio.run(main())
    return socket, app


def test_too_fast_stops_at_once_without_waiting_for_the_browsers_answer() -> None:
    socket, app = relayed(*[text("stdin", "1" * 100) for _ in range(30)])
    assert socket.closes == [(limits.TOO_FAST_CODE, limits.TOO_FAST)]
    assert len(app.keys) == limits.KEY_BURST // 100
    assert app.why.startswith(": keys came faster")


def test_binary_frames_end_the_session_and_every_frame_is_charged() -> None:
    socket, app = relayed(text("stdin", "a"), WSMessage(WSMsgType.BINARY, b"x" * 100, None),
                          text("stdin", "b"))
    assert socket.closes == [(limits.BINARY_CODE, limits.BINARY)] and app.keys == [b"a"]
    # malformed JSON and messages of no kind: each at least a key and its bytes
    junk = [WSMessage(WSMsgType.TEXT, "{", None), text("nothing"), text("stdin", "")]
    socket, app = relayed(*(junk * limits.KEY_BURST))
    assert socket.closes == [(limits.TOO_FAST_CODE, limits.TOO_FAST)] and not app.keys
    socket, _ = relayed(WSMessage(WSMsgType.TEXT, "[" * 10_000 + "]" * 10_000, None))
    assert socket.closes == []                       # (deep JSON: dropped, no error)


def test_a_token_s_sessions_share_one_meter_a_reconnect_does_not_refill_it() -> None:
    server = Limits(2, 32)
    relayed(*[text("stdin", "1" * 100) for _ in range(15)], limits_=server)
    socket, app = relayed(*[text("stdin", "1" * 100) for _ in range(15)], limits_=server)
    assert socket.closes == [(limits.TOO_FAST_CODE, limits.TOO_FAST)]
    assert len(app.keys) < 15


def test_the_terminal_size_is_clamped_and_resizes_are_paced() -> None:
    socket, app = relayed(text("resize", {"width": 20000, "height": 20000}),
                          text("resize", {"width": 1, "height": 0}),
                          text("resize", {"width": "9" * 4000, "height": 3}))
    assert app.sizes == [(limits.WIDTHS[1], limits.HEIGHTS[1]),
                         (limits.WIDTHS[0], limits.HEIGHTS[0]),
                         (limits.WIDTHS[1], limits.HEIGHTS[0])]
    clock, sizes = Clock(), []

    async def apply(width: int, height: int) -> None:
        sizes.append((width, height))

    async def main() -> None:
        resize = Resizer(apply, clock)
        for w in range(100, 200):                    # a window edge dragged, 100 events
            await resize(w, 50)
        assert len(sizes) == limits.RESIZE_BURST     # the rest wait; the latest is kept
        clock.t += 10
        assert resize.later is not None
        await resize.later
        resize.cancel()

    asyncio.run(main())
    assert sizes[-1] == (199, 50) and len(sizes) == limits.RESIZE_BURST + 1


def test_session_starts_are_metered_per_token() -> None:
    async def main() -> list[Any]:
        server, got = Limits(2, 32), []
        for _ in range(limits.START_BURST + 3):
            seat = await server.seat_for(Socket(answers=True), "K", "ann")  # type: ignore[arg-type]
            got.append(seat)
            if seat is not None:
                server.seats.release(seat)           # (each one ends before the next)
        assert isinstance(await server.seat_for(Socket(answers=True), "L", "bob"), Seat)  # type: ignore[arg-type]
        return got

    got = asyncio.run(main())
    assert all(isinstance(s, Seat) for s in got[:limits.START_BURST])
    assert got[limits.START_BURST:] == [None] * 3
    bucket = KeyMeter(clock := Clock()).starts
    assert bucket.take(limits.START_BURST) and not bucket.take(1)
    clock.t += limits.START_EVERY
    assert bucket.take(1) and not bucket.take(1)


class FakeSpare:
    def __init__(self) -> None:
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.ready = fut


def test_cold_starts_are_bounded_and_skipped_for_a_browser_gone_or_a_server_stopping(
        monkeypatch: pytest.MonkeyPatch) -> None:
    running, most, started = [0], [0], []

    async def start_spare(env: dict[str, str]) -> Any:
        spare = FakeSpare()
        running[0] += 1
        most[0] = max(most[0], running[0])
        started.append(spare)

        def done() -> None:
            running[0] -= 1
            spare.ready.set_result(b"relkit: warm\n")

        asyncio.get_running_loop().call_later(0.01, done)
        return spare

    monkeypatch.setattr(warm, "start_spare", start_spare)

    async def main() -> None:
        pool = warm.WarmPool(size=0, refill_after=3600, cold=2)
        await asyncio.gather(*[pool.take({}) for _ in range(6)])
        assert len(started) == 6 and most[0] == 2
        with pytest.raises(warm.Gone):
            await pool.take({}, gone=lambda: True)
        assert len(started) == 6                     # nothing started for nobody
        await pool.close()
        with pytest.raises(warm.Gone):
            await pool.take({})
        assert len(started) == 6

    asyncio.run(main())


def test_no_session_starts_once_the_server_is_stopping() -> None:
    async def main() -> None:
        server = Limits(1, 32)
        old = await server.seat_for(Socket(answers=True), "K", "ann")  # type: ignore[arg-type]
        assert isinstance(old, Seat)
        old.ending = True                            # a reload waits for the old seat
        waiting = asyncio.ensure_future(server.seat_for(Socket(answers=True), "K", "ann"))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        await server.end_all()                       # SIGTERM meanwhile
        server.seats.release(old)
        assert await waiting is None
        socket = Socket(answers=True)
        assert await server.seat_for(socket, "L", "bob") is None  # type: ignore[arg-type]
        assert socket.closes == [(limits.STOPPING_CODE, limits.STOPPING)]
        assert server.seats.open == []

    asyncio.run(main())
