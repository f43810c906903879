"""Untrusted text on the judging screens, and the judge command's messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.safe import clean, cut
from tui_helpers import Clock, drive, screen

RLO = "\u202e"  # right-to-left override: "abc\u202edef" is drawn "abcfed"
SPOOF = f"price {RLO}0001 ot 01{RLO} isolate \u2066x\u2069 embed \u202ay\u202c"
ESCAPED_TITLE = "\x1b[31m\x1b[1m\x1b[4m" + "heat pump efficiency below freezing in winter"


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "t.db")
    docs = [Document("d0", SPOOF, SPOOF)]
    store.create_collection("c", TREC_DL, [Topic("1", ESCAPED_TITLE), Topic("2", SPOOF)],
                            docs)
    store.import_pool([("1", "d0"), ("2", "d0")], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    return store


def test_bidi_controls_are_shown_inert() -> None:
    shown = clean(SPOOF)
    assert not any(c in shown for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "<U+202E>0001 ot 01<U+202E>" in shown and "<U+2066>x<U+2069>" in shown
    assert clean("\u05e9\u05dc\u05d5\u05dd \u200f!") == "\u05e9\u05dc\u05d5\u05dd \u200f!"


def test_bidi_controls_never_reach_the_screen(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        topics = str(app.screen.query_one("#topic-list").get_option_at_index(1).prompt)
        assert RLO not in topics and "<U+202E>" in topics
        await pilot.press("down", "enter")
        await pilot.pause()
        s = screen(app)
        doc = s.query_one(DocView).plain
        assert RLO not in doc and "<U+202E>0001 ot 01<U+202E>" in doc
        assert RLO not in str(s.query_one("#topic-title").render())

    drive(store, steps)


def test_topic_list_cleans_a_title_before_cutting_it(tmp_path: Path) -> None:
    store = project(tmp_path)
    assert cut(ESCAPED_TITLE, 34).plain == "heat pump efficiency below freezi…"

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        line = str(app.screen.query_one("#topic-list").get_option_at_index(0).prompt)
        assert line.startswith("1 heat pump efficiency below freez") and "…" in line
        assert "[31" not in line and "[4m" not in line

    drive(store, steps)


def test_judge_names_the_assessors_to_choose_from(tmp_path: Path) -> None:
    from relkit.judging.store.reports import adjudicate

    store = project(tmp_path)
    store.assessor("ann").record(topic="1", doc="d0", grade=0)
    store.assessor("bob").record(topic="1", doc="d0", grade=3)
    adjudicate(store, "lee", "1", "d0", 2)  # the lead: not someone who judges here
    code, _, err = run_cli(["judge", "--db", str(tmp_path / "t.db")])
    assert code == 2
    (message,) = [line for line in err.splitlines() if "--assessor:" in line]
    assert message.endswith("name yourself with --assessor: one of ann, bob")
    code, _, err = run_cli(["judge", "--db", str(tmp_path / "t.db"), "--assessor", "lea"])
    assert code == 2 and err.rstrip().endswith("the assessors are ann, bob")


def test_judge_without_a_terminal_refuses_in_one_line(tmp_path: Path) -> None:
    """Through pipes, Textual drew the screen into the pipe and waited for keys forever."""
    import subprocess
    import sys

    project(tmp_path)
    db = str(tmp_path / "t.db")
    # As a user runs it: a real process with stdin and stdout piped (before the fix it
    # waited for keys until the timeout, failing the test).
    proc = subprocess.run([sys.executable, "-m", "relkit", "judge", "--db", db,
                           "--assessor", "ann"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.PIPE)
    assert (proc.returncode, proc.stdout) == (2, "")
    (line,) = proc.stderr.splitlines()
    assert line.startswith("relkit") and "error: the judging screen needs a terminal" in line
    assert run_cli(["judge", "--db", db, "--assessor", "ann"]) == (2, "", line + "\n")
    assert run_cli(["assign", "--db", db, "--lead", "lee"])[0] == 0
    assert run_cli(["judge", "--db", db, "--lead", "lee"]) == (2, "", line + "\n")
    assert len(Store.open(db).assessor("ann").judgments()) == 0
