"""``relkit judges``: automatic judges against human grades, checked against oracles.

Oracles (test-only): scikit-learn's ``cohen_kappa_score`` (with ``labels`` = the
scale, so unused grades still shape the weights), the ``krippendorff`` package,
``scipy.stats.kendalltau`` / ``ttest_rel`` and pytrec_eval's nDCG@10.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/corpora")
DL23 = SHARED / "llmjudge-dl23"
CRAN = SHARED / "cranfield"

# Two topics, 8 pairs, grades 0-3. nist is the human; lenient adds one (capped at 3);
# coin is unrelated.
NIST = [("1", "a", 0), ("1", "b", 1), ("1", "c", 2), ("1", "d", 3),
        ("2", "a", 0), ("2", "b", 0), ("2", "c", 3), ("2", "d", 1)]
COIN = [0, 3, 1, 1, 2, 0, 3, 0]


def _write(path: Path, rows: list[tuple[str, str, int]]) -> Path:
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in rows))
    return path


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    nist = _write(tmp_path / "nist.qrels", NIST)
    lenient = _write(tmp_path / "lenient.qrels", [(t, d, min(g + 1, 3)) for t, d, g in NIST])
    coin = _write(tmp_path / "coin.qrels", [(t, d, g) for (t, d, _), g in zip(NIST, COIN,
                                                                             strict=True)])
    return nist, lenient, coin


def _json(args: list[str]) -> dict[str, object]:
    code, out, err = run_cli([*args, "--format", "json"])
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def _oracle(x: list[int], y: list[int], labels: list[int], threshold: int
            ) -> dict[str, float]:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    out = {f"kappa{s}": cohen_kappa_score(x, y, labels=labels, weights=w)
           for s, w in (("", None), ("_linear", "linear"), ("_quadratic", "quadratic"))}
    out["kappa_binary"] = cohen_kappa_score([int(v >= threshold) for v in x],
                                            [int(v >= threshold) for v in y], labels=[0, 1])
    for level in ("ordinal", "interval"):
        out[f"alpha_{level}"] = krippendorff.alpha(reliability_data=[x, y],
                                                   level_of_measurement=level,
                                                   value_domain=labels)
    out["shift"] = float(np.mean(np.array(y) - np.array(x)))
    return out


def test_files_against_sklearn_and_krippendorff(tmp_path: Path) -> None:
    nist, lenient, coin = _files(tmp_path)
    rep = _json(["judges", str(lenient), str(coin), "--qrels", str(nist), "--scale",
                 "trec-dl"])
    assert [j["judge"] for j in rep["judges"]] == ["coin", "lenient"]  # type: ignore[index]
    human = [g for _, _, g in NIST]
    for j in rep["judges"]:  # type: ignore[attr-defined]
        judge = COIN if j["judge"] == "coin" else [min(g + 1, 3) for g in human]
        want = _oracle(human, judge, [0, 1, 2, 3], 2)
        for key, value in want.items():
            assert j[key] == pytest.approx(value, abs=1e-12), (j["judge"], key)
        conf = np.zeros((4, 4), dtype=int)
        for h, g in zip(human, judge, strict=True):
            conf[h, g] += 1
        assert j["confusion"] == conf.tolist()
        assert j["items"] == 8 and j["ranking"] is None


def test_lenient_judge_by_hand(tmp_path: Path) -> None:
    nist, lenient, _ = _files(tmp_path)
    rep = _json(["judges", str(lenient), "--qrels", str(nist), "--scale", "trec-dl"])
    (j,) = rep["judges"]  # type: ignore[misc]
    # +1 on every grade but the two 3s: shift = 6/8.
    assert j["shift"] == 0.75
    # confusion: 0->1 three times, 1->2 twice, 2->3 once, 3->3 twice.
    assert j["confusion"] == [[0, 3, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1], [0, 0, 0, 2]]


def test_text_and_tsv(tmp_path: Path) -> None:
    nist, lenient, coin = _files(tmp_path)
    code, out, err = run_cli(["judges", str(lenient), str(coin), "--qrels", str(nist),
                              "--scale", "trec-dl", "--format", "tsv"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split("\t")[:3] == ["judge", "items", "kappa"]
    assert lines[2].split("\t")[0] == "lenient"
    assert lines[2].split("\t")[-1] == "0 3 0 0|0 0 2 0|0 0 0 1|0 0 0 2"
    code, out, err = run_cli(["judges", str(lenient), "--qrels", str(nist), "--scale",
                              "trec-dl"])
    assert code == 0 and "Confusion matrices" in out and "lenient (8 pairs)" in out
    assert "shift = mean(judge - human)" in out


def test_scale_inferred_from_the_human_grades(tmp_path: Path) -> None:
    nist, lenient, _ = _files(tmp_path)
    stray = _write(tmp_path / "stray.qrels", [("1", "a", 10)])
    code, _, err = run_cli(["judges", str(stray), "--qrels", str(nist)])
    assert code == 1 and f"{stray}:1: grade 10 is not on the" in err
    assert "--off-scale drop" in err and "Traceback" not in err
    code, out, err = run_cli(["judges", str(stray), str(lenient), "--qrels", str(nist),
                              "--off-scale", "drop", "--format", "tsv"])
    assert code == 0, err
    assert "dropped grades off the scale: stray 1 (grade 10)" in err
    assert [r.split("\t")[0] for r in out.splitlines()[1:]] == ["lenient"]


def test_one_problem_is_one_stderr_line(tmp_path: Path) -> None:
    """Tester: a note (the scale inferred, the judges counted) came before the error it
    led to. Each of these inputs has one problem: one line, and nothing on stdout."""
    nist, lenient, coin = _files(tmp_path)
    stray = _write(tmp_path / "stray.qrels", [("1", "a", 10)])
    twice = _write(tmp_path / "twice.qrels", [("1", "a", 0), ("1", "a", 1)])
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 1 r\n")
    cases = [
        ([str(stray), "--qrels", str(nist)], 1,
         f"{stray}:1: grade 10 is not on the scale inferred from the human grades"),
        ([str(twice), "--qrels", str(nist)], 1, f"{twice}:2"),
        ([str(lenient), "--qrels", str(nist), "--runs", str(run)], 2, "--runs"),
        ([str(coin), "--qrels", str(nist), "--threshold", "7"], 1, "threshold 7"),
    ]
    for args, want_code, want in cases:
        code, out, err = run_cli(["judges", *args])
        assert (code, out, err.count("\n")) == (want_code, "", 1), (args, err)
        assert want in err and "Traceback" not in err, err
    # a run that goes well still says what it inferred
    code, _, err = run_cli(["judges", str(lenient), "--qrels", str(nist)])
    assert code == 0 and "scale inferred from the human grades" in err


@pytest.mark.parametrize("args, hint", [
    (["judges", "X"], "--qrels"),
    (["judges", "--qrels", "N"], "--qrels"),
    (["judges", "X", "--qrels", "N", "--human", "ann"], "--human"),
    (["judges", "X", "--qrels", "N", "--format", "html"], "--format"),
    (["judges", "X", "--qrels", "N", "--off-scale", "clip"], "--off-scale"),
])
def test_usage_errors(tmp_path: Path, args: list[str], hint: str) -> None:
    nist, lenient, _ = _files(tmp_path)
    args = [str(lenient) if a == "X" else str(nist) if a == "N" else a for a in args]
    code, _, err = run_cli(args)
    assert code == 2 and hint in err and "Traceback" not in err


def test_a_pair_twice_names_both_lines(tmp_path: Path) -> None:
    nist, _, _ = _files(tmp_path)
    twice = _write(tmp_path / "twice.qrels", [("1", "a", 0), ("1", "a", 1)])
    code, _, err = run_cli(["judges", str(twice), "--qrels", str(nist)])
    assert code == 1 and f"{twice}:2" in err and f"{twice}:1" in err


def test_two_files_naming_the_same_judge(tmp_path: Path) -> None:
    """Tester: u1.qrels and d2/u1.qrels read as one judge grading pairs twice."""
    nist, lenient, _ = _files(tmp_path)
    (tmp_path / "d2").mkdir()
    other = tmp_path / "d2" / lenient.name
    other.write_text(lenient.read_text())
    code, out, err = run_cli(["judges", str(lenient), str(other), "--qrels", str(nist)])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{lenient} and {other} name the same judge {lenient.stem!r}" in err


def test_measure_is_checked_without_runs(tmp_path: Path) -> None:
    nist, lenient, _ = _files(tmp_path)
    code, out, err = run_cli(["judges", str(lenient), "--qrels", str(nist),
                              "--measure", "nDGC@10"])
    assert code == 2 and out == "" and "--measure" in err and "nDGC@10" in err


# -- the store ---------------------------------------------------------------------------------
def _store(tmp_path: Path) -> str:
    from store_helpers import make_project

    db = str(tmp_path / "p.db")
    store = make_project(db)
    who = {t.key: n for n in ("ann", "bob") for t in store.assessor(n).topics()}
    for t, d, g in [("1", "d00", 0), ("1", "d01", 1), ("1", "d02", 2), ("1", "d03", 3),
                    ("007", "d04", 3), ("007", "d05", 0)]:
        store.assessor(who[t]).record(topic=t, doc=d, grade=g)
    llm = _write(tmp_path / "llm.qrels", [("1", "d00", 1), ("1", "d01", 1), ("1", "d02", 3),
                                          ("1", "d03", 3), ("007", "d04", 2),
                                          ("007", "d05", 0), ("007", "d06", 1)])
    code, _, err = run_cli(["import", "judgments", str(llm), "--db", db, "--assessor", "gpt",
                            "--kind", "automatic"])
    assert code == 0, err
    return db


def test_store_equals_files(tmp_path: Path) -> None:
    db = _store(tmp_path)
    from_db = _json(["judges", "--db", db])
    human = _write(tmp_path / "h.qrels", [("1", "d00", 0), ("1", "d01", 1), ("1", "d02", 2),
                                          ("1", "d03", 3), ("007", "d04", 3),
                                          ("007", "d05", 0)])
    from_files = _json(["judges", str(tmp_path / "llm.qrels"), "--qrels", str(human),
                        "--scale", "trec-dl"])
    (a,), (b,) = from_db["judges"], from_files["judges"]  # type: ignore[misc]
    assert a.pop("judge") == "gpt" and b.pop("judge") == "llm"
    assert a == b
    assert a["items"] == 6 and a["only_judge"] == 1


def test_store_refusals(tmp_path: Path) -> None:
    from store_helpers import make_project

    db = str(tmp_path / "none.db")
    make_project(db)
    code, _, err = run_cli(["judges", "--db", db])
    assert code == 1 and "no automatic assessors" in err
    llm = _write(tmp_path / "x.qrels", [("1", "d00", 1)])
    assert run_cli(["import", "judgments", str(llm), "--db", db, "--kind", "automatic"])[0] == 0
    code, _, err = run_cli(["judges", "--db", db])
    assert code == 1 and err.count("\n") == 1 and "no human grades in this database" in err
    db = _store(tmp_path)
    # Tester: option values the command cannot take are usage errors (exit 2).
    code, _, err = run_cli(["judges", "--db", db, "--judge", "ann"])
    assert code == 2 and "--judge" in err and "ann: not an automatic assessor" in err
    code, _, err = run_cli(["judges", "--db", db, "--human", "gpt"])
    assert code == 2 and "--human" in err and "gpt: not a human assessor" in err
    code, _, err = run_cli(["judges", "--db", db, "--threshold", "9"])
    assert code == 2 and "--threshold" in err and err.count("\n") == 1


# -- ranking systems ---------------------------------------------------------------------------
def _runs(tmp_path: Path) -> list[Path]:
    """Three runs over topics 1 and 2 (docs a-d), in different orders."""
    orders = {"good": "dcba", "mid": "cdab", "bad": "abcd"}
    out = []
    for name, order in orders.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{t} Q0 {d} {r} {10 - r} {name}\n" for t in ("1", "2")
                             for r, d in enumerate(order, 1)))
        out.append(p)
    return out


def test_a_judge_equal_to_the_humans_ranks_alike(tmp_path: Path) -> None:
    nist, _, _ = _files(tmp_path)
    same = _write(tmp_path / "same.qrels", NIST)
    rep = _json(["judges", str(same), "--qrels", str(nist), "--runs", *map(str,
                                                                          _runs(tmp_path))])
    r = rep["judges"][0]["ranking"]  # type: ignore[index]
    assert r["kendall_tau"] == 1.0 and r["tau_ap"] == 1.0
    assert r["lost"] == r["gained"] == r["reversed"] == r["flips"] == 0
    assert r["system_pairs"] == 3 and r["topics"] == 2
    assert rep["systems"] == ["bad", "good", "mid"]
    assert rep["human_means"] == r["means"]


def test_runs_need_two(tmp_path: Path) -> None:
    nist, lenient, _ = _files(tmp_path)
    code, _, err = run_cli(["judges", str(lenient), "--qrels", str(nist), "--runs",
                            str(_runs(tmp_path)[0])])
    # one --runs file: an option value the command cannot take (a usage error)
    assert code == 2 and "two or more runs" in err and err.count("\n") == 1


def _tau_ap(ref: dict[str, float], other: dict[str, float]) -> float:
    """Yilmaz et al. 2008, eq. 3, written out: systems in the reference order."""
    order = sorted(ref, key=lambda s: (-ref[s], s))
    n = len(order)
    total = sum(sum((other[order[j]] > other[order[i]]) + 0.5 * (other[order[j]] ==
                                                                  other[order[i]])
                    for j in range(i)) / i for i in range(1, n))
    return 2 * total / (n - 1) - 1


@pytest.mark.slow
def test_cranfield_runs_against_pytrec_eval_and_scipy(tmp_path: Path) -> None:
    """Six real runs, NIST-like human qrels (cranfield, 1 = complete answer -> grade 4)
    and a judge that regrades a seeded 40% of the pairs: tau, tau_AP and the flips."""
    import pytrec_eval
    from scipy.stats import kendalltau, ttest_rel

    human: dict[str, dict[str, int]] = {}
    for line in (CRAN / "cranqrel").read_text().splitlines():
        t, d, g = line.split()
        human.setdefault(t, {})[d] = 0 if int(g) == -1 else 5 - int(g)
    rng = np.random.default_rng(7)
    judge = {t: {d: int(rng.integers(0, 5)) if rng.random() < 0.4 else g
                 for d, g in docs.items()} for t, docs in human.items()}
    hq = _write(tmp_path / "human.qrels", [(t, d, g) for t, ds in human.items()
                                           for d, g in ds.items()])
    jq = _write(tmp_path / "judge.qrels", [(t, d, g) for t, ds in judge.items()
                                           for d, g in ds.items()])
    runs = sorted((CRAN / "runs").glob("*/*.txt"))
    rep = _json(["judges", str(jq), "--qrels", str(hq), "--runs", *map(str, runs)])
    got = rep["judges"][0]["ranking"]  # type: ignore[index]

    def per_topic(qrels: dict[str, dict[str, int]]) -> dict[str, np.ndarray]:
        ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"})
        out = {}
        for p in runs:
            run: dict[str, dict[str, float]] = {}
            for line in p.read_text().splitlines():
                q, _, d, _, s, _ = line.split()
                run.setdefault(q, {})[d] = float(s)
            res = ev.evaluate(run)
            out[p.stem] = np.array([res.get(t, {}).get("ndcg_cut_10", 0.0)
                                    for t in sorted(qrels)])
        return out

    xh, xj = per_topic(human), per_topic(judge)
    mh = {s: float(v.mean()) for s, v in xh.items()}
    mj = {s: float(v.mean()) for s, v in xj.items()}
    assert rep["human_means"] == pytest.approx(mh, abs=1e-12)
    assert got["means"] == pytest.approx(mj, abs=1e-12)
    systems = sorted(mh)
    tau = kendalltau([mh[s] for s in systems], [mj[s] for s in systems]).statistic
    assert got["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    assert got["tau_ap"] == pytest.approx(_tau_ap(mh, mj), abs=1e-12)

    def conclusion(x: np.ndarray, y: np.ndarray) -> int:
        if np.all(x == y):
            return 0
        t = ttest_rel(x, y)
        return 0 if t.pvalue >= 0.05 else (1 if t.statistic > 0 else -1)

    counts = dict.fromkeys(["significant_human", "significant_judge", "lost", "gained",
                            "reversed"], 0)
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ch, cj = conclusion(xh[a], xh[b]), conclusion(xj[a], xj[b])
            counts["significant_human"] += ch != 0
            counts["significant_judge"] += cj != 0
            counts["lost"] += ch != 0 and cj == 0
            counts["gained"] += ch == 0 and cj != 0
            counts["reversed"] += ch * cj < 0
    assert {k: got[k] for k in counts} == counts
    assert counts["significant_human"] > 0          # the test has something to flip


@pytest.mark.slow
def test_llmjudge_table_against_sklearn_and_krippendorff() -> None:
    """A few rows of docs/automatic-judges.md's table, recomputed independently."""
    def read(p: Path) -> dict[tuple[str, str], int]:
        return {(q, d): int(g) for q, _, d, g in (ln.split() for ln in
                                                  p.read_text().splitlines())}

    nist = read(DL23 / "llmjudge_test_qrel_idx.txt")
    picked = ["willia-umbrela1", "TREMA-nuggets", "Olz-exp", "h2oloo-zeroshot2"]
    rep = _json(["judges", *[str(DL23 / "llm-judgments" / f"{n}.txt") for n in picked],
                 "--qrels", str(DL23 / "llmjudge_test_qrel_idx.txt"), "--scale", "trec-dl",
                 "--off-scale", "drop"])
    rows = {j["judge"]: j for j in rep["judges"]}  # type: ignore[attr-defined]
    for name in picked:
        judge = {k: g for k, g in read(DL23 / "llm-judgments" / f"{name}.txt").items()
                 if g <= 3}                  # --off-scale drop: h2oloo-zeroshot2 gave a 10
        keys = sorted(set(nist) & set(judge))
        want = _oracle([nist[k] for k in keys], [judge[k] for k in keys], [0, 1, 2, 3], 2)
        assert rows[name]["items"] == len(keys)
        for key, value in want.items():
            assert rows[name][key] == pytest.approx(value, abs=1e-12), (name, key)
    # The data README's check: unweighted kappa from 0.06 (TREMA-nuggets) to 0.29 (umbrela1).
    assert round(rows["TREMA-nuggets"]["kappa"], 2) == 0.06
    assert round(rows["willia-umbrela1"]["kappa"], 2) == 0.29
    assert rows["h2oloo-zeroshot2"]["items"] == 4422


@pytest.mark.slow
def test_the_docs_table_is_fresh() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "docs" / "automatic_judges_table.py"),
                           "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_runs_without_a_judged_topic_name_the_grades(tmp_path: Path) -> None:
    """Tester: the error named a literal '<qrels>' placeholder."""
    nist, lenient, _ = _files(tmp_path)
    runs = []
    for name in ("x", "y"):
        run = tmp_path / f"{name}.run"
        run.write_text(f"999 Q0 a 1 1 {name}\n")
        runs.append(str(run))
    code, _, err = run_cli(["judges", str(lenient), "--qrels", str(nist), "--runs", *runs])
    assert code == 1 and "<qrels>" not in err
    assert "no topic has both run lines and judgments in the human grades" in err
