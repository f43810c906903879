"""`relkit serve` benchmark: grade key in a real browser to the next document drawn.

    RELKIT_TEST_PG=postgresql://postgres@127.0.0.1:54329/postgres \\
        .venv/bin/python bench/serve_bench.py [--judgments 40] [--assessors 1 8]
        .venv/bin/python bench/serve_bench.py --load 60 --assessors 1 4 8   (load test)

A real `relkit serve` process on a fresh PostgreSQL database, real headless Chromium
sessions (Selenium, Debian's chromium + chromedriver) in a 1100x700 window (xterm.js's
canvas renderer fits 122x26 cells: :data:`SIZE`), each signed in as its own assessor.
The time is taken inside the page: a script installed before textual-serve's own wraps
``WebSocket`` and listens for ``keydown``. A key runs from the keydown to the first
websocket message carrying the next document's id, and then to two points: **drawn**,
when the animation frame in which xterm.js draws that message has been rendered (a
task posted from the frame's first animation callback runs after the frame's drawing,
style, layout and paint; not yet shown), and **painted**, the next animation frame
(that frame has been shown). Both include the browser, the websocket, the server's
relay, the app process (key, committed save, next document, render) and xterm.js's
emulation and drawing; painted adds the wait for the display frame. The bench waits
for each document with one asynchronous script inside the page: nothing polls the
page while a key is on its way.

Everyone signs in and opens their first document; then the machine settles (the
server's warm spares refilled, the terminal apps started: :func:`settled`) and all
grade together, a key every 1.2 s (past min-view, 1 s). With several assessors one
browser is measured and the others judge over bare websockets at the same pace (their
browsers would run on their own computers; ``--others browser`` runs them all here).

The terminal figures, in the same run, on the same screen size (tmux: 80x24), with the
ratio of both browser figures to each (and what each includes, printed next to it):

- in process (bench/tui_bench.py's key→painted, PostgreSQL): the app alone, key → the
  frame written; no terminal emulator, nothing drawn;
- `relkit judge` under tmux, from outside (bench/tui_tmux_bench.py's method, on a
  database built as the browser's), as shipped and at the served app's frame rate:
  key sent → the next document on tmux's grid; emulated, nothing drawn;
- `relkit judge` on a bare pty (bench/pty_peer.py): key written → the next document's
  id read back; the relay's peer;
- `relkit judge` in xterm on Xvfb (bench/xterm_peer.py): key typed (XTEST) → the next
  document's id painted into the X server's framebuffer; emulated and drawn, no
  display frame: the like-for-like peer of the browser's "drawn"; with several
  assessors, one xterm among as many `relkit judge` on bare ptys.

Also the relay without a browser (the same server, keys over a bare websocket), the
browser's time split (keydown → send, send → bytes back, bytes → drawn, drawn →
painted), a signed-in assessor's first document (the page opened with the cookie → the
topic list drawn, then Enter → the first document drawn; the bare clients' session
starts too), and memory per connected assessor (RSS of each per-session app process,
read from /proc). ``--ab-fps N`` and ``--ab-renderer webgl|dom`` run only an A/B of the
served app's Textual frame rate or of xterm.js's renderer in the page, two browsers at
once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from pty_peer import grade_on_pty  # noqa: E402
from serve_measure import (  # noqa: E402
    cpu_seconds,
    fresh_pg,
    relay_keys,
    rss_of_sessions,
    session_pids,
)
from tui_bench import grade_loop, pct  # noqa: E402
from tui_tmux_bench import RELKIT, bench_env, grade_under_tmux  # noqa: E402
from tui_tmux_bench import stop as stop_tmux  # noqa: E402
from xterm_peer import available as xterm_missing  # noqa: E402
from xterm_peer import grade_in_xterm, grade_in_xterms  # noqa: E402

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.serve.warm import SERVED_FPS  # noqa: E402
from relkit.judging.store.assign import Store  # noqa: E402
from relkit.judging.store.tokens import issue  # noqa: E402
from serve_helpers import (  # noqa: E402
    ARRIVED,
    DRAWN,
    FIND,
    WAIT_PAINTED,
    Served,
    chrome,
    press,
    wait_until,
)

PEOPLE = [f"a{i}" for i in range(8)]
# The browser's terminal in the benchmark's window (1100x700: xterm.js's canvas renderer
# fits 122x26 cells of its font), as the page tells the server; the terminal peers and
# the bare clients get the same size, so every figure draws the same screen.
SIZE = (122, 26)


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


def session(url: str, token: str, n: int, out: dict[str, Any],
            ready: Callable[[], object] | None = None) -> None:
    """One browser: sign in, open the topic, grade ``n`` documents; times into ``out``
    (``ready`` is called between the first document and the first grade)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By

    browser = chrome()
    browser.set_script_timeout(20)
    try:
        browser.get(url)
        browser.find_element(By.ID, "token").send_keys(token)
        browser.find_element(By.ID, "signin").click()   # the app page, signed in
        wait_until(lambda: browser.execute_script(
            "return document.body.classList.contains('-first-byte')"), "first screen", 120)
        topics_drawn = wait_until(lambda: browser.execute_script(FIND, 0, "Enter opens a topic"),
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
        size = browser.execute_script("return window.__rk.size")
        out["size"] = (size["width"], size["height"])
        if ready is not None:
            ready()
        lat = []
        drawn: list[float] = []
        parts: list[tuple[float, float, float, float]] = []
        retries = 0
        for i in range(n):
            for _attempt in range(3):
                time.sleep(1.2)               # longer than min_view (1 s): the key counts
                k = browser.execute_script("return performance.now()")
                press(browser, str(i % 4))
                try:
                    # one call that returns when the page has painted it: nothing asks
                    # the page anything while the key is on its way (polling from
                    # here ran the driver's script in the page every 10 ms: 1-2 ms)
                    painted = browser.execute_async_script(WAIT_PAINTED, k, docno(i + 1))
                except TimeoutException:
                    # the key was dropped (the app saw the document for < min_view on a
                    # loaded machine, and says so): press again, leave the sample out
                    retries += 1
                    continue
                keydown, sent = browser.execute_script(
                    "return [window.__rk.keys.filter(x => x >= arguments[0])[0], "
                    "window.__rk.sent.filter(x => x >= arguments[0])[0]]", k)
                arrived = browser.execute_script(ARRIVED, k, docno(i + 1))
                rendered = browser.execute_script(DRAWN, k, docno(i + 1))
                lat.append(painted - keydown)
                drawn.append(rendered - keydown)
                # where it went: the page to the websocket, the websocket and the
                # server and the app and back, xterm.js drawing what arrived (the
                # frame rendered), that frame shown (the next animation frame)
                parts.append((sent - keydown, arrived - sent, rendered - arrived,
                              painted - rendered))
                break
        out["lat"], out["drawn"] = lat, drawn
        # A signed-in assessor coming back (the cookie kept, the page's files cached):
        # the page opened → the topic list, then Enter → the next unjudged document.
        browser.refresh()
        again = wait_until(lambda: browser.execute_script(FIND, 0, "Enter opens a topic"),
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


AB = {"fps": ("RELKIT_SERVE_FPS", str(SERVED_FPS), "frames/s"),
      "renderer": ("RELKIT_SERVE_RENDERER", "canvas", "renderer")}


def ab(admin: str, n: int, what: str, other: str) -> None:
    """An A/B of one setting of the served app in one run: two servers on one database,
    one as shipped and one with ``other`` (``what``: the app's frame rate, or xterm.js's
    renderer in the page), one browser each, graded at the same time (so both see the
    same machine load); key→painted and key→drawn of each, and the ratios."""
    var, base, unit = AB[what]
    url, drop = fresh_pg(admin)
    try:
        toks = build(url, n + 10)
        servers = []
        try:
            for value in (base, other):
                os.environ[var] = value
                servers.append(Served(url, Path(f"/tmp/relkit-serve-bench-{os.getpid()}-"
                                                f"{value}.log"), spares=None))
            os.environ.pop(var)
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
    for value, o in zip((base, other), outs, strict=True):
        lat = o.get("lat", [])
        if not lat:
            print(f"| browser, {unit} {value} | incomplete | | | |")
            return
        got.append((statistics.median(lat), pct(lat, 95), statistics.median(o["drawn"]),
                    pct(o["drawn"], 95)))
        back = [x[1] for x in o["parts"]]
        print(f"| browser, {unit} {value} (A/B, at once) | {got[-1][0]:.1f} | "
              f"{got[-1][1]:.1f} | {max(lat):.1f} | {len(lat)} |  key→drawn p50 "
              f"{got[-1][2]:.1f} p95 {got[-1][3]:.1f}; sent→bytes back p50 "
              f"{statistics.median(back):.1f} p95 {pct(back, 95):.1f}")
    r = [b / a for a, b in zip(*got, strict=True)]
    print(f"|   ({other} / {base}: painted p50 {r[0]:.2f}x, p95 {r[1]:.2f}x; drawn p50 "
          f"{r[2]:.2f}x, p95 {r[3]:.2f}x) | | | | |")


def settled(quiet: float = 0.8, timeout: float = 30.0) -> None:
    """Wait until the machine is nearly idle (under 10% of its CPUs busy over 0.5 s, for
    ``quiet`` seconds in a row), at most ``timeout`` seconds: every assessor is on their
    first document, and what their sign-ins started is done (the server's warm spares
    refilled, ~1 s of CPU each, 3 s after each sign-in; the terminal apps' start-up),
    so the timed keys measure judging, not signing in (measured on its own)."""
    def busy() -> tuple[int, int]:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v) - v[3] - v[4], sum(v)

    deadline, calm = time.monotonic() + timeout, 0.0
    b0, t0 = busy()
    while time.monotonic() < deadline and calm < quiet:
        time.sleep(0.5)
        b1, t1 = busy()
        calm = calm + 0.5 if (b1 - b0) < 0.1 * max(t1 - t0, 1) else 0.0
        b0, t0 = b1, t1


def gate(parties: int) -> Callable[[], object]:
    """What each of ``parties`` assessors calls before their first grade: they wait for
    each other, then for the machine to settle, and all start grading together."""
    return threading.Barrier(parties, action=settled, timeout=300).wait


def bare_websocket(url: str, token: str, n: int, out: dict[str, list[float]],
                   who: str, ready: Callable[[], object] | None = None,
                   starts: dict[str, dict[str, float]] | None = None) -> None:
    """An assessor not measured: ``n`` grades over a bare websocket, at the browsers'
    pace; key → next document's bytes into ``out[who]`` (missing if it failed), the
    session's start into ``starts[who]``."""
    try:
        start: dict[str, float] = {}
        out[who] = relay_keys(url, token, n, docno, size=SIZE, ready=ready, start=start)
        if starts is not None:
            starts[who] = start
    except Exception as exc:  # noqa: BLE001 (reported in the table: "only k finished")
        sys.stderr.write(f"serve_bench: {who} over a bare websocket: {exc}\n")


def xterm_among(url: str, people: list[str], n: int) -> list[float]:
    """The first person graded in xterm (measured) while the others grade, at the same
    pace, with ``relkit judge`` on bare ptys (bench/pty_peer.py): the terminal peer of one
    browser among bare websockets."""
    got: dict[str, list[float]] = {}
    errors: list[BaseException] = []
    ready = gate(len(people))

    def bare(who: str) -> None:
        try:
            got[who] = grade_on_pty(RELKIT, url, who, n, 1.2, bench_env(), docno, SIZE,
                                    ready)
        except BaseException as exc:  # noqa: BLE001 (re-raised below)
            errors.append(exc)

    threads = [threading.Thread(target=bare, args=(who,)) for who in people[1:]]
    for t in threads:
        t.start()
        time.sleep(1.0)                  # started a second apart, as the browsers are
    painted, _ = grade_in_xterm(RELKIT, url, people[0], n, 1.2, bench_env(), SIZE, ready)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return painted


def terminal_peers(admin: str, n: int, many: int,
                   others: str = "bare") -> dict[str, tuple[list[float], str]]:
    """The terminal app's figures, this run: name → (key latencies ms, what it includes);
    with ``many`` > 1 also the figure among ``many`` apps at once (the peer of as many
    assessors served): one xterm and the others on bare ptys, or ``many`` xterms when
    ``others`` is "browser" (every browser on this machine too)."""
    out: dict[str, tuple[list[float], str]] = {}
    # In process (tui_bench's key→painted): the app on PostgreSQL, no terminal emulator.
    url, drop = fresh_pg(admin)
    try:
        store = Store.open(url)
        docs = [Document(docno(j), f"Title {j}", "solar panel " * 150) for j in range(n + 10)]
        store.create_collection("b", TREC_DL, [Topic("1", "solar")], docs)
        store.import_pool([("1", d.id) for d in docs], name="p")
        store.assign(["ann"])
        c0 = os.times()
        _, _, sent, _, _ = asyncio.run(grade_loop(store, n))
        c1 = os.times()
        store.close()
    finally:
        drop()
    out["in process (tui_bench, Pilot)"] = (sent, "app only: key → frame written; "
                                            "no emulator, nothing drawn")
    # (the 50 no-op keys, the modals and the start are in it too: an upper bound)
    term_cpu = (c1.user + c1.system - c0.user - c0.system) / n * 1000
    print(f"|   (terminal app CPU, user+sys, whole run / grades: {term_cpu:.1f} ms per grade, "
          "an upper bound) | | | | |")
    # `relkit judge` seen from outside, on a PostgreSQL database built as the browser's:
    # under tmux (tui_tmux_bench's method: key sent → the next document on tmux's grid,
    # capture-pane polling included, nothing drawn), as shipped (Textual's 60 frames/s)
    # and at the served app's rate; then in xterm on an X server (bench/xterm_peer.py:
    # key typed → the next document's id painted into the X server's framebuffer).
    url, drop = fresh_pg(admin)
    try:
        build(url, n + 10)
        try:
            for i, (label, extra) in enumerate(
                    (("tmux", {}), (f"tmux at {SERVED_FPS} frames/s as served",
                                    {"TEXTUAL_FPS": str(SERVED_FPS)}))):
                xs = grade_under_tmux(RELKIT, url, PEOPLE[i], n, 1.2, {**bench_env(), **extra})
                out[label] = (xs, "emulated (tmux's grid), nothing drawn")
        finally:
            stop_tmux()
        # the app on a bare pty, the terminal peer of the relay (keys over a bare
        # websocket): nothing emulated, nothing drawn, the same screen size
        out["bare pty"] = (grade_on_pty(RELKIT, url, PEOPLE[3], n, 1.2, bench_env(), docno,
                                        SIZE, gate(1)),
                           "the app on a pty: nothing emulated or drawn (the relay's peer)")
        why = xterm_missing()
        if why:
            print(f"| (xterm peer skipped: {why}) | | | | |")
        else:
            painted, _ = grade_in_xterm(RELKIT, url, PEOPLE[2], n, 1.2, bench_env(), SIZE,
                                        gate(1))
            out["xterm on Xvfb"] = (painted, "emulated and drawn (X server's framebuffer), "
                                    "no display frame")
    finally:
        drop()
    if many > 1 and not xterm_missing():
        url, drop = fresh_pg(admin)
        try:
            build(url, n + 10)
            if others == "browser":
                out[f"{many} xterms on Xvfb at once"] = (
                    grade_in_xterms(RELKIT, url, PEOPLE[:many], n, 1.2, bench_env()),
                    "the same, as many terminals as browsers")
            else:
                out[f"xterm on Xvfb, {many - 1} more on bare ptys at once"] = (
                    xterm_among(url, PEOPLE[:many], n),
                    "the same, among as many apps as the browser's server runs")
        finally:
            drop()
    for label, (xs, _) in out.items():
        print(f"| terminal, {label}, PostgreSQL | {statistics.median(xs):.1f} | "
              f"{pct(xs, 95):.1f} | {max(xs):.1f} | {len(xs)} |")
    return out


def ratios(k: int, painted: list[float], drawn: list[float],
           peers: dict[str, tuple[list[float], str]]) -> None:
    """The browser's key→painted and key→drawn over each terminal figure."""
    print(f"\nbrowser ({k} assessor{'s' if k > 1 else ''}) / terminal, p50 and p95 "
          "(target <= 1.5x):\n| terminal figure | what it includes | p50 / p95 ms | "
          "browser key→painted | browser key→drawn |\n|---|---|---|---|---|")
    bp, bd = (statistics.median(painted), pct(painted, 95)), (statistics.median(drawn),
                                                              pct(drawn, 95))
    for label, (xs, what) in peers.items():
        t = statistics.median(xs), pct(xs, 95)
        print(f"| {label} | {what} | {t[0]:.1f} / {t[1]:.1f} | {bp[0] / t[0]:.2f}x / "
              f"{bp[1] / t[1]:.2f}x | {bd[0] / t[0]:.2f}x / {bd[1] / t[1]:.2f}x |")
    print(f"| (browser) | painted: emulated, drawn and shown (the next animation frame); "
          f"drawn: the frame with it rendered, not yet shown | painted {bp[0]:.1f} / "
          f"{bp[1]:.1f}; drawn {bd[0]:.1f} / {bd[1]:.1f} | | |")


def browser_rows(k: int, outs: list[dict[str, Any]], cpu: dict[int, float],
                 relay: list[float] | None, peers: dict[str, tuple[list[float], str]],
                 grades: int) -> None:
    lat = [x for o in outs for x in o["lat"]]
    drawn = [x for o in outs for x in o["drawn"]]
    parts = [x for o in outs for x in o["parts"]]
    names = ("keydown→sent", "sent→bytes back", "bytes→drawn (frame rendered)",
             "drawn→painted (the next frame)")
    split = "; ".join(f"{what} p50 {statistics.median(xs):.1f} p95 {pct(xs, 95):.1f}"
                      for what, xs in zip(names, zip(*parts, strict=True), strict=True))
    who = (f"{k} assessor{'s' if k > 1 else ''} at once" if len(outs) == k else
           f"1 of {k} assessors at once, the others bare websockets")
    print(f"| browser, {who} | "
          f"{statistics.median(lat):.1f} | {pct(lat, 95):.1f} | {max(lat):.1f} | {len(lat)} |"
          f"  key→drawn p50 {statistics.median(drawn):.1f} p95 {pct(drawn, 95):.1f}")
    print(f"|   (of which: {split}) | | | | |")
    print(f"|   (server + app processes CPU, user+sys, whole run incl. start-ups and "
          f"spares / grades: {sum(cpu.values()) / grades * 1000:.1f} ms per grade) "
          "| | | | |")
    if relay:
        back = [x[1] for x in parts]
        print(f"| the relay without a browser (bare websocket: key sent → the next "
              f"document's bytes) | {statistics.median(relay):.1f} | {pct(relay, 95):.1f} | "
              f"{max(relay):.1f} | {len(relay)} |  the browser's sent→bytes back over it: "
              f"p50 {statistics.median(back) / statistics.median(relay):.2f}x, "
              f"p95 {pct(back, 95) / pct(relay, 95):.2f}x")
    ratios(k, lat, drawn, peers)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judgments", type=int, default=40, help="grades per assessor")
    ap.add_argument("--assessors", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--others", choices=("bare", "browser"), default="bare",
                    help="with several assessors, the ones not measured: bare websockets "
                    "and bare ptys (default: their browsers and terminals run on their own "
                    "computers), or browsers and xterms on this machine too")
    ap.add_argument("--load", type=float, metavar="SECONDS", help="only the load test "
                    "(bench/serve_load.py): each number of --assessors as browsers judging "
                    "for SECONDS at once; keys sent against judgments stored, key → "
                    "confirmation, RSS per session, load average")
    ap.add_argument("--load-client", choices=("browser", "ws"), default="browser",
                    help="with --load: who sends the keys, real Chromium (default; the "
                    "browsers' own painting shares this machine's cores) or bare websockets "
                    "(aiohttp, as the page sends keys: the server, its sessions and "
                    "PostgreSQL alone on the cores)")
    ap.add_argument("--ab-fps", type=int, metavar="FPS", help="only an A/B of the served "
                    f"app's frame rate: {SERVED_FPS} (as served) against FPS, two browsers "
                    "at once")
    ap.add_argument("--ab-renderer", choices=("webgl", "dom"), help="only an A/B of "
                    "xterm.js's renderer in the page: canvas (textual-serve's) against it")
    args = ap.parse_args()
    admin = os.environ.get("RELKIT_TEST_PG")
    if not admin:
        sys.stderr.write("serve_bench: set RELKIT_TEST_PG to a PostgreSQL admin URL\n")
        return 2
    if args.load:
        from serve_load import main as load_test

        return load_test(admin, args.assessors, args.load, args.load_client)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print("| setting | key→painted p50 ms | p95 ms | max | n |\n|---|---|---|---|---|")
    if args.ab_fps or args.ab_renderer:
        ab(admin, args.judgments, *(("fps", str(args.ab_fps)) if args.ab_fps
                                    else ("renderer", args.ab_renderer)))
        return 0
    peers = terminal_peers(admin, args.judgments, max(args.assessors), args.others)
    print(f"|   (load average after the terminal figures: {os.getloadavg()[0]:.1f}) | | | | |")
    firsts: dict[int, list[float]] = {}
    topics: dict[int, list[float]] = {}
    rss: dict[int, list[int]] = {}
    splits: dict[int, list[tuple[float, float]]] = {}
    agains: dict[int, list[tuple[float, float]]] = {}
    bare_starts: dict[int, list[dict[str, float]]] = {}
    for k in args.assessors:
        url, drop = fresh_pg(admin)
        try:
            toks = build(url, args.judgments + 10)
            server = Served(url, Path(f"/tmp/relkit-serve-bench-{os.getpid()}.log"),
                            spares=None)   # (the server's default, as users run it)
            try:
                # as a server that has been up a while: its warm spares ready
                wait_until(lambda s=server: "warm: a browser" in s.log(), "warm spares", 120)
                # the measured browser, and the others: browsers too (--others
                # browser: all on this machine's two cores) or bare websockets sending
                # the same keys at the same pace (their browsers on their own computers)
                nb = k if args.others == "browser" else 1
                outs: list[dict[str, Any]] = [{} for _ in range(nb)]
                ready = gate(k)        # all signed in and the machine settled: grade
                threads = [threading.Thread(target=session, args=(server.url, toks[p],
                                                                  args.judgments, o, ready))
                           for p, o in zip(PEOPLE[:nb], outs, strict=False)]
                bare: dict[str, list[float]] = {}
                starts: dict[str, dict[str, float]] = {}
                threads += [threading.Thread(target=bare_websocket, args=(
                    server.url, toks[p], args.judgments, bare, p, ready, starts))
                    for p in PEOPLE[nb:k]]
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
                # The relay without a browser: the same server, another assessor, keys
                # over a bare websocket (one assessor's run only: a quiet server).
                relay = (relay_keys(server.url, toks[PEOPLE[1]], args.judgments, docno,
                                    size=SIZE, ready=gate(1)) if k == 1 else None)
            finally:
                server.stop()
        finally:
            drop()
        lat = [x for o in outs for x in o.get("lat", [])]
        if any("lat" not in o for o in outs):
            print(f"| browser, {k} assessors | incomplete: {len(lat)} of "
                  f"{k * args.judgments} | | | |")
            continue
        if k > nb:
            xs = [x for p in PEOPLE[nb:k] for x in bare.get(p, [])]
            if len(bare) < k - nb:
                print(f"| (the other {k - nb} assessors over bare websockets: only "
                      f"{len(bare)} finished) | | | | |")
            elif xs:
                print(f"| (the other {k - nb} assessors, bare websockets at the same pace: "
                      f"key sent → the next document's bytes) | {statistics.median(xs):.1f} "
                      f"| {pct(xs, 95):.1f} | {max(xs):.1f} | {len(xs)} |")
        sizes = {o["size"] for o in outs}
        if sizes != {SIZE}:
            print(f"| (the browser's terminal was {sizes}, not {SIZE} as the terminal peers' "
                  "and the bare clients': the figures draw different screens) | | | | |")
        retried = sum(o.get("retries", 0) for o in outs)
        if retried:
            print(f"| (browser, {k}: {retried} key{'s' if retried > 1 else ''} dropped as "
                  "typed ahead and pressed again, left out) | | | | |")
        firsts[k] = [o["first_doc_ms"] for o in outs]
        if k > nb and starts:
            bare_starts[k] = list(starts.values())
        splits[k] = [o["page_split"] for o in outs]
        agains[k] = [o["again_ms"] for o in outs]
        topics[k] = [o["topics_ms"] for o in outs]
        browser_rows(k, outs, cpu, relay, peers, k * args.judgments)
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
        if k in bare_starts:
            ts = [x["topics"] + x["first_doc"] for x in bare_starts[k]]
            print(f"  the other {len(ts)} (bare websockets, signed in a second apart after "
                  f"the browser): websocket opened → topic list → Enter → first document "
                  f"median {statistics.median(ts):.0f} ms, max {max(ts):.0f} ms (the page's "
                  "own loading, ~0.3 s in the browser, not included)")
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
