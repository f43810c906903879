"""The judging screen's heap over a session: objects alive, RSS and the cycle collector.

    .venv/bin/python bench/tui_heap_bench.py [--opens 200] [--grades 200]

One process per variant, each driving the real app headless (Pilot, a real SQLite
store, 300-word documents) through the same keys: ``--opens`` rounds of help, note
and revise opened and closed, and ``--grades`` grades. Printed per variant, after every
quarter of the rounds: the tracked objects alive after a full collection, the process's
RSS, and the full collector passes so far (count, total and longest ms). Variants:

- ``relkit``: as ``relkit judge`` runs (judging/tui/leaks.py's plugs, heap.py's keeper);
- ``no-plugs``: the same with Textual's own ``Footer`` and ``StylesCache`` (the leaks);
- ``no-keeper``: the plugs, and CPython's automatic full passes instead of the keeper.

No timing assertion; the figures go to bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("relkit", "no-plugs", "no-keeper")


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run(variant: str, opens: int, grades: int) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "bench"))
    from tui_bench import build

    from relkit.judging.tui import judge, leaks
    from relkit.judging.tui.app import Settings, make_app

    if variant == "no-plugs":
        from textual.widgets import Footer

        leaks.plug = lambda: None  # type: ignore[assignment]
        judge.Footer = Footer  # type: ignore[misc]
    passes: list[float] = []
    began = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                began[0] = time.perf_counter()
            else:
                passes.append((time.perf_counter() - began[0]) * 1000)

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = build(Path(tmp) / "s.db", grades + 10, 300)
        app = make_app(store, "ann", Settings(min_view=0.0, idle_gc=variant != "no-keeper"))

        async def main() -> None:
            async with app.run_test(size=(100, 40)) as pilot:
                await pilot.pause()
                await pilot.press("enter")
                await pilot.pause()
                if variant == "no-keeper":
                    gc.freeze()  # as before the keeper: start-up frozen, passes automatic
                gc.callbacks.append(watch)
                for i in range(opens):
                    for key in ("question_mark", "escape", "n", "escape", "r", "escape"):
                        await pilot.press(key)
                        await pilot.pause()
                    if i < grades:
                        await pilot.press(str(i % 4))
                        await pilot.pause()
                    if (i + 1) % max(1, opens // 4) == 0:
                        gc.callbacks.remove(watch)
                        gc.collect()
                        rows.append({"rounds": i + 1, "objects": len(gc.get_objects()),
                                     "rss": rss_mib(), "passes": len(passes),
                                     "pass_ms": sum(passes),
                                     "longest": max(passes, default=0.0)})
                        gc.callbacks.append(watch)
                gc.callbacks.remove(watch)

        asyncio.run(main())
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opens", type=int, default=200)
    ap.add_argument("--grades", type=int, default=200)
    ap.add_argument("--variant", choices=VARIANTS)
    args = ap.parse_args()
    if args.variant:
        print(json.dumps(run(args.variant, args.opens, args.grades)))
        return 0
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.opens} rounds of help, "
          f"note and revise opened and closed, a grade after each (up to {args.grades})\n")
    print("| variant | rounds | objects alive | RSS MiB | full passes | their total ms "
          "| longest ms |\n|---|---|---|---|---|---|---|")
    for variant in VARIANTS:
        out = subprocess.run([sys.executable, __file__, "--variant", variant,
                              "--opens", str(args.opens), "--grades", str(args.grades)],
                             capture_output=True, text=True, check=True)
        for r in json.loads(out.stdout.strip().splitlines()[-1]):
            print(f"| {variant} | {r['rounds']} | {r['objects']:,} | {r['rss']:.0f} "
                  f"| {r['passes']} | {r['pass_ms']:.0f} | {r['longest']:.0f} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
