"""Pairs screen benchmark (issue 38): answer key → next pair painted, against the graded
screen's grade key → next document painted, at the same document sizes.

    .venv/bin/python bench/tui_pairs_bench.py [--answers 100] [--docs 30]

Both loops drive the real app headless with Textual's Pilot on a real SQLite store
(bench/tui_bench.py's ``build``: random words from one vocabulary) at 100x40, as
``relkit judge`` runs it (``idle_gc``). Key → painted: from the key being sent to the end
of the first frame written (``App._display``) after the screen drew the next item, with
the committed save in between. Goal: the pairs p95 within 1.2x the graded p95.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_bench import build, grade_loop, pct  # noqa: E402

from relkit.judging.tui.app import Settings, make_app  # noqa: E402
from relkit.judging.tui.pairs import PairsScreen  # noqa: E402


async def pairs_loop(store: Any, n: int) -> list[float]:
    app = make_app(store, "ann", Settings(min_view=0.0, idle_gc=True, pairs=True))
    sent: list[float] = []
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PairsScreen)
        shown: list[Any] = [None]
        frames: list[tuple[float, Any]] = []
        show, display = screen.show, app._display

        def timed_show(pair: Any) -> None:
            show(pair)
            shown[0] = pair

        def timed_display(target: Any, renderable: Any) -> None:
            display(target, renderable)
            if renderable is not None:
                frames.append((time.perf_counter(), shown[0]))

        screen.show = timed_show  # type: ignore[method-assign]
        app._display = timed_display
        for i in range(n):
            before = screen.pair
            frames.clear()
            t0 = time.perf_counter()
            await pilot.press("1230"[i % 4])
            await pilot.pause()
            assert screen.pair is not None and screen.pair != before
            painted = [t for t, pair in frames if pair == screen.pair]
            assert painted, "the next pair was never painted"
            sent.append((painted[0] - t0) * 1000)
        app._display = display
    return sent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--answers", type=int, default=100)
    ap.add_argument("--docs", type=int, default=30, help="documents in the topic's pool "
                    "(pairs: n(n-1)/2; must exceed --answers)")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}\n")
    print("| document | graded key→painted p50 / p95 ms | pairs key→painted p50 / p95 ms "
          "| pairs p95 / graded p95 |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for words in (300, 3000):
            graded = build(Path(tmp) / f"g{words}.db", args.answers + 10, words)
            _, _, g, _, _ = asyncio.run(grade_loop(graded, args.answers))
            pairs = build(Path(tmp) / f"p{words}.db", args.docs, words)
            p = asyncio.run(pairs_loop(pairs, args.answers))
            print(f"| {words} words | {statistics.median(g):.1f} / {pct(g, 95):.1f} | "
                  f"{statistics.median(p):.1f} / {pct(p, 95):.1f} | "
                  f"{pct(p, 95) / pct(g, 95):.2f} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
