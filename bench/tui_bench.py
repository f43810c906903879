"""TUI benchmark: grade key to the next document on screen, and start-up time.

    .venv/bin/python bench/tui_bench.py [--judgments 200] [--items 100000] [--listed 2000]

Drives the real app headless with Textual's Pilot on a real SQLite store; each
measured step is ``press(grade)`` + ``pause()``: key handling, the committed
save, loading the next document and rendering it. Start-up is from building
the app to the first document of a topic on screen, with ``--items`` assigned.
Targets (issue 16): key to painted p95 <= 16 ms for 300-word passages, <= 33 ms
for 3,000-word documents; a modal (help, note, revise) open in under 50 ms;
start-up < 1 s with 100,000 items (the whole process, from outside:
``bench/tui_tmux_bench.py``). To measure another checkout (before/after), run
this file with ``PYTHONPATH`` pointing at its installed-shape tree
(``.ci/srctree.py`` builds one under ``build/srctree``).

``--cal`` measures only key → painted for a ``cal`` pool (from the collection) against
a static random pool over the same made-up documents (``--cal-docs``, default Vaswani's
11,429; ``--cal-words`` each), the assessor reading ``--read`` seconds before each key
(not timed: cal's next batch trains in the background then). Target (issue 36): cal's
p95 within 1.2x the random pool's.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cal_keys  # noqa: E402  (bench/cal_keys.py: each cal key's kind)

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.store.assign import Store  # noqa: E402
from relkit.judging.tui.app import Settings, make_app  # noqa: E402
from relkit.judging.tui.docview import DocView  # noqa: E402
from relkit.judging.tui.judge import JudgeScreen  # noqa: E402

WORDS = ["solar", "panel", "energy", "grid", "storage", "battery", "cell", "efficiency",
         "cost", "install", "roof", "inverter", "power", "sun", "light", "heat", "home",
         "market", "policy"]


def text(n: int, rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def build(path: Path, items: int, words: int) -> Store:
    rng = random.Random(0)
    store = Store.open(path)
    docs = [Document(f"D{i:06d}", f"Title {i}", text(words, rng)) for i in range(items)]
    store.create_collection("b", TREC_DL, [Topic("1", "solar panel efficiency",
                                                  "Find documents on panel efficiency.")],
                            docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"], ordering="random", seed=1)
    return store


def zipf_text(n: int, rng: random.Random, vocab: list[str], weights: list[float]) -> str:
    return " ".join(rng.choices(vocab, weights, k=n))


def build_cal(path: Path, docs_n: int, words: int, strategy: str) -> Store:
    """``docs_n`` documents of ``words`` words (a Zipfian vocabulary of 20,000 made-up
    words plus the topic's), one topic, and a pool over all of them: ``cal`` from the
    collection (adaptive, budget 1,000) or ``random`` (static, the same documents)."""
    from relkit.judging.store.adaptive import Definition, import_pool
    from relkit.pooling.cal.strategy import with_collection
    from relkit.pooling.candidates import Candidates

    rng = random.Random(0)
    vocab = WORDS + [f"w{i}" for i in range(20_000)]
    weights = [1 / (k + 1) for k in range(len(vocab))]
    rng.shuffle(weights)
    docs = [Document(f"D{i:06d}", f"Title {i}", zipf_text(words, rng, vocab, weights))
            for i in range(docs_n)]
    store = Store.open(path)
    store.create_collection("b", TREC_DL, [Topic("1", "solar panel efficiency",
                                                  "Find documents on panel efficiency.")],
                            docs)
    ids = [d.id for d in docs]
    if strategy == "cal":
        cands = Candidates({"1": {"r": ids[:100]}}, {"1": {"r": [0.0] * 100}}, 100)
        cands = with_collection(cands, ids)
        import_pool(store, cands, Definition("cal", {"from": "collection"}, seed=1,
                                             budget=1000), name="p")
        store.assign(["ann"])
    else:
        store.import_pool([("1", d) for d in ids], name="p")
        store.assign(["ann"], ordering="random", seed=1)
    return store


def cal_rows(args: Any, tmp: str) -> None:
    """``--cal``: key → next document for a cal pool against a random pool over the same
    documents, the assessor reading ``--read`` seconds before each key; ``--cal-rounds``
    alternates the two pools. CPU ms/grade is the judging process's (all its threads);
    the training process's (pooling/cal/worker.py, where the tree has one) is apart."""
    print(f"cal pool vs random pool, same {args.cal_docs:,} documents, {args.cal_judgments} "
          f"grades, {args.read:.2f} s reading before each key (not timed)\n")
    print("| round | pool | document | docs | key→painted p50 | p95 | max | CPU ms/grade "
          "| training process CPU ms/grade | load average |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    cal_keys.install()
    breakdown: list[str] = []
    for words in args.cal_words:
        for r in range(1, args.cal_rounds + 1):
            for strategy in ("random", "cal"):
                store = build_cal(Path(tmp) / f"{strategy}{words}-{r}.db", args.cal_docs,
                                  words, strategy)
                _, _, sent, _, cpu = asyncio.run(grade_loop(store, args.cal_judgments,
                                                            read=args.read))
                apart = TRAINER_CPU[-1]
                print(f"| {r} | {strategy} | {words} words | {args.cal_docs:,} | "
                      f"{statistics.median(sent):.1f} | {pct(sent, 95):.1f} | "
                      f"{max(sent):.1f} | {cpu:.1f} | "
                      f"{'-' if apart is None else f'{apart:.1f}'} | "
                      f"{os.getloadavg()[0]:.2f} |", flush=True)
                warm = "" if WARMS[-1] is None else f", after {WARMS[-1]:.0f} ms on the list"
                breakdown += cal_keys.rows(f"{r} {strategy} (open {OPENS[-1]:.0f} ms{warm})",
                                           KEYS[-1])
    print("\nper key kind (bench/cal_keys.py; open: the topic's opening key, Enter to "
          "Pilot's pause, wall ms; where the app warms the topics up, Enter comes once it "
          "has, the list on screen meanwhile)\n")
    print(cal_keys.HEADER)
    print("\n".join(breakdown), flush=True)


TRAINER_CPU: list[float | None] = []   # per grade loop: the training process's CPU ms/grade
KEYS: list[list[tuple[str, bool, float]]] = []   # per grade loop: (kind, wrapped ahead, ms)
OPENS: list[float] = []   # per grade loop: the topic's opening key, wall ms to the pause
# per grade loop (--cal): ms the topic list was on screen while the app warmed the topics
# up in its thread (judging/tui/app.py; None: a tree without it, Enter came at once)
WARMS: list[float | None] = []


def trainer_cpu() -> float | None:
    """CPU seconds the cal training process has used (None: the tree trains in threads
    or none has started)."""
    try:
        from relkit.pooling.cal import worker
    except ImportError:
        return None
    w = worker._SHARED[0] if worker._SHARED else None
    if w is None or w.pid is None:
        return None
    try:
        with open(f"/proc/{w.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def grade_loop(store: Store, n: int, draw_ahead: bool = False,
                     read: float = 0.0) -> Any:
    """(grade-key times, no-op-key times, key-to-painted times).

    The first two are Pilot's wall time per ``press`` + ``pause`` (Pilot polls for
    idleness in 20 ms sleeps, so they carry its overhead: the no-op key shows how
    much). The third is exact: from the key being sent to the end of the first
    frame written to the (headless) terminal with the next document's lines in it,
    with the committed save, the queries and the drawing in between. ``read``: seconds
    the assessor reads each document before the key (not timed; ``--cal``).
    """
    # min_view=0: the harness presses as fast as it can; the 200 ms on-screen minimum
    # is a deliberate wait for the assessor, not part of the latency measured here.
    fields = {"min_view": 0.0, "draw_ahead": draw_ahead}
    for name in ("idle_gc", "freeze_heap"):  # as `relkit judge` runs it (older: freeze)
        if name in {f.name for f in dataclasses.fields(Settings)}:
            fields[name] = True
    app = make_app(store, "ann", Settings(**fields))
    times: list[float] = []
    idle: list[float] = []
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        t0 = time.perf_counter()
        warming = getattr(app, "warming", None)
        while read and warming is not None and warming.is_alive() \
                and time.perf_counter() - t0 < 30:
            await asyncio.sleep(0.05)   # the assessor reads the topic list meanwhile
        WARMS.append((time.perf_counter() - t0) * 1000 if warming is not None else None)
        t0 = time.perf_counter()
        await pilot.press("enter")
        await pilot.pause()
        OPENS.append((time.perf_counter() - t0) * 1000)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        # Painted: the end of the first frame written (``App._display``, which the headless
        # driver also goes through) after the document pane drew the next document's lines.
        doc = screen.query_one(DocView)
        drawn: list[str | None] = [None]  # the document the pane drew last
        frames: list[tuple[float, str | None]] = []
        render_lines, display = doc.render_lines, app._display

        def render(crop: Any) -> Any:
            drawn[0] = doc.wrapped.key if doc.wrapped else None
            return render_lines(crop)

        def timed_display(target: Any, renderable: Any) -> None:
            display(target, renderable)
            if renderable is not None:
                frames.append((time.perf_counter(), drawn[0]))

        doc.render_lines = render  # type: ignore[method-assign]
        app._display = timed_display
        sent: list[float] = []
        for _ in range(min(n, 50)):
            t0 = time.perf_counter()
            await pilot.press("x")  # bound to nothing: the harness's cost per key
            await pilot.pause()
            idle.append((time.perf_counter() - t0) * 1000)
        cpu0 = time.process_time()
        apart0 = trainer_cpu()
        began = time.perf_counter()
        keys: list[tuple[str, bool, float]] = []
        for i in range(n):
            before = screen.item.position if screen.item else 0
            if read:
                await asyncio.sleep(read)  # the assessor reads: background work runs now
            frames.clear()
            ready = getattr(screen, "ready", None)
            cal_keys.EVENTS.clear()
            t0 = time.perf_counter()
            await pilot.press(str(i % 4))
            await pilot.pause()
            times.append((time.perf_counter() - t0) * 1000)
            assert screen.item is not None and screen.item.position != before
            painted = [t for t, key in frames if key == screen.item.doc]
            assert painted, "the next document was never painted"
            sent.append((painted[0] - t0) * 1000)
            keys.append((cal_keys.kind(i == 0), ready is not None
                         and getattr(ready, "key", None) == screen.item.doc, sent[-1]))
        KEYS.append(keys)
        cpu = (time.process_time() - cpu0) * 1000 / n
        apart1 = trainer_cpu()
        TRAINER_CPU.append(None if apart1 is None else (apart1 - (apart0 or 0.0)) * 1000 / n)
        PASS_NOTES.append(f"full collector passes during the {n} timed grades: "
                          f"{full_passes_since(began)}")
        app._display = display
        modals = await open_modals(pilot, app)
    return times, idle, sent, modals, cpu


Opens = dict[str, list[tuple[float, float]]]

# The cycle collector's full (generation-2) passes, (ms, when the pass ended): with
# `relkit judge`'s settings they wait for a second without input (judging/tui/heap.py).
FULL_PASSES: list[tuple[float, float]] = []
_pass_began = [0.0]


def _watch_full_passes(phase: str, info: dict[str, int]) -> None:
    if info["generation"] != 2:
        return
    if phase == "start":
        _pass_began[0] = time.perf_counter()
    else:
        FULL_PASSES.append(((time.perf_counter() - _pass_began[0]) * 1000, time.perf_counter()))


def full_passes_since(t0: float) -> str:
    ms = [d for d, end in FULL_PASSES if end >= t0]
    return f"{len(ms)}" + (f" ({', '.join(f'{d:.0f}' for d in ms)} ms)" if ms else "")


async def open_modals(pilot: Any, app: Any, repeats: int = 20) -> Opens:
    """(wall ms, CPU ms) from the key to the first screen update the modal draws
    (``App._display``, which the headless driver also goes through up to the terminal
    write). The first of each list is the first open in the session."""
    out: Opens = {}
    drawn: list[tuple[float, float, object]] = []
    display = app._display

    def timed_display(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            drawn.append((time.perf_counter(), time.process_time(), screen))
        display(screen, renderable)

    app._display = timed_display
    began = time.perf_counter()
    for name, key in (("help", "question_mark"), ("note", "n"), ("revise", "r")):
        for _ in range(repeats):
            before = app.screen
            drawn.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await pilot.pause()
            modal = app.screen
            assert modal is not before, f"the {name} screen never opened"
            t, c = next((t, c) for t, c, screen in drawn if screen is modal)
            out.setdefault(name, []).append(((t - t0) * 1000, (c - c0) * 1000))
            await pilot.press("escape")
            await pilot.pause()
    app._display = display
    during = full_passes_since(began)
    idle = time.perf_counter()
    await asyncio.sleep(1.6)  # the assessor reads: the keeper's pass runs now
    PASS_NOTES.append(f"full collector passes during the {3 * repeats} timed opens: {during}; "
                      f"in the next 1.6 s without input: {full_passes_since(idle)}")
    return out


PASS_NOTES: list[str] = []


async def modals_with_listed(store: Store) -> Opens:
    """The modals opened on a topic whose judgments were recorded beforehand (the revise
    list then lists them all), as ``relkit judge`` runs (``idle_gc``)."""
    fields: dict[str, Any] = {"min_view": 0.0}
    for name in ("idle_gc", "freeze_heap"):
        if name in {f.name for f in dataclasses.fields(Settings)}:
            fields[name] = True
    app = make_app(store, "ann", Settings(**fields))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        return await open_modals(pilot, app)


def listed_store(path: Path, listed: int, words: int) -> Store:
    """A store with ``listed`` judgments recorded through the API (one commit each)."""
    store = build(path, listed + 10, words)
    view = store.assessor("ann")
    for item in view.items("1")[:listed]:
        view.record(topic="1", doc=item.doc, grade=item.position % 4)
    return store


def modal_rows(label: str, modals: Opens) -> None:
    for name, xs in modals.items():
        wall, cpu = [w for w, _ in xs], [c for _, c in xs]
        print(f"| {label} | {name} | {statistics.median(wall):.1f} | {pct(wall, 95):.1f} | "
              f"{max(wall):.1f} | {wall[0]:.1f} | {statistics.median(cpu):.1f} | "
              f"{pct(cpu, 95):.1f} |")


def commit_floor(path: Path, n: int) -> list[float]:
    """ms per one-row SQLite transaction with the store's settings (WAL, synchronous=FULL):
    the fsync every grade waits for, on the same disk at the same time."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = FULL")
    con.execute("CREATE TABLE IF NOT EXISTS t (a INTEGER PRIMARY KEY, b TEXT)")
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO t (b) VALUES (?)", (f"judgment {i}",))
        con.execute("COMMIT")
        out.append((time.perf_counter() - t0) * 1000)
    con.close()
    return out


async def startup(store: Store) -> float:
    t0 = time.perf_counter()
    app = make_app(store, "ann", Settings())
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen) and app.screen.item is not None
        return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judgments", type=int, default=200)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--listed", type=int, nargs="*", default=[2000],
                    help="also open the modals on a topic with this many judgments recorded "
                         "beforehand (the revise list's length; default 2000)")
    ap.add_argument("--draw-ahead", action="store_true",
                    help="draw the next document while the grade commits (off by default: "
                         "the screen moves on after the commit)")
    ap.add_argument("--cal", action="store_true",
                    help="only compare a cal pool with a random pool over the same documents")
    ap.add_argument("--cal-docs", type=int, default=11_429,
                    help="documents in the --cal collection (default: Vaswani's 11,429)")
    ap.add_argument("--cal-words", type=int, nargs="*", default=[300],
                    help="words per document of the --cal collection (default 300)")
    ap.add_argument("--cal-judgments", type=int, default=60)
    ap.add_argument("--cal-rounds", type=int, default=1,
                    help="--cal: rounds of the random pool then the cal pool (alternating)")
    ap.add_argument("--read", type=float, default=0.5,
                    help="--cal: seconds the assessor reads before each key (default 0.5)")
    args = ap.parse_args()
    gc.callbacks.append(_watch_full_passes)
    with tempfile.TemporaryDirectory() as tmp:
        if args.cal:
            cal_rows(args, tmp)
            return 0
        print("mode:", "next document drawn while the grade commits" if args.draw_ahead
              else "the screen moves on after the commit (default)")
        print("Pilot columns: wall time of press(key) + pause(), which includes Pilot's\n"
              "idle polling ('no-op key' is a key bound to nothing). key→painted: from the\n"
              "key sent to the end of the first frame written with the next document.\n")
        print("CPU ms/grade: the process's CPU time (all threads) over the grade loop, per\n"
              "grade, Pilot included. commit floor: a one-row SQLite commit with the store's\n"
              "settings (WAL, synchronous=FULL) in the same directory just before: the\n"
              "fsync each grade waits for; 'p95 / floor' is key→painted p95 over its p95.\n")
        print(f"load average before: {os.getloadavg()[0]:.1f}\n")
        print("| document | Pilot p50 ms | Pilot p95 ms | key→painted p50 | key→painted p95 "
              "| max | CPU ms/grade | commit floor p50 / p95 | p95 / floor | target p95 |\n"
              "|---|---|---|---|---|---|---|---|---|---|")
        opens: list[tuple[int, Opens]] = []
        for words, target in ((300, 16), (3000, 33)):
            store = build(Path(tmp) / f"w{words}.db", args.judgments + 10, words)
            floor = commit_floor(Path(tmp) / f"floor{words}.db", min(args.judgments, 100))
            ts, idle, sent, modals, cpu = asyncio.run(
                grade_loop(store, args.judgments, args.draw_ahead))
            opens.append((words, modals))
            print(f"| no-op key | {statistics.median(idle):.1f} | {pct(idle, 95):.1f} "
                  "| | | | | | | |")
            print(f"| {words} words | {statistics.median(ts):.1f} | {pct(ts, 95):.1f} | "
                  f"{statistics.median(sent):.1f} | {pct(sent, 95):.1f} | {max(sent):.1f} | "
                  f"{cpu:.1f} | {statistics.median(floor):.1f} / {pct(floor, 95):.1f} | "
                  f"{pct(sent, 95) / max(pct(floor, 95), 0.01):.1f} | {target} |")
        print(f"\nload average after: {os.getloadavg()[0]:.1f}")
        print("\nmodal open, key → first update drawn (ms; target 50; 20 opens each, the "
              "first one in the session included; revise lists the judged documents):\n\n"
              "| document, judged listed | modal | p50 | p95 | max | first | CPU p50 | CPU p95 |"
              "\n|---|---|---|---|---|---|---|---|")
        for words, modals in opens:
            modal_rows(f"{words} words, {args.judgments}", modals)
        for listed in args.listed:
            store = listed_store(Path(tmp) / f"listed{listed}.db", listed, 300)
            modal_rows(f"300 words, {listed:,}", asyncio.run(modals_with_listed(store)))
        store = build(Path(tmp) / "big.db", args.items, 40)
        s = asyncio.run(startup(store))
        print(f"\nstart-up to the first document, {args.items:,} items assigned: {s:.2f} s")
        print("\ncycle collector (judging/tui/heap.py: full passes run after the frame a key "
              "asked for, or when input pauses):")
        for note in PASS_NOTES:
            print(f"- {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
