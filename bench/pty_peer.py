"""`relkit judge` on a bare pseudo-terminal: the app's own work, nothing emulated.

The terminal counterpart of the relay figure (serve_measure.relay_keys: keys over a
bare websocket, no browser): the app runs on a pty of the browser's size, a grade key
is written to the pty's master and the time runs to the first read that holds the next
document's id. Nothing parses the escape codes or draws. bench/serve_bench.py uses it
for the assessors who are not measured when several judge at once: they load the
machine (their app processes, the database) as the measured one's peers do, without a
terminal emulator of their own, as the browser run's other assessors are bare
websockets (their browsers run on their own computers, as their terminals would).
"""

from __future__ import annotations

import fcntl
import os
import select
import shlex
import struct
import subprocess
import termios
import time
from collections.abc import Callable


def grade_on_pty(relkit: str, db: str, assessor: str, n: int, think: float,
                 env: dict[str, str], docno: Callable[[int], str],
                 size: tuple[int, int] = (114, 28),
                 ready: Callable[[], object] | None = None) -> list[float]:
    """``relkit judge`` on ``db`` as ``assessor``: open the first topic, then ``n``
    grades, ``think`` seconds apart; ms from each key written to the next document's
    id read back (``ready``, when given, is called before the first grade)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    proc = subprocess.Popen(
        [*shlex.split(relkit), "judge", "--db", db, "--assessor", assessor],
        stdin=slave, stdout=slave, stderr=slave, env={**env, "TERM": "xterm-256color"},
        start_new_session=True, close_fds=True)
    os.close(slave)
    got = b""

    def until(needle: bytes, timeout: float = 60.0) -> float:
        nonlocal got
        deadline = time.perf_counter() + timeout
        while needle not in got:
            left = deadline - time.perf_counter()
            if left <= 0 or proc.poll() is not None:
                raise TimeoutError(f"{assessor}: {needle!r} not seen on the pty")
            if select.select([master], [], [], left)[0]:
                try:
                    got += os.read(master, 1 << 16)
                except OSError as exc:       # EIO: the app closed the terminal
                    raise TimeoutError(f"{assessor}: the app ended") from exc
        return time.perf_counter()

    try:
        until(b"Enter opens a topic")
        time.sleep(think)
        got = b""
        os.write(master, b"\r")
        until(docno(0).encode())
        if ready is not None:
            ready()
        out = []
        for i in range(n):
            time.sleep(think)                 # past min_view: the key counts
            got = b""
            t0 = time.perf_counter()
            os.write(master, str(i % 4).encode())
            out.append((until(docno(i + 1).encode(), 20.0) - t0) * 1000)
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
