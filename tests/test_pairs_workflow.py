"""Preference judging as one workflow (issue 38): the pairs screen chooses pairs with the
pair strategies of relkit.pooling.pairs (`--pair-strategy`), `relkit export prefs --to`
writes trec_eval's formats, `relkit status` shows preference progress, and
docs/preferences.md's workflow on the sample collection runs as written (the judging
step through the real pairs screen, driven by Pilot)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT, run_cli
from pairs_pilot import judge_pairs, state_line
from relkit.judging.pairhelp import NAMES
from relkit.judging.pairorder import pair_order, shown_sides, to_answers
from relkit.judging.store.assign import Store
from relkit.judging.store.preferences import PreferenceView
from relkit.pooling.pairs import get, names
from relkit.pooling.pairs.simulate import true_answer
from store_helpers import make_project
from test_tutorial import env_for, shows

DOC = ROOT / "docs" / "preferences.md"
SAMPLE = ROOT / "corpora" / "sample"


# -- --pair-strategy ----------------------------------------------------------------------

def test_the_help_names_the_registry_s_strategies() -> None:
    assert sorted(NAMES) == sorted(names())
    for cmd in (["judge", "--help"], ["serve", "--help"]):
        code, out, _ = run_cli(cmd)
        assert code == 0 and "--pair-strategy" in out
        flat = " ".join(out.replace("│", " ").split())
        assert "adaptive, all-pairs, top-k" in flat, cmd


@pytest.mark.parametrize("cmd", ["judge", "serve"])
def test_an_unknown_strategy_is_a_usage_error_with_did_you_mean(cmd: str,
                                                                 tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    make_project(db).close()
    code, out, err = run_cli([cmd, "--db", db, "--pairs", "--pair-strategy", "topk"])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "--pair-strategy" in err and "did you mean 'top-k'?" in err


def test_all_pairs_on_the_screen_is_the_registry_s_with_seeded_sides() -> None:
    docs = [f"d{i}" for i in range(6)]
    order = pair_order("all-pairs", 3, "1")
    answered: dict[frozenset[str], tuple[str, str, str]] = {}
    shown = []
    while (pair := order.next_pair(docs, to_answers("1", answered))) is not None:
        shown.append(pair)
        answered[frozenset(pair)] = (*pair, "equal")
    # The registry's order, pair by pair; each side from the seed's coin (both occur).
    reg = get("all-pairs").make({}, 3).order(docs)  # type: ignore[attr-defined]
    assert [frozenset(p) for p in shown] == [frozenset(p) for p in reg]
    assert shown == [shown_sides(p, 3, "1") for p in reg]
    assert any(a < b for a, b in shown) and any(a > b for a, b in shown)
    assert [frozenset(p) for p in shown] != [frozenset(p) for p in
                                             get("all-pairs").make({}, 4).order(docs)]  # type: ignore[attr-defined]


def _small(tmp_path: Path) -> Store:
    """One assessor, topic 1 of the store helpers' project (8 documents)."""
    return make_project(str(tmp_path / "p.db"), assessors=("ann",))


def test_top_k_without_grades_says_so_in_one_line(tmp_path: Path) -> None:
    store = _small(tmp_path)
    line, pair = state_line(store, "ann", "1", "top-k").split("|")
    assert line == ("top-k needs graded judgments of this topic first (its pre-filter): "
                    "grade it with relkit judge (without --pairs)")
    assert pair == "None"  # nothing is asked


def test_top_k_takes_the_assessor_s_grades_from_the_store(tmp_path: Path) -> None:
    store = _small(tmp_path)
    view = store.assessor("ann")
    docs = PreferenceView(store, "ann").documents("1")
    grades = {d: (i * 7) % 4 for i, d in enumerate(docs)}  # some pass the filter (>= 1)
    for d, g in grades.items():
        view.record(topic="1", doc=d, grade=g)
    chooser = get("top-k").make({}, 0)
    truth = {d: g for d, g in grades.items()}

    def answer(topic: str, left: str, right: str) -> str:
        return true_answer(left, right, truth)

    shown = judge_pairs(store, "ann", answer, strategy="top-k", topics=["1"])
    # The library, given the same grades and answers, asks the same pairs and then stops.
    replay: list = []
    from relkit.metrics.prefs.answers import Answer

    while (p := chooser.next_pair(docs, replay, {d: float(g) for d, g in grades.items()})):
        replay.append(Answer(topic_id="1", left=p[0], right=p[1],
                             answer=true_answer(*p, truth), assessor="ann"))
    assert [frozenset(s[1:3]) for s in shown] == [frozenset((a.left, a.right)) for a in replay]
    assert 0 < len(shown) < len(docs) * (len(docs) - 1) // 2


@pytest.mark.slow
def test_the_order_after_a_restart_is_the_order_without_one(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = make_project(str(tmp_path / "a" / "p.db"), assessors=("ann",))
    two = make_project(str(tmp_path / "b" / "p.db"), assessors=("ann",))
    truth = {f"d{i:02d}": i % 5 for i in range(20)}

    def answer(topic: str, left: str, right: str) -> str:
        return true_answer(left, right, truth)

    straight = judge_pairs(one, "ann", answer, strategy="adaptive", topics=["1"])
    first = judge_pairs(two, "ann", answer, strategy="adaptive", topics=["1"], limit=4)
    rest = judge_pairs(two, "ann", answer, strategy="adaptive", topics=["1"])
    assert len(first) == 4 and straight == first + rest  # pairs, sides and answers


# -- status ---------------------------------------------------------------------------------

def test_status_adds_preference_progress_only_with_preferences(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db, overlap=1.0)
    before = {f: run_cli(["status", "--db", db, "--format", f]) for f in ("text", "tsv", "json")}
    assert all(code == 0 and "preferences" not in out for code, out, _ in before.values())
    PreferenceView(store, "ann").record("1", "d01", "d00", "left")
    after = {f: run_cli(["status", "--db", db, "--format", f]) for f in ("text", "tsv", "json")}
    # The same output, then the table (all of ann's and bob's topics with 2+ documents).
    assert after["text"][1].startswith(before["text"][1].rstrip("\n") + "\n\npreferences")
    tail = after["text"][1].split("\n\npreferences")[1].splitlines()
    assert tail[0].split() == ["assessor", "answered", "all_pairs"]
    assert ["1", "ann", "1", "28"] in [r.split() for r in tail[1:]]
    assert after["tsv"][1].startswith(before["tsv"][1].rstrip("\n") + "\n\npreferences\t")
    import json

    got = json.loads(after["json"][1])
    assert {k: v for k, v in got.items() if k != "preferences"} == json.loads(before["json"][1])
    assert {"topic": "1", "assessor": "ann", "answered": 1, "all_pairs": 28} in \
        got["preferences"]


# -- export prefs --to ----------------------------------------------------------------------

def test_export_to_refuses_bad_usage_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    make_project(db).close()
    for args, hint in ((["--to", "trec"], "--to"), ([], "--answers/--to"),
                       (["-o", str(tmp_path / "x.txt")], "-o")):
        code, out, err = run_cli(["export", "prefs", db, *args])
        assert (code, out) == (2, ""), args
        assert len(err.strip().splitlines()) == 1 and hint in err, err
    code, _, err = run_cli(["export", "prefs", db, "--to", "prefs"])
    assert code == 1 and err.strip().splitlines() == [
        "relkit: error: no preference answers to convert yet (relkit judge --pairs)"]
    assert not (tmp_path / "x.txt").exists()


# -- docs/preferences.md's workflow, on the real screen -------------------------------------

def _blocks(text: str) -> list[tuple[int, str, list[str]]]:
    """(line, kind, body) of the ``sh workflow``, ``sh workflow-judge`` and the
    ``text output`` blocks, in order."""
    out = []
    for m in re.finditer(r"^```(sh workflow(?:-judge)?|text output)\n(.*?)^```$", text,
                         re.M | re.S):
        out.append((text[:m.start()].count("\n") + 1, m.group(1), m.group(2).splitlines()))
    return out


def _sample_truth() -> dict[str, dict[str, int]]:
    truth: dict[str, dict[str, int]] = {}
    for line in (SAMPLE / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        truth.setdefault(q, {})[d] = int(g)
    return truth


@pytest.mark.slow
def test_the_workflow_on_the_sample_collection_runs_as_written(tmp_path: Path) -> None:
    """Every command of the workflow section runs and prints what the page shows; the
    judging step is the real pairs screen, each assessor answering by the sample's
    qrels; `export prefs --to` gives what `prefs convert` gives on the answers file."""
    blocks = _blocks(DOC.read_text())
    kinds = [k for _, k, _ in blocks]
    assert kinds.count("sh workflow-judge") == 1 and kinds.count("sh workflow") >= 4
    work = tmp_path / "w"
    work.mkdir()
    (work / "corpora").symlink_to(ROOT / "corpora")
    env = env_for(tmp_path)
    truth = _sample_truth()
    printed = ""
    for line, kind, body in blocks:
        where = f"docs/preferences.md:{line}"
        if kind == "text output":
            missing = shows(printed, body)
            assert missing is None, f"{where}: shows {missing!r}; printed:\n{printed[-3000:]}"
            continue
        if kind == "sh workflow-judge":
            store = Store.open(str(work / "prefs.db"), create=False)
            for cmd in body:
                assert cmd.startswith("relkit judge --db prefs.db --assessor ")
                who = cmd.split("--assessor ")[1].split()[0]
                judge_pairs(store, who, lambda t, a, b: true_answer(a, b, truth.get(t, {})))
            store.close()
            printed = ""
            continue
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(body)], cwd=work,
                              env=env, capture_output=True, text=True, timeout=600)
        printed = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{printed[-3000:]}"
        assert "Traceback" not in printed, f"{where}:\n{printed[-3000:]}"
    # The export equals the conversion of the answers file, and evaluates the same.
    for fmt in ("prefs", "qrels_prefs", "qrels"):
        a, b = work / f"db.{fmt}", work / f"file.{fmt}"
        assert run_cli(["export", "prefs", str(work / "prefs.db"), "--to", fmt, "-o",
                        str(a)])[0] == 0
        assert run_cli(["prefs", "convert", str(work / "answers.tsv"), "--to", fmt, "-o",
                        str(b)])[0] == 0
        assert a.read_text() == b.read_text() and a.read_text().strip(), fmt
    run = str(SAMPLE / "runs" / "bm25.txt")
    via_db = run_cli(["eval", "-R", "prefs", "-q", str(work / "prefs.txt"), run])
    via_file = run_cli(["eval", "-R", "prefs", "-q", str(work / "file.prefs"), run])
    assert via_db[0] == 0 and via_db == via_file and "prefs_simp" in via_db[1]


def test_serve_passes_the_strategy_to_every_session(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`relkit serve --pairs --pair-strategy NAME`: the server's environment carries the
    name, and each session's app is made with it (the browser shows the terminal app)."""
    pytest.importorskip("textual_serve")
    import os

    import relkit.judging.serve.server as server
    import relkit.judging.tui.app as tui_app
    import relkit.judging.tui.cli as tui_cli
    from relkit.judging.serve import session

    db = str(tmp_path / "p.db")
    make_project(db).close()
    seen: list[dict[str, str]] = []
    before = dict(os.environ)
    monkeypatch.setattr(server, "run", lambda *a, **k: seen.append(a[7]))
    code, _, err = run_cli(["serve", "--db", db, "--port", "0", "--pairs",
                            "--pair-strategy", "adaptive"])
    assert code == 0, err
    code, _, err = run_cli(["serve", "--db", db, "--port", "0"])
    assert code == 0, err
    # The sessions' environment carries the mode, always given (a value left in the
    # shell never decides); the server's own environment is left as it was.
    assert seen == [{"RELKIT_SERVE_PAIRS": "1", "RELKIT_SERVE_PAIR_STRATEGY": "adaptive"},
                    {"RELKIT_SERVE_PAIRS": "0", "RELKIT_SERVE_PAIR_STRATEGY": "all-pairs"}]
    assert dict(os.environ) == before
    made: list = []

    class Ran:
        def run(self) -> None:
            pass

    monkeypatch.setenv("RELKIT_SERVE_PAIRS", "1")
    monkeypatch.setenv("RELKIT_SERVE_PAIR_STRATEGY", "adaptive")
    monkeypatch.setattr(tui_app, "make_app", lambda store, name, settings: (
        made.append(settings), Ran())[1])
    monkeypatch.setattr(tui_cli, "finish", lambda app, say_where=True: 0)
    store = Store.open(db, create=False)
    assert session.serve(store, "assessor", "ann") == 0
    assert [(s.pairs, s.pair_strategy) for s in made] == [(True, "adaptive")]
