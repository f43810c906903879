"""Relevant documents found at a share of the pool judged: the bandits vs depth-k and MTF.

Replays strategies (``relkit.pooling.simulate.sequences``) on a synthetic collection of
40 runs of unequal quality (deterministic, ``--seed``) and, when present, on Cranfield
(``../shared/corpora/cranfield``), and prints one markdown table per collection: for each
strategy the share of the relevant documents in the pool found after judging 5%, 10% and
20% of each topic's pool (bandits: the mean over 5 seeds). This is the measurement
behind the tables in docs/pooling.md.

Run: ``.venv/bin/python bench/bandit_sim.py [--seed 0] [--topics 50]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from relkit.metrics.data import Qrels, Run
from relkit.pooling.candidates import Candidates
from relkit.pooling.simulate import Plan, grades_of, sequences

PLANS = [Plan("depth-k", "depth", {}), Plan("mtf", "mtf", {}),
         Plan("MM (pulled only: bandit policy=maxmean)", "bandit", {"policy": "maxmean"}),
         Plan("MM-NS (pulled only: policy=mm-ns-pulled, rate 0.9)", "bandit",
              {"policy": "mm-ns-pulled"}),
         Plan("MM (published crediting: policy=mm)", "bandit", {"policy": "mm"}),
         Plan("MM-NS (policy=mm-ns, rate 0.9)", "bandit", {"policy": "mm-ns"}),
         Plan("MM-NS (policy=mm-ns, rate 0.99)", "bandit", {"policy": "mm-ns", "rate": 0.99}),
         Plan("TS (pulled only: policy=thompson)", "bandit", {"policy": "thompson"}),
         Plan("TS (published crediting: policy=ts)", "bandit", {"policy": "ts"}),
         Plan("hedge", "hedge", {}), Plan("fusion (RRF)", "fusion", {})]
SHARES = (0.05, 0.10, 0.20)
SEEDS = 5


def synthetic(seed: int, topics: int = 50, runs: int = 40, docs: int = 5000,
              depth: int = 100, shift: int | None = None) -> tuple[dict[str, Run], Qrels]:
    """40 runs of unequal quality over a shared latent relevance signal.

    Per topic: 20-150 relevant documents among ``docs``; run s scores document d as
    ``q_s * rel(d) + 0.7 * shared(d) + noise`` with its quality ``q_s`` uniform in
    [0, 2.5] (a few runs near random, a few good), and returns its top ``depth``.
    With ``shift`` a run's quality changes with depth: its first ``shift`` documents
    come from a ranking of quality ``q_s``, the rest from one of an independent
    quality ``q'_s`` (a run good at the top need not be good deeper down).
    """
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0.0, 2.5, runs)
    deep = rng.uniform(0.0, 2.5, runs)
    lines: list[list[str]] = [[] for _ in range(runs)]
    qrels: dict[str, dict[str, int]] = {}
    for t in range(1, topics + 1):
        rel = np.zeros(docs)
        n_rel = int(rng.integers(20, 151))
        rel[rng.choice(docs, n_rel, replace=False)] = 1.0
        shared = rng.normal(0, 1, docs)
        qrels[str(t)] = {f"D{d}": 1 for d in np.flatnonzero(rel)}
        for s in range(runs):
            score = quality[s] * rel + 0.7 * shared + rng.normal(0, 1, docs)
            top = np.argsort(-score)[:depth]
            if shift is not None:
                later = deep[s] * rel + 0.7 * shared + rng.normal(0, 1, docs)
                head = top[:shift].tolist()
                seen = set(head)
                rest = [d for d in np.argsort(-later).tolist() if d not in seen]
                top = np.array(head + rest[:depth - shift])
                score = np.zeros(docs)
                score[top] = np.arange(len(top), 0, -1, dtype=float)
            lines[s].extend(f"{t} Q0 D{d} {k} {score[d]:.6f} r{s:02d}\n"
                            for k, d in enumerate(top, 1))
    return ({f"r{s:02d}": Run.read("".join(lines[s])) for s in range(runs)},
            Qrels.from_dict(qrels))


def teams(seed: int, topics: int = 50, n_teams: int = 12, docs: int = 3000,
          depth: int = 100) -> tuple[dict[str, Run], Qrels]:
    """Closer to a TREC pool: teams of 1-6 near-duplicate runs of very different quality,
    whose rate of relevant documents falls with depth at its own pace.

    Team g has a quality ``a_g`` uniform in [0.05, 0.95] and a depth scale ``L_g``
    log-uniform in [5, 150] (front-loaded runs dry up after a few documents, others
    keep finding relevant ones deep down); its runs perturb both slightly. At rank k
    a run retrieves its next relevant document with probability
    ``a * exp(-k / L) + b`` (``b`` uniform in [0, 0.05]), else its next non-relevant
    one; a team's runs share one noisy order of the relevant documents (perturbed per
    run), and a shared per-document ease makes some relevant documents found by many
    teams. 20-300 relevant documents per topic among ``docs``.
    """
    rng = np.random.default_rng(seed)
    team_of: list[int] = []
    for g in range(n_teams):
        team_of += [g] * int(rng.integers(1, 7))
    quality = rng.uniform(0.05, 0.95, n_teams)
    scale = np.exp(rng.uniform(np.log(5), np.log(150), n_teams))
    a = np.clip(quality[team_of] + rng.normal(0, 0.05, len(team_of)), 0.01, 0.99)
    length = scale[team_of] * np.exp(rng.normal(0, 0.2, len(team_of)))
    floor = rng.uniform(0, 0.05, len(team_of))
    lines: list[list[str]] = [[] for _ in team_of]
    qrels: dict[str, dict[str, int]] = {}
    for t in range(1, topics + 1):
        n_rel = int(rng.integers(20, 301))
        rel = rng.choice(docs, n_rel, replace=False)
        non = np.setdiff1d(np.arange(docs), rel)
        ease = rng.normal(0, 1, n_rel)
        qrels[str(t)] = {f"D{d}": 1 for d in rel}
        for g in range(n_teams):
            r_order = rel[np.argsort(-(ease + rng.normal(0, 1, n_rel)))]
            n_order = rng.permutation(non)
            for s in (s for s, team in enumerate(team_of) if team == g):
                ro = r_order[np.argsort(np.arange(n_rel) + rng.normal(0, 3, n_rel))]
                no = n_order[np.argsort(np.arange(len(non)) + rng.normal(0, 3, len(non)))]
                ri = ni = 0
                out = []
                for k in range(depth):
                    if ri < n_rel and rng.random() < a[s] * np.exp(-k / length[s]) + floor[s]:
                        out.append(ro[ri])
                        ri += 1
                    else:
                        out.append(no[ni])
                        ni += 1
                lines[s].extend(f"{t} Q0 D{d} {k} {depth - k} r{s:02d}\n"
                                for k, d in enumerate(out, 1))
    return ({f"r{s:02d}": Run.read("".join(lines[s])) for s in range(len(team_of))},
            Qrels.from_dict(qrels))


def table(name: str, runs: dict[str, Run], qrels: Qrels, depth: int | None,
          seed: int) -> str:
    grades = grades_of(qrels)
    cands = Candidates.from_runs(runs, depth)
    topics = [t for t in cands.topics if t in grades]
    size = {t: len(cands.provenance(t)) for t in topics}
    rel_in = sum(1 for t in topics for d in cands.provenance(t) if grades[t].get(d, 0) >= 1)
    top = max(int(np.ceil(max(SHARES) * n)) for n in size.values())
    per = sum(size.values()) / len(topics)
    out = [f"### {name}: {len(runs)} runs, {len(topics)} topics, pool {per:.0f} "
           f"documents per topic, {rel_in:,} relevant in the pool", "",
           "| strategy | " + " | ".join(f"found @{s:.0%}" for s in SHARES) + " |",
           "|---|" + "---|" * len(SHARES)]
    for plan in PLANS:
        # the mean over seeds: tie-breaks (and Thompson's draws) depend on the seed
        seeds = range(seed, seed + SEEDS) if plan.strategy == "bandit" else [seed]
        found = np.zeros(len(SHARES))
        for s in seeds:
            seq = sequences(plan, cands, grades, top, seed=s)
            found += [sum(1 for t in topics for j in seq.get(t, [])[:int(np.ceil(share * size[t]))]
                          if j.grade >= 1) for share in SHARES]
        found /= len(seeds)
        cells = [f"{f / rel_in:.1%} ({f:,.0f})" for f in found]
        out.append(f"| {plan.label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--topics", type=int, default=50)
    args = ap.parse_args()
    runs, qrels = synthetic(args.seed, args.topics)
    print(table("synthetic", runs, qrels, 100, args.seed))
    print()
    runs, qrels = synthetic(args.seed, args.topics, shift=20)
    print(table("synthetic, quality shifts at rank 20", runs, qrels, 100, args.seed))
    print()
    runs, qrels = teams(args.seed, args.topics)
    print(table("teams of near-duplicate runs, front-loaded or sustained", runs, qrels, 100,
                args.seed))
    cran = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "cranfield"
    if cran.is_dir():
        from relkit.pooling.depth import run_name

        cruns = {run_name(p): Run.read(p) for p in sorted(cran.glob("runs/*/*.txt"))}
        print()
        print(table("Cranfield", cruns, Qrels.read(cran / "cranqrel"), None, args.seed))


if __name__ == "__main__":
    main()
