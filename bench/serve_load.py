"""`relkit serve` under load: N browsers judging at once for a while, on PostgreSQL.

    RELKIT_TEST_PG=postgresql://postgres@127.0.0.1:54329/postgres \\
        .venv/bin/python bench/serve_bench.py --load 60 [--assessors 1 4 8]

For each N: a fresh PostgreSQL database, a real `relkit serve`, N real headless Chromium
sessions (bench/serve_bench.py's: Selenium, the page's own timing script), each signed in
as its own assessor, all at once from this one address (as behind a reverse proxy). They
open their topic, wait for each other and for the machine to settle, then grade for the
given seconds, each at a person's pace: a key 1.2 s after the previous document was
painted (past the app's ``min_view``). A key's time runs from its keydown to the next
document painted (the app shows it once the grade is committed: its confirmation).

Reported per N, in one table: keys sent; keys the app said it ignored (typed ahead: a
document on screen for less than ``min_view`` when the app read the key; pressed
again, as a person would); judgments stored (read from the database after the run) and
their history rows, which must equal the keys sent less those ignored (no key lost, no
key stored twice); key → confirmation p50 and p95; p95 over the 1-browser run's (goal:
8 browsers at <= 2x on a quiet machine); RSS of each session's app process (sampled
every second: median and max); the load average (1 min) at the start and the end of
the run, since on a shared machine the times say as much about the others as about
relkit.

``--load-client ws`` sends the same keys at the same pace from bare websockets (aiohttp,
as the page sends them) instead of Chromium: the load generator then takes a few percent
of the cores instead of a third, so the table shows how relkit's side (server, sessions,
PostgreSQL) holds up with N assessors whose browsers run on their own computers.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from serve_bench import PEOPLE, SIZE, build, docno, settled
from serve_measure import GROUPS, cpu_by_group, fresh_pg, relay_keys, rss_of_sessions
from tui_bench import pct

from serve_helpers import FIND, WAIT_PAINTED, Served, chrome, press, wait_until

THINK = 1.2         # s between a document painted and the next grade key (> min_view, 1 s)


def judge_for(url: str, token: str, seconds: float, out: dict[str, Any],
              ready: Any) -> None:
    """One browser: sign in, open the topic, grade for ``seconds``; counts and key →
    confirmation times (ms) into ``out``."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By

    browser = chrome()
    browser.set_script_timeout(20)
    try:
        browser.get(url)
        browser.find_element(By.ID, "token").send_keys(token)
        browser.find_element(By.ID, "signin").click()
        wait_until(lambda: browser.execute_script(FIND, 0, "Enter opens a topic"),
                   "the topic list", 120)
        browser.find_element(By.ID, "terminal").click()
        time.sleep(0.3)
        k0 = browser.execute_script("return performance.now()")
        press(browser, "\ue007")
        wait_until(lambda: browser.execute_script(FIND, k0, docno(0)),
                   "the first document", 60)
        ready()
        sent = ignored = unanswered = done = 0
        lat: list[float] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(THINK)
            k = browser.execute_script("return performance.now()")
            press(browser, str(done % 4))
            sent += 1
            try:
                painted = browser.execute_async_script(WAIT_PAINTED, k, docno(done + 1))
            except TimeoutException:
                if browser.execute_script(FIND, k, "ignored"):
                    ignored += 1          # said on screen: pressed again next round
                else:
                    unanswered += 1       # neither the next document nor a word: stop
                    break
                continue
            keydown = browser.execute_script(
                "return window.__rk.keys.filter(x => x >= arguments[0])[0]", k)
            lat.append(painted - keydown)
            done += 1
        out.update(sent=sent, ignored=ignored, unanswered=unanswered, done=done, lat=lat)
    finally:
        browser.quit()


def judge_ws(url: str, token: str, seconds: float, out: dict[str, Any],
              ready: Any) -> None:
    """One bare websocket instead of a browser (``--load-client ws``): the same topic,
    pace and keys, key → first message carrying the next document's id; the client's
    own CPU is a fraction of Chromium's, so the cores are left to relkit's side."""
    n = max(1, int(seconds / THINK))
    try:
        lat = relay_keys(url, token, n, docno, size=SIZE, think=THINK, ready=ready)
    except (RuntimeError, TimeoutError) as exc:       # a key never answered
        out.update(sent=n, ignored=0, unanswered=1, done=0, lat=[], error=str(exc))
        return
    out.update(sent=n, ignored=0, unanswered=0, done=n, lat=lat)


def stored(url: str, people: list[str]) -> tuple[int, int]:
    """(judgments, history rows) of ``people`` in the database."""
    from sqlalchemy import text

    from relkit.judging.store.connection import make_engine

    engine = make_engine(url, readonly=True)
    try:
        with engine.connect() as conn:
            rows = [conn.execute(text(
                f"SELECT COUNT(*) FROM {table} x JOIN assessor a ON a.id = x.assessor_id "
                "WHERE a.name = ANY(:p)"), {"p": people}).scalar_one()
                for table in ("judgment", "judgment_history")]
    finally:
        engine.dispose()
    return int(rows[0]), int(rows[1])


def run_one(admin: str, n: int, seconds: float, client: str = "browser") -> dict[str, Any]:
    """N browsers judging for ``seconds`` on a fresh database; the row's figures."""
    url, drop = fresh_pg(admin)
    try:
        # a document a second at most, per person, and some to spare
        toks = build(url, int(seconds / THINK) + 20)
        server = Served(url, Path(f"/tmp/relkit-serve-load-{os.getpid()}.log"),
                        spares=None)   # (the server's default, as users run it)
        try:
            wait_until(lambda: "warm: a browser" in server.log(), "warm spares", 120)
            people = PEOPLE[:n]
            outs: list[dict[str, Any]] = [{} for _ in people]
            started: list[float] = []      # the load average when grading starts

            cpu: list[tuple[float, dict[str, float]]] = []   # (time, CPU-s by group)

            def start() -> None:           # all signed in: the machine settles, then go
                settled()
                started.append(os.getloadavg()[0])
                cpu.append((time.monotonic(), cpu_by_group()))

            ready = threading.Barrier(n, action=start, timeout=300).wait
            target = judge_ws if client == "ws" else judge_for
            threads = [threading.Thread(target=target, args=(server.url, toks[p],
                                                                seconds, o, ready))
                       for p, o in zip(people, outs, strict=True)]
            for t in threads:
                t.start()
                time.sleep(0.5)
            rss: list[int] = []
            while any(t.is_alive() for t in threads):
                # n sessions and the warm spare (smaller: no app yet): the n largest
                got = sorted(rss_of_sessions(), reverse=True)[:n]
                if started and len(got) == n:
                    rss += got
                if started and all(t.is_alive() for t in threads):
                    # the grading window: every browser still grading
                    cpu[1:] = [(time.monotonic(), cpu_by_group())]
                time.sleep(1.0)
            for t in threads:
                t.join()
            load1 = os.getloadavg()[0]
        finally:
            server.stop()
        rows, history = stored(url, people)
    finally:
        drop()
    lat = [x for o in outs for x in o.get("lat", [])]
    return {"n": n, "sent": sum(o.get("sent", 0) for o in outs),
            "ignored": sum(o.get("ignored", 0) for o in outs),
            "unanswered": sum(o.get("unanswered", 0) for o in outs),
            "finished": sum(1 for o in outs if "lat" in o),
            "rows": rows, "history": history, "lat": lat, "rss": rss,
            "cpu": cpu_shares(cpu),
            "load": (started[0] if started else float("nan"), load1)}


def cpu_shares(cpu: list[tuple[float, dict[str, float]]]) -> dict[str, float]:
    """Each group's share (%) of the machine's cores over the grading window."""
    if len(cpu) < 2:
        return {}
    (t0, a), (t1, b) = cpu[0], cpu[-1]
    capacity = (t1 - t0) * (os.cpu_count() or 1)
    return {g: 100 * max(b[g] - a[g], 0.0) / capacity for g in a}


def main(admin: str, counts: list[int], seconds: float, client: str = "browser") -> int:
    """Run each N and print the table; 1 if a key was lost (sent and not stored)."""
    print(f"load test ({'bare websockets' if client == 'ws' else 'Chromium'} as the "
          f"clients): {os.cpu_count()} cores, {seconds:g} s of judging per run, a key "
          f"{THINK} s after each document; load average at start {os.getloadavg()[0]:.1f}")
    who = "websockets" if client == "ws" else "browsers"
    results = []
    for n in counts:
        results.append(run_one(admin, n, seconds, client))
        print(f"  ({n} {who[:-1]}{'s' if n > 1 else ''} done)", flush=True)
    base = next((r for r in results if r["n"] == 1 and r["lat"]), None)
    print(f"| {who} | keys sent | ignored (typed ahead) | judgments stored | history "
          f"rows | equal | key → confirmation p50 ms | p95 ms | p95 / 1 {who[:-1]} | RSS per "
          "session median / max MiB | load average start → end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    lost = False
    for r in results:
        want = r["sent"] - r["ignored"]
        equal = want == r["rows"] == r["history"] and r["unanswered"] == 0
        lost |= not equal
        lat = r["lat"]
        p50, p95 = (statistics.median(lat), pct(lat, 95)) if lat else (float("nan"),) * 2
        ratio = f"{p95 / pct(base['lat'], 95):.2f}x" if base and lat else "—"
        rss = (f"{statistics.median(r['rss']) / 1024:.0f} / {max(r['rss']) / 1024:.0f}"
               if r["rss"] else "—")
        note = ("yes" if equal else f"NO ({want} expected"
                + (f", {r['unanswered']} unanswered" if r["unanswered"] else "") + ")")
        if r["finished"] < r["n"]:
            note += f" ({r['finished']} of {r['n']} {who} finished)"
        print(f"| {r['n']} | {r['sent']} | {r['ignored']} | {r['rows']} | {r['history']} | "
              f"{note} | {p50:.0f} | {p95:.0f} | {ratio} | {rss} | "
              f"{r['load'][0]:.1f} → {r['load'][1]:.1f} |")
    print()
    print(f"Where the cores went while every client graded (% of all {os.cpu_count()} "
          "cores; the clients are the load generator, on this machine; a bare websocket's "
          "share is in everything else):")
    names = [g for g, _ in GROUPS]
    print(f"| {who} | " + " | ".join(names) + " | everything else | idle |")
    print("|---|" + "---|" * (len(names) + 2))
    for r in results:
        c = r["cpu"]
        if not c:
            continue
        other = c["all"] - sum(c[g] for g in names)
        print(f"| {r['n']} | " + " | ".join(f"{c[g]:.0f}%" for g in names)
              + f" | {max(other, 0):.0f}% | {max(100 - c['all'], 0):.0f}% |")
    return 1 if lost else 0
