"""The TREC 2010 crowd table of docs/crowd.md: each method's accuracy against NIST's gold.

    .venv/bin/python docs/crowd_report.py [--peer/--no-peer] [FILE]

FILE defaults to ../shared/corpora/trec-rf10-crowd/trec-rf10-data.txt. Prints a
Markdown table: per method, relkit's accuracy against the 3,277 NIST-graded
pairs (exact grade, and relevant vs not at grade >= 1), its time, crowd-kit's
accuracy and time on the same input (``--peer``; crowd-kit is in the ``test``
extra), and how many of the 20,232 pairs get another label than relkit's.
tests/test_crowd_docs.py checks relkit's columns against docs/crowd.md.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

FILE = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "trec-rf10-crowd" \
    / "trec-rf10-data.txt"
ORDER = ("majority", "wawa", "dawid-skene", "glad", "mace")


def relkit_rows(path: Path) -> tuple[dict[str, dict[str, float]], dict[str, np.ndarray], int]:
    """Per method: accuracy (graded, binary), seconds; the labels; the gold pair count."""
    from relkit.judging.crowd.files import read_labels
    from relkit.judging.crowd.methods import aggregate

    read = read_labels([path])
    t = read.table
    gold = np.array([read.gold.get((str(a), str(b)), -1) for a, b in zip(t.topics, t.docs,
                                                                       strict=True)])
    on = gold >= 0
    out, labels = {}, {}
    for m in ORDER:
        t0 = time.perf_counter()
        agg = aggregate(t, m)
        secs = time.perf_counter() - t0
        lab = agg.labels
        labels[m] = lab
        out[m] = {"graded": float((lab[on] == gold[on]).mean()),
                  "binary": float(((lab[on] >= 1) == (gold[on] >= 1)).mean()),
                  "seconds": secs, "iterations": agg.iterations}
    return out, labels, int(on.sum())


def peer_rows(path: Path, items: list[str]) -> dict[str, tuple[np.ndarray, float]]:
    """crowd-kit's labels (in ``items`` order, 'topic|doc') and seconds per method."""
    import pandas as pd
    from crowdkit.aggregation import GLAD, MACE, DawidSkene, MajorityVote, Wawa

    df = pd.read_csv(path, sep="\t", dtype=str)
    ck = pd.DataFrame({"task": df["topicID"] + "|" + df["docID"], "worker": df["workerID"],
                       "label": df["label"].astype(int)})

    def wawa(data: pd.DataFrame) -> pd.Series:
        # Wawa().fit_predict fails on scikit-learn >= 1.6 (check_is_fitted needs sklearn
        # tags); these are the two steps of crowd-kit's Wawa, by its own functions
        w = Wawa().fit(data)
        return MajorityVote().fit(data, skills=w.skills_).labels_

    fits = {"majority": lambda d: MajorityVote().fit_predict(d), "wawa": wawa,
            "dawid-skene": lambda d: DawidSkene(n_iter=100, tol=1e-5).fit_predict(d),
            "glad": lambda d: GLAD().fit_predict(d), "mace": lambda d: MACE().fit_predict(d)}
    out = {}
    for m in ORDER:
        t0 = time.perf_counter()
        lab = fits[m](ck)
        out[m] = (lab.reindex(items).to_numpy().astype(np.int64), time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, default=FILE)
    ap.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args()
    rows, labels, n_gold = relkit_rows(args.file)
    peer = {}
    if args.peer:
        from relkit.judging.crowd.files import read_labels

        t = read_labels([args.file]).table
        items = [f"{a}|{b}" for a, b in zip(t.topics, t.docs, strict=True)]
        gold = read_labels([args.file]).gold
        g = np.array([gold.get((str(a), str(b)), -1) for a, b in zip(t.topics, t.docs,
                                                                     strict=True)])
        on = g >= 0
        for m, (lab, secs) in peer_rows(args.file, items).items():
            peer[m] = (float((lab[on] == g[on]).mean()),
                       float(((lab[on] >= 1) == (g[on] >= 1)).mean()), secs,
                       int((lab != labels[m]).sum()))
    head = "| method | accuracy (grade) | accuracy (rel >= 1) | EM iterations | relkit s |"
    rule = "|---|---:|---:|---:|---:|"
    if peer:
        head += (" crowd-kit accuracy (grade) | crowd-kit (rel >= 1) | crowd-kit s |"
                 " pairs labelled differently |")
        rule += "---:|---:|---:|---:|"
    print(f"Accuracy against NIST's gold grades on the {n_gold:,} gold pairs (grades 0-2):")
    print()
    print(head)
    print(rule)
    for m in ORDER:
        r = rows[m]
        line = (f"| {m} | {r['graded']:.4f} | {r['binary']:.4f} | {r['iterations']} | "
                f"{r['seconds']:.2f} |")
        if peer:
            a, b, s, d = peer[m]
            line += f" {a:.4f} | {b:.4f} | {s:.2f} | {d:,} |"
        print(line)
    print()
    print(f"Qrels that change with the method, on all {len(labels['majority']):,} pairs "
          "(against majority):")
    print()
    print("| method | grade differs | relevance (>= 1) differs |")
    print("|---|---:|---:|")
    base = labels["majority"]
    for m in ORDER[1:]:
        lab = labels[m]
        print(f"| {m} | {int((lab != base).sum()):,} | "
              f"{int(((lab >= 1) != (base >= 1)).sum()):,} |")


if __name__ == "__main__":
    main()
