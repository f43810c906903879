"""Snapshots of each screen at 80x24 (pytest-textual-snapshot; SVGs in __snapshots__).

Update after an intended change with: pytest tests/test_tui_snapshots.py --snapshot-update
The README's screenshots are some of these SVGs, copied to docs/img/ by
``python docs/export_screens.py`` (checked below: they cannot drift).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import Settings, make_app

# SVG snapshots depend on Textual's renderer: compare them only under the Textual
# version that made them (a newer one renders differently without anything being wrong).
_MADE_WITH = (Path(__file__).parent / "snapshots_textual_version.txt").read_text().strip()
pytestmark = pytest.mark.skipif(
    __import__("textual").__version__ != _MADE_WITH,
    reason=f"snapshots were made with Textual {_MADE_WITH}; re-run with --snapshot-update "
           "and update tests/snapshots_textual_version.txt")


TEXT = ("Monocrystalline solar panels convert about twenty percent of sunlight "
        "into electricity; this report compares panels installed in 2019 with "
        "newer models. [bold]Markup stays literal.[/bold]")
# A document longer than a short screen (the snapshots at 80x16 show how much of it fits).
LONG = " ".join([TEXT.replace(" [bold]Markup stays literal.[/bold]", "")] * 8)


def _app(tmp_path: Path, text: str = TEXT) -> Any:
    store = Store.open(tmp_path / "snap.db")
    docs = [Document(f"d{i}", f"Panel efficiency report {i}", text) for i in range(3)]
    store.create_collection("snap", TREC_DL, [
        Topic("1", "solar panel efficiency", "How efficient are home solar panels?",
              "Relevant documents give measured efficiency figures."),
        Topic("2", "battery storage")], docs)
    store.import_pool([("1", d.id) for d in docs] + [("2", "d0")], name="p")
    store.assign(["ann"])
    store.assessor("ann").record(topic="1", doc="d0", grade=3)
    return make_app(store, "ann", Settings(clock=lambda: 0.0))


@pytest.mark.parametrize("keys,name", [
    ((), "topics"),
    (("enter",), "judge"),
    (("enter", "question_mark"), "help"),
    (("enter", "n"), "note"),
    (("enter", "r"), "revise"),
])
def test_screens(snap_compare: Any, tmp_path: Path, keys: tuple[str, ...], name: str) -> None:
    assert snap_compare(_app(tmp_path), press=list(keys), terminal_size=(80, 24))


def test_judge_screen_light_theme(snap_compare: Any, tmp_path: Path) -> None:
    app = _app(tmp_path)

    async def light(pilot: Any) -> None:
        pilot.app.theme = "textual-light"

    assert snap_compare(app, press=["enter"], terminal_size=(80, 24), run_before=light)


def test_skip_dialog(snap_compare: Any, tmp_path: Path) -> None:
    app = _app(tmp_path)
    app.settings = Settings(clock=lambda: 0.0, min_view=0.0)  # the key counts at once
    assert snap_compare(app, press=["enter", "s"], terminal_size=(80, 24))


def _lead_app(tmp_path: Path, text: str = TEXT.replace(" [bold]Markup stays literal.[/bold]",
                                                        "")) -> Any:
    from relkit.judging.store.adjudication import register_leads
    from relkit.judging.tui.lead import LeadApp

    store = Store.open(tmp_path / "lead.db")
    docs = [Document(f"d{i}", f"Panel efficiency report {i}", text) for i in range(3)]
    store.create_collection("snap", TREC_DL, [
        Topic("1", "solar panel efficiency", "How efficient are home solar panels?",
              "Relevant documents give measured efficiency figures.")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    ann.record(topic="1", doc="d0", grade=1, dwell_ms=8300, note="no figures for homes")
    bob.record(topic="1", doc="d0", grade=3, dwell_ms=21000, flagged=True)
    ann.record(topic="1", doc="d1", grade=2, dwell_ms=5000)
    bob.record(topic="1", doc="d1", grade=0, dwell_ms=3100)
    ann.record(topic="1", doc="d2", status="skipped", note="text is cut off")
    register_leads(store, ["lee"])
    return LeadApp(store, "lee")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_lead_screen(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(_lead_app(tmp_path), terminal_size=size)


def test_lead_help(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(_lead_app(tmp_path), press=["question_mark"], terminal_size=(80, 24))


def test_lead_change_dialog(snap_compare: Any, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Another grade on a decided pair: the dialog asking for the reason for the change,
    with the pair's decisions so far (their time stamp fixed: the history is append-only)."""
    from datetime import UTC, datetime

    from relkit.judging.store import decisions

    monkeypatch.setattr(decisions, "now", lambda: datetime(2026, 11, 28, 9, 30, tzinfo=UTC))
    app = _lead_app(tmp_path)
    decisions.adjudicate(app.store, "lee", "1", "d0", 3, "bob found the figures")
    assert snap_compare(app, press=["1"], terminal_size=(80, 24))


# The reading area (issue 33): a document longer than the screen, as most are, at the
# classic terminal, a middle size and the size from which the definitions are shown.
@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)],
                         ids=["80x24", "100x30", "120x40"])
def test_readme_judge_screen(snap_compare: Any, tmp_path: Path, size: tuple[int, int],
                             theme: str) -> None:
    async def setup(pilot: Any) -> None:
        pilot.app.theme = f"textual-{theme}"

    assert snap_compare(_app(tmp_path, f"{TEXT} {LONG}"), press=["enter"],
                        terminal_size=size, run_before=setup)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_readme_find_in_document(snap_compare: Any, tmp_path: Path,
                                 size: tuple[int, int]) -> None:
    assert snap_compare(_app(tmp_path), press=["enter", "slash", *"panels", "enter", "n"],
                        terminal_size=size)


# A short screen (a browser window of 800x600 is about 88x21): the document gets the room,
# the scale is one line (judging/tui/short.py; tester report 4, item 11).
@pytest.mark.parametrize("theme", ["dark", "light"])
def test_short_judge_screen(snap_compare: Any, tmp_path: Path, theme: str) -> None:
    async def setup(pilot: Any) -> None:
        pilot.app.theme = f"textual-{theme}"

    assert snap_compare(_app(tmp_path, LONG), press=["enter"], terminal_size=(80, 16),
                        run_before=setup)


def test_short_lead_screen(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(_lead_app(tmp_path, LONG), terminal_size=(80, 16))


def test_readme_images_are_the_snapshots() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "export_screens", Path(__file__).parents[1] / "docs" / "export_screens.py")
    assert spec and spec.loader
    export = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export)
    stale = export.stale()
    assert not stale, f"run python docs/export_screens.py: {stale} differ from the snapshots"
