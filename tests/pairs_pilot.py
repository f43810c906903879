"""Judging preferences through the real pairs screen (Textual's Pilot) as a simulated
assessor: the keys an assessor presses, chosen by a function of the pair shown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from relkit.judging.store.assign import Store
from relkit.judging.tui.app import Settings, make_app
from relkit.judging.tui.pairs import ANSWER_KEYS, PairsScreen

KEY = {answer: key for key, answer in ANSWER_KEYS.items()}
Shown = tuple[str, str, str, str]  # topic, left, right, answer


def judge_pairs(store: Store, assessor: str, answer: Callable[[str, str, str], str], *,
                strategy: str = "all-pairs", topics: Sequence[str] | None = None,
                limit: int | None = None, size: tuple[int, int] = (100, 30)) -> list[Shown]:
    """Open each topic (all the assessor's, or ``topics``) on the pairs screen and press
    ``answer(topic, left, right)``'s key for every pair shown until the strategy is done
    (or ``limit`` answers in all); what was shown and answered, in order."""
    app = make_app(store, assessor, Settings(keymap_path=None, clock=lambda: 0.0, pairs=True,
                                             pair_strategy=strategy))
    shown: list[Shown] = []

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for topic in app.view.topics():
                if topics is not None and topic.key not in topics:
                    continue
                app.open_topic(topic)
                await pilot.pause()
                screen = app.screen
                assert isinstance(screen, PairsScreen), type(screen)
                while screen.pair is not None and (limit is None or len(shown) < limit):
                    left, right = screen.pair
                    said = answer(topic.key, left, right)
                    shown.append((topic.key, left, right, said))
                    await pilot.press(KEY[said])
                    await pilot.pause()
                    assert app.pair_outbox.record is None  # committed before the next pair
                await pilot.press("escape")
                await pilot.pause()

    asyncio.run(main())
    return shown


def state_line(store: Store, assessor: str, topic: str, strategy: str) -> str:
    """What the pairs screen of ``topic`` says under the pair when it opens."""
    app = make_app(store, assessor, Settings(keymap_path=None, clock=lambda: 0.0, pairs=True,
                                             pair_strategy=strategy))
    out: list[Any] = []

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.open_topic(next(t for t in app.view.topics() if t.key == topic))
            await pilot.pause()
            out.append(str(app.screen.query_one("#pair-state").render()))
            out.append(app.screen.pair)  # type: ignore[attr-defined]

    asyncio.run(main())
    return f"{out[0]}|{out[1]}"
