"""Measuring helpers of bench/serve_bench.py: fresh PostgreSQL databases, the CPU and
memory of `relkit serve`'s processes (from /proc), and the relay without a browser.

The relay figure: the same server and app, driven over a bare websocket (aiohttp's
client, as the page sends keys: ``["stdin", "1"]``) instead of Chromium, from the key
sent to the first message carrying the next document's id. Against the browser's
send → bytes back it shows what the browser's own network path adds; against the
terminal app in process, what the server's relay and the app's pipes add.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any


def cpu_seconds(pid: int) -> float:
    """user+sys CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Who uses the cores while N browsers judge: the load generator (Chromium and its
# driver) runs on the same machine as the server, so its share says how much of a
# slower p95 is the browsers' own painting rather than relkit.
GROUPS = (("browsers", (b"chrom",)), ("sessions", (b"relkit.judging.serve.session",)),
          ("server", (b"relkit serve", b"relkit\0serve")), ("postgres", (b"postgres",)))


def cpu_by_group() -> dict[str, float]:
    """user+sys CPU seconds so far of the live processes in each of ``GROUPS``, and
    ``"all"``: the machine's busy time from /proc/stat (every process, the kernel,
    processes that ended too)."""
    out = dict.fromkeys([g for g, _ in GROUPS], 0.0)
    jiffies = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = jiffies[3] + (jiffies[4] if len(jiffies) > 4 else 0)     # idle + iowait
    out["all"] = (sum(jiffies[:8]) - idle) / os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        cpu = cpu_seconds(int(pid))
        for group, needles in GROUPS:
            if any(n in cmd for n in needles):
                out[group] += cpu
                break
    return out


def session_pids() -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"relkit.judging.serve.session" in cmd:
                out.append(int(pid))
    return out


def rss_of_sessions() -> list[int]:
    """RSS (KiB) of every per-session app process (python -m relkit.judging.serve.session)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"relkit.judging.serve.session" not in cmd or cmd[0].endswith(b"sh"):
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        out += [int(line.split()[1]) for line in status.splitlines()
                if line.startswith("VmRSS:")]
    return out


def fresh_pg(admin: str) -> tuple[str, Any]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"relkit_serve_bench_{uuid.uuid4().hex[:8]}"
    eng = create_engine(admin, isolation_level="AUTOCOMMIT")
    with eng.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with eng.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        eng.dispose()

    return make_url(admin).set(database=name).render_as_string(hide_password=False), drop




def relay_keys(url: str, token: str, n: int, docno: Callable[[int], str], first: int = 0,
               size: tuple[int, int] = (114, 28), think: float = 1.2,
               ready: Callable[[], object] | None = None,
               start: dict[str, float] | None = None) -> list[float]:
    """ms from each grade key sent over a bare websocket to the first message with the
    next document's id: ``token``'s first topic opened, ``n`` grades from document
    ``first``, in a ``size`` terminal. ``start``, when given, gets the session's start
    in ms: ``topics`` (websocket opened → the topic list) and ``first_doc`` (Enter →
    the first document), the page's own loading aside."""
    import aiohttp

    async def run() -> list[float]:
        async with aiohttp.ClientSession(cookies={"relkit_token": token}) as http:
            t_open = time.perf_counter()
            ws = await http.ws_connect(url.replace("http:", "ws:")
                                       + f"/ws?width={size[0]}&height={size[1]}",
                                       headers={"Origin": url})
            got = b""
            # one receive at a time, kept across waits: reading while others get ready
            # (the server's heartbeat wants its pong) must not drop a message
            pending: list[asyncio.Task[Any]] = []

            async def one(timeout: float | None) -> bool:
                """Read one message into ``got``; False when ``timeout`` passed first."""
                nonlocal got
                if not pending:
                    pending.append(asyncio.ensure_future(ws.receive()))
                done, _ = await asyncio.wait(pending, timeout=timeout)
                if not done:
                    return False
                msg = pending.pop().result()
                if msg.type != aiohttp.WSMsgType.BINARY:
                    raise RuntimeError(f"the session ended: {msg.type}")
                got += msg.data
                return True

            async def until(needle: bytes) -> float:
                while needle not in got:
                    if not await one(30):
                        raise TimeoutError(f"{needle!r} not seen in 30 s")
                return time.perf_counter()

            topics = await until(b"Enter opens a topic")
            await asyncio.sleep(think)
            got = b""
            t_enter = time.perf_counter()
            await ws.send_json(["stdin", "\r"])
            doc = await until(docno(first).encode())
            if start is not None:
                start["topics"] = (topics - t_open) * 1000
                start["first_doc"] = (doc - t_enter) * 1000
            if ready is not None:
                waiting = asyncio.ensure_future(asyncio.to_thread(ready))
                while not waiting.done():
                    await one(0.2)
                await waiting
            out = []
            for i in range(first, first + n):
                await asyncio.sleep(think)         # past min_view: the key counts
                got = b""
                t0 = time.perf_counter()
                await ws.send_json(["stdin", str(i % 4)])
                out.append((await until(docno(i + 1).encode()) - t0) * 1000)
            await ws.close()
            return out

    return asyncio.run(run())
