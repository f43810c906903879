"""`relkit serve` benchmark: grade key in a real browser to the next document drawn.

    RELKIT_TEST_PG=postgresql://postgres@127.0.0.1:54329/postgres \\
        .venv/bin/python bench/serve_bench.py [--judgments 40] [--assessors 1 8]

A real `relkit serve` process on a fresh PostgreSQL database, real headless Chromium
sessions (Selenium, Debian's chromium + chromedriver), each signed in as its own
assessor. The time is taken inside the page: a script installed before textual-serve's
own wraps ``WebSocket`` and listens for ``keydown``; a key's latency runs from the
keydown to two animation frames after the first websocket message that carries the
next document's id (xterm.js draws on the frame after it writes: the second frame
is when that screen is painted). So it includes the browser, the websocket, the
server's relay, the app process (key, committed save, next document, render) and
xterm.js. Peers, in the same run, with the ratio to each: bench/tui_bench.py's
key→painted figure for the terminal app in process (PostgreSQL; no terminal emulator
draws it), and `relkit judge` seen from outside in a terminal emulator
(bench/tui_tmux_bench.py's method: tmux, key sent → next document on the pane), on a
database built as the browser's, as shipped and at the served app's frame rate. The
browser figure includes a terminal emulator (xterm.js), so the tmux one is the
like-for-like peer; both are printed. ``--ab-fps N``: only an A/B of the served app's
Textual frame rate, 60 against N, two browsers at once.

Also: a signed-in assessor's first document (the page opened with the cookie → the
topic list drawn, then Enter → the first document drawn), and memory per connected
assessor (RSS of each per-session app process, read from /proc).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from tui_bench import grade_loop, pct  # noqa: E402
from tui_tmux_bench import RELKIT, bench_env, grade_under_tmux  # noqa: E402
from tui_tmux_bench import stop as stop_tmux  # noqa: E402

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.serve.warm import SERVED_FPS  # noqa: E402
from relkit.judging.store import Store  # noqa: E402
from relkit.judging.tokens import issue  # noqa: E402
from serve_helpers import ARRIVED, FIND, Served, chrome, press, wait_until  # noqa: E402

PEOPLE = [f"a{i}" for i in range(8)]


def docno(i: int) -> str:
    return f"D{i:05d}"


def build(db: str, per_person: int, words: int = 300) -> dict[str, str]:
    import random

    rng = random.Random(0)
    vocab = ["solar", "panel", "energy", "grid", "storage", "battery", "cell", "cost",
             "roof", "inverter", "power", "sun", "light", "heat", "home", "market"]
    store = Store.open(db)
    topics = [Topic(str(100 + i), f"topic {i}", "Find documents on it.") for i in range(8)]
    docs = [Document(docno(j), f"Title {j}", " ".join(rng.choice(vocab) for _ in range(words)))
            for j in range(per_person)]
    store.create_collection("bench", TREC_DL, topics, docs)
    store.import_pool([(t.id, d.id) for t in topics for d in docs], name="p")
    store.assign(PEOPLE)                       # one topic each, docno order
    toks = {p: issue(store, p) for p in PEOPLE}
    store.close()
    return toks


def session(url: str, token: str, n: int, out: dict[str, Any]) -> None:
    """One browser: sign in, open the topic, grade ``n`` documents; times into ``out``."""
    from selenium.webdriver.common.by import By

    browser = chrome()
    try:
        browser.get(url)
        browser.find_element(By.ID, "token").send_keys(token)
        browser.find_element(By.ID, "signin").click()   # the app page, signed in
        wait_until(lambda: browser.execute_script(
            "return document.body.classList.contains('-first-byte')"), "first screen", 120)
        topics_drawn = wait_until(lambda: browser.execute_script(FIND, 0, "choose a topic"),
                                  "the topic list", 60)
        browser.find_element(By.ID, "terminal").click()
        time.sleep(0.3)
        k0 = browser.execute_script("return performance.now()")
        press(browser, "\ue007")
        first = wait_until(lambda: browser.execute_script(FIND, k0, docno(0)),
                           "the first document", 60)
        out["topics_ms"] = topics_drawn
        out["first_doc_ms"] = first - k0
        # where the page's time went: the sign-in and page round trips, the page's own
        # loading (textual.js, xterm.js) up to the websocket's opening, and the rest
        out["page_split"] = browser.execute_script(
            "return [performance.getEntriesByType('navigation')[0].responseEnd, "
            "window.__rk.open]")
        lat = []
        parts: list[tuple[float, float, float]] = []
        retries = 0
        for i in range(n):
            for _attempt in range(3):
                time.sleep(0.4)               # longer than min_view: the key counts
                k = browser.execute_script("return performance.now()")
                press(browser, str(i % 4))
                try:
                    painted = wait_until(lambda k=k, i=i: browser.execute_script(
                        FIND, k, docno(i + 1)), f"document {i + 1}", 20, every=0.01)
                except AssertionError:
                    # the key was dropped (the app saw the document for < min_view on a
                    # loaded machine, and says so): press again, leave the sample out
                    retries += 1
                    continue
                keydown, sent = browser.execute_script(
                    "return [window.__rk.keys.filter(x => x >= arguments[0])[0], "
                    "window.__rk.sent.filter(x => x >= arguments[0])[0]]", k)
                arrived = browser.execute_script(ARRIVED, k, docno(i + 1))
                lat.append(painted - keydown)
                # where it went: the page to the websocket, the websocket and the
                # server and the app and back, xterm.js drawing what arrived
                parts.append((sent - keydown, arrived - sent, painted - arrived))
                break
        out["lat"] = lat
        # A signed-in assessor coming back (the cookie kept, the page's files cached):
        # the page opened → the topic list, then Enter → the next unjudged document.
        browser.refresh()
        again = wait_until(lambda: browser.execute_script(FIND, 0, "choose a topic"),
                           "the topic list again", 60)
        browser.find_element(By.ID, "terminal").click()
        time.sleep(0.3)
        k0 = browser.execute_script("return performance.now()")
        press(browser, "\ue007")
        doc = wait_until(lambda: browser.execute_script(FIND, k0, docno(n)),
                         "the next unjudged document", 60)
        out["again_ms"] = (again, doc - k0)
        out["parts"] = parts
        out["retries"] = retries
    finally:
        browser.quit()


def cpu_seconds(pid: int) -> float:
    """user+sys CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def fps_ab(admin: str, n: int, fps: int) -> None:
    """Textual's frame rate in the served app, A/B in one run: two servers on one database,
    one at textual-serve's 60 frames/s and one at ``fps``, one browser each, graded at the
    same time (so both see the same machine load); key→drawn of each and the ratio."""
    url, drop = fresh_pg(admin)
    try:
        toks = build(url, n + 10)
        servers = []
        try:
            for rate in (60, fps):
                os.environ["RELKIT_SERVE_FPS"] = str(rate)
                servers.append(Served(url, Path(f"/tmp/relkit-serve-bench-{os.getpid()}-"
                                                f"{rate}.log")))
            os.environ.pop("RELKIT_SERVE_FPS")
            for server in servers:
                wait_until(lambda s=server: "warm: a browser" in s.log(), "warm spares", 120)
            outs: list[dict[str, Any]] = [{}, {}]
            threads = [threading.Thread(target=session, args=(server.url, toks[p], n, o))
                       for server, p, o in zip(servers, PEOPLE, outs, strict=False)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            for server in servers:
                server.stop()
    finally:
        drop()
    got = []
    for rate, o in zip((60, fps), outs, strict=True):
        lat = o.get("lat", [])
        if not lat:
            print(f"| browser at {rate} frames/s | incomplete | | | |")
            return
        got.append((statistics.median(lat), pct(lat, 95)))
        back = [b for _, b, _ in o["parts"]]
        print(f"| browser, app at {rate} frames/s (A/B, at once) | {got[-1][0]:.1f} | "
              f"{got[-1][1]:.1f} | {max(lat):.1f} | {len(lat)} |  sent→bytes back p50 "
              f"{statistics.median(back):.1f} p95 {pct(back, 95):.1f}")
    print(f"|   ({fps} / 60 frames/s: p50 {got[1][0] / got[0][0]:.2f}x, p95 "
          f"{got[1][1] / got[0][1]:.2f}x) | | | | |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judgments", type=int, default=40, help="grades per assessor")
    ap.add_argument("--assessors", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--ab-fps", type=int, metavar="FPS", help="only an A/B of the served "
                    "app's frame rate: 60 against FPS, two browsers at once")
    args = ap.parse_args()
    admin = os.environ.get("RELKIT_TEST_PG")
    if not admin:
        sys.stderr.write("serve_bench: set RELKIT_TEST_PG to a PostgreSQL admin URL\n")
        return 2
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print("| setting | key→drawn p50 ms | p95 ms | max | n |\n|---|---|---|---|---|")
    if args.ab_fps:
        fps_ab(admin, args.judgments, args.ab_fps)
        return 0
    # The peer: the terminal app on PostgreSQL, the same run (tui_bench's key→painted).
    url, drop = fresh_pg(admin)
    try:
        store = Store.open(url)
        docs = [Document(docno(j), f"Title {j}", "solar panel " * 150)
                for j in range(args.judgments + 10)]
        store.create_collection("b", TREC_DL, [Topic("1", "solar")], docs)
        store.import_pool([("1", d.id) for d in docs], name="p")
        store.assign(["ann"])
        c0 = os.times()
        _, _, sent, _, _ = asyncio.run(grade_loop(store, args.judgments))
        c1 = os.times()
        store.close()
    finally:
        drop()
    term = statistics.median(sent), pct(sent, 95)
    print(f"| terminal (tui_bench, Pilot, PostgreSQL) | {term[0]:.1f} | {term[1]:.1f} | "
          f"{max(sent):.1f} | {len(sent)} |")
    # (the 50 no-op keys, the modals and the start are in it too: an upper bound)
    term_cpu = (c1.user + c1.system - c0.user - c0.system) / args.judgments * 1000
    print(f"|   (terminal app CPU, user+sys, whole run / grades: {term_cpu:.1f} ms per grade, "
          "an upper bound) | | | | |")
    # The fair peer: the terminal app seen from outside, in a terminal emulator (tmux), as
    # the browser figure is (xterm.js): `relkit judge` on a PostgreSQL database built as
    # the browser's, key sent → next document on screen (tui_tmux_bench's method; it
    # includes tmux's emulation and its capture-pane polling, ~2-3 ms a poll).
    # Twice: as `relkit judge` ships (Textual's 60 frames/s), and at the served app's
    # frame rate (SERVED_FPS), so the browser can be compared with the same app settings.
    url, drop = fresh_pg(admin)
    tmux_runs: dict[str, list[float]] = {}
    try:
        build(url, args.judgments + 10)
        try:
            for label, extra in (("", {}), (f", at {SERVED_FPS} frames/s as served",
                                            {"TEXTUAL_FPS": str(SERVED_FPS)})):
                tmux_runs[label] = grade_under_tmux(RELKIT, url, PEOPLE[len(tmux_runs)],
                                                    args.judgments, 0.4,
                                                    {**bench_env(), **extra})
        finally:
            stop_tmux()
    finally:
        drop()
    peers = {}
    for label, xs in tmux_runs.items():
        peers[label] = statistics.median(xs), pct(xs, 95)
        print(f"| terminal (relkit judge under tmux, from outside, PostgreSQL{label}) | "
              f"{peers[label][0]:.1f} | {peers[label][1]:.1f} | {max(xs):.1f} | {len(xs)} |")
    tmx, tmx_same = peers[""], list(peers.values())[1]
    firsts: dict[int, list[float]] = {}
    topics: dict[int, list[float]] = {}
    rss: dict[int, list[int]] = {}
    splits: dict[int, list[tuple[float, float]]] = {}
    agains: dict[int, list[tuple[float, float]]] = {}
    for k in args.assessors:
        url, drop = fresh_pg(admin)
        try:
            toks = build(url, args.judgments + 10)
            server = Served(url, Path(f"/tmp/relkit-serve-bench-{os.getpid()}.log"))
            try:
                # as a server that has been up a while: its warm spares ready
                wait_until(lambda s=server: "warm: a browser" in s.log(), "warm spares", 120)
                outs: list[dict[str, Any]] = [{} for _ in range(k)]
                threads = [threading.Thread(target=session, args=(server.url, toks[p],
                                                                  args.judgments, o))
                           for p, o in zip(PEOPLE[:k], outs, strict=False)]
                for t in threads:
                    t.start()
                    time.sleep(1.0)
                cpu: dict[int, float] = {}
                while any(t.is_alive() for t in threads):
                    for pid in session_pids():
                        cpu[pid] = max(cpu.get(pid, 0.0), cpu_seconds(pid))
                    assert server.proc is not None
                    cpu[server.proc.pid] = cpu_seconds(server.proc.pid)
                    rss.setdefault(k, [])
                    # k sessions and the warm spare (smaller: no app yet): the k largest
                    got = sorted(rss_of_sessions(), reverse=True)[:k]
                    if len(got) == k:
                        rss[k] = got
                    time.sleep(1.0)
            finally:
                server.stop()
        finally:
            drop()
        lat = [x for o in outs for x in o.get("lat", [])]
        if any("lat" not in o for o in outs):
            print(f"| browser, {k} assessors | incomplete: {len(lat)} of "
                  f"{k * args.judgments} | | | |")
            continue
        retried = sum(o.get("retries", 0) for o in outs)
        if retried:
            print(f"| (browser, {k}: {retried} key{'s' if retried > 1 else ''} dropped as "
                  "typed ahead and pressed again, left out) | | | | |")
        firsts[k] = [o["first_doc_ms"] for o in outs]
        splits[k] = [o["page_split"] for o in outs]
        agains[k] = [o["again_ms"] for o in outs]
        topics[k] = [o["topics_ms"] for o in outs]
        p50, p95 = statistics.median(lat), pct(lat, 95)
        parts = [x for o in outs for x in o.get("parts", [])]
        names = ("keydown→sent", "sent→bytes back", "bytes→painted")
        split = "; ".join(f"{what} p50 {statistics.median(xs):.1f} p95 {pct(xs, 95):.1f}"
                          for what, xs in zip(names, zip(*parts, strict=True), strict=True))
        print(f"| browser, {k} assessor{'s' if k > 1 else ''} at once | {p50:.1f} | "
              f"{p95:.1f} | {max(lat):.1f} | {len(lat)} |  ratio to terminal: p50 "
              f"{p50 / term[0]:.2f}x, p95 {p95 / term[1]:.2f}x (in process); to the "
              f"terminal under tmux: p50 {p50 / tmx[0]:.2f}x, p95 {p95 / tmx[1]:.2f}x "
              f"(target <= 1.5x); to it at {SERVED_FPS} frames/s: p50 "
              f"{p50 / tmx_same[0]:.2f}x, p95 {p95 / tmx_same[1]:.2f}x")
        print(f"|   (of which: {split}) | | | | |")
        print(f"|   (server + app processes CPU, user+sys, whole run incl. start-ups and "
              f"spares / grades: {sum(cpu.values()) / len(lat) * 1000:.1f} ms per grade) "
              "| | | | |")
    for k in topics:
        t, f = statistics.median(topics[k]), statistics.median(firsts[k])
        print(f"\n{k} signed in at once: page opened → topic list drawn median {t:.0f} ms "
              f"(max {max(topics[k]):.0f}); Enter → first document drawn median {f:.0f} ms "
              f"(max {max(firsts[k]):.0f}); first document in all: median {t + f:.0f} ms "
              "(target < 1000)")
        resp, opened = (statistics.median(xs) for xs in zip(*splits[k], strict=True))
        print(f"  of which (medians): sign-in and page round trips {resp:.0f} ms; the "
              f"page loading textual.js/xterm.js to the websocket open {opened - resp:.0f} "
              f"ms; websocket open → topic list drawn {t - opened:.0f} ms")
        a, d = (statistics.median(xs) for xs in zip(*agains[k], strict=True))
        print(f"  signed in, coming back (page reloaded, files cached): topic list drawn "
              f"{a:.0f} ms, Enter → document drawn {d:.0f} ms; in all {a + d:.0f} ms")
    for k, xs in rss.items():
        if xs:
            print(f"memory per connected assessor ({k} connected): RSS of the app process "
                  f"median {statistics.median(xs) / 1024:.0f} MiB, max {max(xs) / 1024:.0f} MiB")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
