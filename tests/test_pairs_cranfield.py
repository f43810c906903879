"""Issue 38's check "a simulated assessor on Cranfield through the real screens": on a few
Cranfield topics, the simulated assessor of relkit.pooling.pairs.simulate (answers drawn
from the graded qrels with noise 0.1) answers on the real pairs screen (Pilot), and
each strategy asks there the pairs, and needs the judgments, that the library
simulation gives for the same seed (docs/preferences.md has the table for all 225
topics, from bench/prefs_strategies.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import ROOT, SHARED
from pairs_pilot import judge_pairs
from relkit.corpora.types import CRANFIELD, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.store.preferences import PreferenceView
from relkit.metrics.prefs.answers import Answer
from relkit.pooling.pairs.simulate import judgments_needed, run_topic

CRAN = SHARED / "corpora" / "cranfield"
TOPICS = ("3", "4")   # two topics, pools of 10: the lean version of the bench's table
POOL = 10
SEED = 5              # the assignment's seed: the strategies' and the simulation's

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CRAN.is_dir(), reason=f"no Cranfield at {CRAN}")]


def _pools() -> dict[str, tuple[list[str], dict[str, int]]]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from prefs_strategies import cranfield  # the bench's pools, as in the docs' table
    finally:
        sys.path.remove(str(ROOT / "bench"))
    pools = cranfield(POOL)
    return {q: pools[q] for q in TOPICS}


def _texts(keys: set[str]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for chunk in (CRAN / "cran.all.1400").read_text().split(".I ")[1:]:
        key, _, rest = chunk.partition("\n")
        if key.strip() in keys:
            title = rest.split(".T\n", 1)[-1].split("\n.", 1)[0].replace("\n", " ")
            out[key.strip()] = (title, rest.split(".W\n", 1)[-1].strip())
    return out


def _project(path: Path, pools: dict[str, tuple[list[str], dict[str, int]]]) -> Store:
    store = Store.open(str(path))
    keys = {d for docs, _ in pools.values() for d in docs}
    texts = _texts(keys)
    queries = {q: f"Cranfield query {q}" for q in pools}
    store.create_collection("cranfield", CRANFIELD, [Topic(q, t) for q, t in queries.items()],
                            [Document(d, *texts[d]) for d in sorted(keys, key=int)])
    store.import_pool([(q, d) for q, (docs, _) in pools.items() for d in docs], name="p")
    store.assign(["sim"], ordering="random", seed=SEED)  # a seed is kept with random
    return store


@pytest.mark.parametrize("strategy", ["all-pairs", "top-k", "adaptive"])
def test_the_screen_needs_what_the_library_simulation_needs(strategy: str,
                                                            tmp_path: Path) -> None:
    pools = _pools()
    store = _project(tmp_path / "cran.db", pools)
    prefs = PreferenceView(store, "sim")
    runs = {}
    for q, (_, truth) in pools.items():
        docs = prefs.documents(q)  # the screen's documents, in the assignment's order
        assert prefs.seed(q) == SEED
        runs[q] = run_topic(strategy, q, docs, truth, noise=0.1, k=10, seed=SEED)
        if runs[q].grades is not None:  # top-k's pre-filter: the noisy grades, as judged
            view = store.assessor("sim")
            for d, g in runs[q].grades.items():
                view.record(topic=q, doc=d, grade=int(g))
    # The simulated assessor on the screen: the library run's answer to the pair shown,
    # turned to the sides the screen drew.
    step = {q: 0 for q in pools}

    def answer(topic: str, left: str, right: str) -> str:
        asked = runs[topic].asked[step[topic]]
        step[topic] += 1
        assert {asked.left, asked.right} == {left, right}  # the same pair, in order
        if (asked.left, asked.right) == (left, right) or asked.answer in ("equal", "neither"):
            return asked.answer
        return "right" if asked.answer == "left" else "left"

    shown = judge_pairs(store, "sim", answer, strategy=strategy)
    for q, (_, truth) in pools.items():
        got = [s for s in shown if s[0] == q]
        run = runs[q]
        assert len(got) == run.answers > 0  # the screen said done where the library did
        stored = [Answer(topic_id=q, left=p.left, right=p.right, answer=p.answer or "",
                         assessor="sim") for p in prefs.answers(q)]
        by_pair = {frozenset((a.left, a.right)): a for a in stored}
        in_order = [by_pair[frozenset(s[1:3])] for s in got]   # as stored in the database
        needed = judgments_needed(strategy, prefs.documents(q), in_order, truth,
                                  grades=run.grades, k=10, seed=SEED, graded=run.graded)
        assert needed == run.needed, (q, needed, run.needed)
        print(f"{strategy} topic {q}: {run.graded} graded + {run.answers} answers, "
              f"top 10 recovered after {needed}")
