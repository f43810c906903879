"""Driving the judging app headless (Textual's Pilot), for the TUI tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.judge import JudgeScreen


class Clock:
    """A hand-driven clock for dwell times."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def drive(store: Store, steps: Callable[[Any, JudgeApp, Clock], Awaitable[None]],
          size: tuple[int, int] = (80, 24), **settings: Any) -> Clock:
    """Run ``steps(pilot, app, clock)`` in a fresh app judging as ``ann``; return the clock.

    ``settings`` override :class:`Settings` fields (``min_view=0``...)."""
    clock = Clock()
    app = make_app(store, "ann", Settings(**({"keymap_path": None, "idle_after": 30.0,
                                              "clock": clock} | settings)))

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await steps(pilot, app, clock)

    asyncio.run(main())
    return clock


async def read_and_press(pilot: Any, clock: Clock, *keys: str, seconds: float = 2.0) -> None:
    """Press ``keys`` one by one, each after ``seconds`` with the document on screen
    (a grade key on a document shown for less than ``Settings.min_view`` is dropped)."""
    for key in keys:
        clock.t += seconds
        await pilot.press(key)
        await pilot.pause()


def screen(app: JudgeApp) -> JudgeScreen:
    assert isinstance(app.screen, JudgeScreen), type(app.screen)
    return app.screen
