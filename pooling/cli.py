"""``relkit pool-*``: pool statistics, coverage, reusability, simulation, sampling.

``relkit pool RUN...`` itself lives with the judging commands (it can import
into a judging database); it uses :func:`load_runs` and the registry here.
Data goes to stdout as TSV with a header; diagnostics to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True)


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


def load_runs(paths: Sequence[Path], warn: bool = True) -> dict:  # type: ignore[type-arg]
    """Read runs named by file stem; warn (stderr) when a rank column disagrees with scores."""
    from relkit.metrics.core.progress import Bar
    from relkit.metrics.data import Run
    from relkit.pooling.candidates import rank_disagreements
    from relkit.pooling.depth import run_name
    from relkit.pooling.errors import PoolingError

    loaded = {}
    with Bar("reading runs", len(paths), unit="runs") as bar:
        for done, path in enumerate(paths, start=1):
            if not path.is_file():
                raise PoolingError(f"{path}: no such file")
            name = run_name(path)
            if name in loaded:
                raise PoolingError(f"two runs are named {name!r} (file stems must differ)")
            loaded[name] = Run.read(path)
            bar.update(done)
            if warn:
                bad = rank_disagreements(loaded[name])
                if bad:
                    _say(f"relkit: warning: {path}: the rank column disagrees with the scores "
                         f"on {len(bad)} topic(s) (first: {bad[0]}); scores decide, as in "
                         "trec_eval")
    return loaded


def _groups(paths: Sequence[Path], by: str, group_file: Path | None) -> dict[str, str] | None:
    from relkit.pooling.depth import run_name
    from relkit.pooling.errors import PoolingError

    if group_file is not None:
        out = {}
        from relkit.metrics.core.errors import check_utf8, open_error

        try:
            text = group_file.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise open_error(group_file, exc) from None
        for n, line in enumerate(text.splitlines(), 1):
            check_utf8(str(group_file), n, line)
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2:
                raise PoolingError(f"{group_file}:{n}: expected 'run group', got {line!r}")
            out[parts[0]] = parts[1]
        return out
    if by == "dir":
        return {run_name(p): p.resolve().parent.name for p in paths}
    if by == "run":
        return None
    raise PoolingError(f"--group-by must be 'run' or 'dir'; got {by!r}")


def _parse_budgets(text: str) -> list[int]:
    from relkit.pooling.errors import PoolingError

    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        raise PoolingError(f"--budget must be comma-separated ints (e.g. 25,50,100); "
                           f"got {text!r}") from None
    if any(b < 1 for b in out):
        raise PoolingError(f"--budget values must be >= 1; got {text!r}")
    return out


@app.command("pool-strategies")
def strategies_cmd() -> None:
    """List the pooling strategies, their parameters and references.

    Example: relkit pool-strategies
    """
    from relkit.pooling.strategies import load_all

    print("name\tkind\tparameters\tsummary\treference")
    for n, s in sorted(load_all().items()):
        params = ", ".join(f"{p.name}={p.default} ({p.expected()})" for p in s.params)
        print(f"{n}\t{s.kind}\t{params}\t{s.summary}\t{s.reference}")


@app.command("pool-stats")
def stats_cmd(
    pool: Path = typer.Argument(..., help="A pool file (relkit pool -o pool.tsv)"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group' lines"),
    overlap: bool = typer.Option(False, "--overlap", help="Also print pairwise run overlap"),
) -> None:
    """Pool statistics: size per topic, documents contributed and unique per run (and group).

    Example: relkit pool-stats pool.tsv --groups groups.txt --overlap
    """
    from relkit.pooling.pool import Pool
    from relkit.pooling.stats import contributions, shared_by_one
    from relkit.pooling.stats import overlap as run_overlap

    p, _ = Pool.read(pool)
    groups = _groups([], "run", group_file) or {} if group_file is not None else None
    sizes = p.sizes()
    n = len(sizes)
    _say(f"relkit: {len(p):,} pairs over {n} topics (mean {len(p) / max(n, 1):.1f} per topic; "
         f"{shared_by_one(p):.1%} retrieved by one run only)")
    print("section\tname\tsize\tunique\tunique_share")
    for t, k in sizes.items():
        print(f"topic\t{t}\t{k}\t\t")
    for c in contributions(p):
        print(f"run\t{c.name}\t{c.contributed}\t{c.unique}\t{c.unique / c.contributed:.4f}")
    if groups is not None:
        for c in contributions(p, groups):
            print(f"group\t{c.name}\t{c.contributed}\t{c.unique}\t"
                  f"{c.unique / c.contributed:.4f}")
    if overlap:
        for (a, b), v in run_overlap(p).items():
            print(f"overlap\t{a}|{b}\t{v:.4f}\t\t")


@app.command("pool-coverage")
def coverage_cmd(
    qrels: Path = typer.Argument(..., help="Qrels file"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    cutoff: list[int] = typer.Option([10, 100], "-k", "--cutoff", help="Judged@k cutoffs"),
) -> None:
    """Coverage table: each run's Judged@k and unjudged rate against a qrels.

    Example: relkit pool-coverage qrels.txt runs/*.txt -k 10 -k 20
    """
    from relkit.metrics.data import Qrels
    from relkit.pooling.coverage import coverage

    table = coverage(Qrels.read(qrels), load_runs(runs), cutoff)
    cols = [f"Judged@{k}" for k in sorted(set(cutoff))] + ["unjudged"]
    print("run\t" + "\t".join(cols))
    for name, row in table.items():
        print(name + "\t" + "\t".join(f"{row[c]:.4f}" for c in cols))


@app.command("pool-reuse")
def reuse_cmd(
    qrels: Path = typer.Argument(..., help="Qrels built from these runs' pool"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    depth: int = typer.Option(100, help="Pool depth the qrels were built with"),
    group_by: str = typer.Option("run", help="Leave out one 'run' at a time, or each "
                                 "directory ('dir') of runs as a group"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group' lines"),
    measure: str = typer.Option("map", "-m", "--measure", help="Measure to rank systems by"),
) -> None:
    """Leave-one-run-out (or group-out) reusability: score drop, rank drop, Kendall's tau.

    Example: relkit pool-reuse qrels.txt runs/*/*.txt --depth 50 --group-by dir
    """
    from relkit.metrics.data import Qrels
    from relkit.pooling.reuse import leave_out

    loaded = load_runs(runs)
    rows = leave_out(Qrels.read(qrels), loaded, depth, _groups(runs, group_by, group_file),
                     measure)
    print("left_out\trun\tremoved\tremoved_relevant\tfull\tleft_out_score\tdrop\t"
          "rank_full\trank_left_out\trank_drop\ttau")
    for r in rows:
        tau = "" if r.tau is None else f"{r.tau:.4f}"
        print(f"{r.name}\t{r.run}\t{r.removed}\t{r.removed_relevant}\t{r.full:.4f}\t"
              f"{r.left_out:.4f}\t{r.drop:.4f}\t{r.rank_full}\t{r.rank_left_out}\t"
              f"{r.rank_drop}\t{tau}")


def _plans(specs: Sequence[str], params: Sequence[str]) -> list:  # type: ignore[type-arg]
    """``bandit:policy=thompson`` -> Plan; ``--param`` applies to every strategy that has it."""
    from relkit.pooling.simulate import Plan
    from relkit.pooling.strategies import get, parse_params

    common = parse_params(params)
    out = []
    for spec in specs:
        name, _, rest = spec.partition(":")
        s = get(name)
        own = parse_params([x for x in rest.split(";") if x]) if rest else {}
        mine = {k: v for k, v in common.items() if k in {p.name for p in s.params}}
        mine.update(own)
        s.validate(mine)
        out.append(Plan(spec, name, mine))
    return out


@app.command("pool-simulate")
def simulate_cmd(
    qrels: Path = typer.Argument(..., help="A complete qrels (the simulated assessor)"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    strategy: list[str] = typer.Option(
        ["depth", "bandit"], "-s", "--strategy",
        help="Strategy, optionally with parameters: 'bandit:policy=thompson' (repeatable)"),
    budget: str = typer.Option("25,50,100", help="Judgments per topic, comma-separated"),
    param: list[str] = typer.Option([], "--param", help="name=value for every strategy "
                                    "that takes it (repeatable)"),
    depth: int | None = typer.Option(None, help="Cut every run at this depth first"),
    seed: int = typer.Option(0, help="Seed of the randomised strategies"),
    level: int = typer.Option(1, "-l", "--level", help="Lowest grade that counts as relevant"),
    measure: str = typer.Option("map", "-m", "--measure", help="Measure for Kendall's tau"),
    plot_file: Path | None = typer.Option(None, "--plot", help="Write the curve (SVG or PNG)"),
) -> None:
    """Replay strategies against a complete qrels: relevant found, tau, Judged@10 per budget.

    Strategies: see `relkit pool-strategies`.

    Example: relkit pool-simulate qrels.txt runs/*.txt -s depth -s hedge --plot curve.svg
    """
    from relkit.metrics.data import Qrels
    from relkit.pooling.simulate import plot, simulate

    plans = _plans(strategy, param)
    budgets = _parse_budgets(budget)
    if plot_file is not None:  # before the simulation, not after it
        from relkit.metrics.core.errors import check_output
        from relkit.pooling.errors import PoolingError

        check_output(plot_file, "--plot")
        if plot_file.suffix.lower() not in (".svg", ".png", ".pdf"):
            raise PoolingError(f"--plot {plot_file}: write an .svg, .png or .pdf file")
    sim = simulate(Qrels.read(qrels), load_runs(runs), plans, budgets, depth=depth, seed=seed,
                   level=level, measure=measure,
                   progress=lambda label: _say(f"relkit: simulating {label}"))
    print("strategy\tbudget\tjudged\trelevant\tfound_share\trecall\ttau\tjudged@10")
    for r in sim.rows:
        tau = "" if r.tau is None else f"{r.tau:.4f}"
        print(f"{r.label}\t{r.budget}\t{r.judged}\t{r.relevant}\t{r.found_share:.4f}\t"
              f"{r.recall:.4f}\t{tau}\t{r.judged_at_10:.4f}")
    if plot_file is not None:
        plot(sim, str(plot_file), title=f"{qrels.name}: relevant found vs judgments")
        _say(f"relkit: wrote {plot_file}")


@app.command("pool-sample")
def sample_cmd(
    pool: Path = typer.Argument(..., help="A pool file with provenance (relkit pool -o)"),
    strata: str = typer.Option("10:1,30:0.5,100:0.1", help="'max_rank:rate,...' by best rank"),
    seed: int = typer.Option(0, help="Seed of the sample"),
    output: Path = typer.Option(..., "-o", "--output", help="Write the sample here"),
) -> None:
    """Stratified sample of a pool with inclusion probabilities (for infAP and statAP).

    Example: relkit pool-sample pool.tsv --strata 10:1,30:0.5,100:0.1 --seed 7 -o sample.tsv
    """
    from relkit.pooling.pool import Pool
    from relkit.pooling.sample import parse_strata, stratified_sample, write_sample

    p, _ = Pool.read(pool)
    s = stratified_sample(p, parse_strata(strata), seed)
    write_sample(s, output)
    _say(f"relkit: sampled {len(s):,} of {len(p):,} pooled pairs into {output}")
