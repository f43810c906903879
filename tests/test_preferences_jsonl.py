"""``relkit export jsonl`` carries the preferences with their notes, flags and history
(review 4, finding 7); a project without preferences exports as before."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from relkit.judging.store.preferences import PreferenceView
from store_helpers import make_project


def _export(db: str, tmp_path: Path) -> list[dict]:
    out = tmp_path / "all.jsonl"
    code, _, err = run_cli(["export", "jsonl", "--db", db, "-o", str(out)])
    assert code == 0, err
    return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]


def test_preferences_and_their_history_are_exported(db_url: str, tmp_path: Path) -> None:
    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d00", grade=1)
    without = _export(db_url, tmp_path)
    assert without and all("record" not in r and "doc" in r for r in without)
    ann = PreferenceView(store, "ann")
    ann.record("1", "d00", "d01", "left", note="clearer")
    ann.record("1", "d01", "d00", "equal", flagged=True)
    ann.record("1", "d02", "d03", "neither")
    ann.undo("1", "d02", "d03")
    got = _export(db_url, tmp_path)
    assert got[:len(without)] == without   # the pairs as before, the preferences after
    prefs = got[len(without):]
    assert [(p["record"], p["topic"], p["assessor"], p["kind"], p["left"], p["right"],
             p["answer"], p["note"], p["flagged"], p["version"]) for p in prefs] == [
        ("preference", "1", "ann", "human", "d01", "d00", "equal", "", True, 2),
        ("preference", "1", "ann", "human", "d02", "d03", None, "", False, 2)]
    assert [(h["version"], h["left"], h["right"], h["answer"], h["note"], h["flagged"])
            for h in prefs[0]["history"]] == [(1, "d00", "d01", "left", "clearer", False),
                                              (2, "d01", "d00", "equal", "", True)]
    assert [h["answer"] for h in prefs[1]["history"]] == ["neither", None]
    assert prefs[0]["history"][-1]["recorded_at"] == prefs[0]["updated_at"]
