"""``relkit pool-*``: pool statistics, coverage, reusability, simulation, sampling.

``relkit pool RUN...`` itself lives with the judging commands (it can import
into a judging database; its work is :mod:`relkit.judging.poolruns`'s); it reads
runs as these commands do (:mod:`relkit.pooling.runfiles`).
Data goes to stdout as TSV with a header; diagnostics to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from relkit.metrics.commands.numopt import COUNT, GRADE, SEED, Num
from relkit.metrics.commands.tableopts import TableFormat, TableOutput
from relkit.metrics.core.tables import check_table_options as _table_options

app = typer.Typer(add_completion=False, no_args_is_help=True)



def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


def load_runs(paths: Sequence[Path], warn: bool = True) -> dict:  # type: ignore[type-arg]
    """Read runs named by file stem; warn (stderr) when a rank column disagrees with scores
    (:func:`relkit.pooling.runfiles.read_runs`)."""
    from relkit.pooling.runfiles import read_runs

    return read_runs(paths, _say if warn else None)



def _read_qrels(path: Path) -> Any:
    """The qrels named on the command line; ``-`` reads them from stdin (as ``relkit eval``)."""
    from relkit.metrics.data import Qrels

    return Qrels.read(sys.stdin.buffer if str(path) == "-" else path)


def _groups(paths: Sequence[Path], by: str, group_file: Path | None) -> dict[str, str] | None:
    from relkit.pooling.depth import run_name

    if group_file is not None:
        # The same map file as `relkit pool --groups` (a priority column is allowed).
        from relkit.pooling.groups import read_groups

        return read_groups(group_file).group
    if by == "dir":
        return {run_name(p): p.resolve().parent.name for p in paths}
    if by == "run":
        return None
    from relkit.metrics.core.options import OptionError

    raise OptionError("--group-by", f"expected 'run' or 'dir'; got {by!r}")


def _parse_budgets(text: str) -> list[int]:
    from relkit.metrics.core.options import OptionError

    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        raise OptionError("--budget", f"expected comma-separated ints (e.g. 25,50,100); "
                          f"got {text!r}") from None
    if any(b < 1 for b in out):
        raise OptionError("--budget", f"every value must be >= 1; got {text!r}")
    return out


@app.command("pool-strategies")
def strategies_cmd(fmt: TableFormat = "tsv", output: TableOutput = None) -> None:
    """List the pooling strategies, their parameters and references.

    Example: relkit pool-strategies --format markdown
    """
    from relkit.metrics.core.tables import write_table
    from relkit.pooling.strategies import load_all

    _table_options(fmt, output)
    rows = [[n, s.kind, ", ".join(f"{p.name}={p.default} ({p.expected()})" for p in s.params),
             s.summary, s.reference] for n, s in sorted(load_all().items())]
    write_table(["name", "kind", "parameters", "summary", "reference"], rows, fmt, output)


@app.command("pool-stats")
def stats_cmd(
    pool: Path = typer.Argument(..., help="A pool file (relkit pool -o pool.tsv)"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group' lines"),
    overlap: bool = typer.Option(False, "--overlap", help="Also print pairwise run overlap"),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Pool statistics: size per topic, documents contributed and unique per run (and group).

    Example: relkit pool-stats pool.tsv --groups groups.txt --overlap
    """
    from relkit.metrics.core.tables import Cell, write_table
    from relkit.pooling.pool import Pool
    from relkit.pooling.stats import contributions, shared_by_one
    from relkit.pooling.stats import overlap as run_overlap

    _table_options(fmt, output)
    p, _ = Pool.read(pool)
    groups = _groups([], "run", group_file) or {} if group_file is not None else None
    sizes = p.sizes()
    n = len(sizes)
    _say(f"relkit: {len(p):,} pairs over {n} topics (mean {len(p) / max(n, 1):.1f} per topic; "
         f"{shared_by_one(p):.1%} retrieved by one run only)")
    rows: list[list[Cell]] = [["topic", t, k, None, None] for t, k in sizes.items()]
    rows += [["run", c.name, c.contributed, c.unique, c.unique / c.contributed]
             for c in contributions(p)]
    if groups is not None:
        rows += [["group", c.name, c.contributed, c.unique, c.unique / c.contributed]
                 for c in contributions(p, groups)]
    if overlap:
        rows += [["overlap", f"{a}|{b}", v, None, None] for (a, b), v in run_overlap(p).items()]
    write_table(["section", "name", "size", "unique", "unique_share"], rows, fmt, output)


@app.command("pool-coverage")
def coverage_cmd(
    qrels: Path = typer.Argument(..., help="Qrels file ('-': stdin)"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    cutoff: list[int] = Num([10, 100], "-k", "--cutoff", within=COUNT, help="Judged@k cutoffs"),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Coverage table: each run's Judged@k and unjudged rate against a qrels.

    Example: relkit pool-coverage qrels.txt runs/*.txt -k 10 -k 20 --format markdown
    """
    from relkit.metrics.core.tables import write_table
    from relkit.pooling.coverage import coverage

    _table_options(fmt, output)
    table = coverage(_read_qrels(qrels), load_runs(runs), cutoff)
    cols = [f"Judged@{k}" for k in sorted(set(cutoff))] + ["unjudged"]
    write_table(["run", *cols], [[name, *(float(row[c]) for c in cols)]
                                 for name, row in table.items()],
                fmt, output)


@app.command("pool-reuse")
def reuse_cmd(
    qrels: Path = typer.Argument(..., help="Qrels built from these runs' pool ('-': stdin)"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    depth: int = Num(100, within=COUNT, help="Pool depth the qrels were built with"),
    group_by: str = typer.Option("run", help="Leave out one 'run' at a time, or each "
                                 "directory ('dir') of runs as a group"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group' lines"),
    measure: str = typer.Option("map", "-m", "--measure", help="Measure to rank systems by"),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Leave-one-run-out (or group-out) reusability: score drop, rank drop, Kendall's tau.

    Also gives (columns pool_bias, pool_bias_sd, p10_unjudged_share, the same on
    every row; and a summary on stderr) the pool's estimated bias against a new system: the mean
    drop, to add to a non-contributing system's score (Webber & Park, SIGIR 2009),
    and for P@10 the share of a new run's unjudged top-10 documents estimated
    relevant, from what the left-out runs lost in precision and anti-precision
    (after Lipani, Lupu & Hanbury, SIGIR 2015): P@10 + share x unjudged@10.

    Example: relkit pool-reuse qrels.txt runs/*/*.txt --depth 50 --group-by dir
    """
    from relkit.metrics.core.tables import write_table
    from relkit.pooling.reuse import leave_out, pool_bias

    _check_measure(measure)
    _table_options(fmt, output)
    loaded = load_runs(runs)
    q = _read_qrels(qrels)   # once: '-' is stdin
    groups = _groups(runs, group_by, group_file)
    rows = leave_out(q, loaded, depth, groups, measure)
    bias = pool_bias(rows)
    _say(f"relkit: estimated pool bias against a new system (Webber & Park 2009): "
         f"{measure} +{bias.adjustment:.4f} (mean leave-out drop over {bias.runs} runs, "
         f"sd {bias.stdev:.4f}); add it to a non-contributing system's score")
    from relkit.pooling.bias import anti_precision_split, leave_out_parts

    split = anti_precision_split(leave_out_parts(q, loaded, depth, 10, groups))
    _say(f"relkit: P@10 anti-precision split (after Lipani et al. 2015): {split.share:.1%} "
         f"of a non-contributing run's unjudged top-10 documents estimated relevant "
         f"(left-out runs lost P@10 {split.precision_lost:.4f}, anti-precision "
         f"{split.anti_precision_lost:.4f}); its P@10 + {split.share:.4f} x unjudged@10")
    # The two estimates are the pool's, not a row's: repeated on every row so they are
    # in the data in every format (stderr alone loses them to --quiet and to JSON).
    write_table(["left_out", "run", "removed", "removed_relevant", "full", "left_out_score",
                 "drop", "rank_full", "rank_left_out", "rank_drop", "tau", "pool_bias",
                 "pool_bias_sd", "p10_unjudged_share"],
                [[r.name, r.run, r.removed, r.removed_relevant, float(r.full),
                  float(r.left_out), float(r.drop), r.rank_full, r.rank_left_out, r.rank_drop,
                  None if r.tau is None else float(r.tau), float(bias.adjustment),
                  float(bias.stdev), float(split.share)] for r in rows], fmt, output)


def _check_measure(name: str) -> None:
    """An unknown measure is a usage error (exit 2), found before any file is read."""
    from relkit.metrics.core.options import option_value
    from relkit.metrics.evaluator import resolve

    with option_value("--measure"):
        resolve([name])


def _plans(specs: Sequence[str], params: Sequence[str]) -> list:  # type: ignore[type-arg]
    """``bandit:policy=thompson`` -> Plan; ``--param`` applies to every strategy that has it."""
    from relkit.metrics.core.options import option_value
    from relkit.pooling.simulate import Plan
    from relkit.pooling.strategies import get, parse_params

    with option_value("--param"):
        common = parse_params(params)
    out = []
    for spec in specs:
        with option_value("--strategy"):
            name, _, rest = spec.partition(":")
            s = get(name)
            own = parse_params([x for x in rest.split(";") if x]) if rest else {}
            mine = {k: v for k, v in common.items() if k in {p.name for p in s.params}}
            mine.update(own)
            s.validate(mine)
        out.append(Plan(spec, name, mine))
    return out


def _texts(plans: Sequence[Any], docs: Path | None, topics: Path | None) -> Any:
    """The text a ``cal`` plan reads (None when no plan reads text). A file that cannot
    be read fails first (exit 1), as everywhere; then text without cal is a usage error."""
    from relkit.metrics.core.options import OptionError
    from relkit.pooling.cal.texts import TextSource, read_texts

    d = read_texts(docs, "documents") if docs is not None else None
    t = read_texts(topics, "topics") if topics is not None else None
    if not any(p.strategy == "cal" for p in plans):
        if d is not None or t is not None:
            raise OptionError("--docs" if d is not None else "--topics",
                              "only the cal strategy reads text")
        return None
    if d is None or t is None:
        raise OptionError("--docs" if d is None else "--topics",
                          "the cal strategy needs the documents' and the topics' text")
    return TextSource(d, t)


@app.command("pool-simulate")
def simulate_cmd(
    qrels: Path = typer.Argument(..., help="A complete qrels (the simulated assessor; '-': "
                                 "stdin)"),
    runs: list[Path] = typer.Argument(..., help="TREC run files"),
    strategy: list[str] = typer.Option(
        ["depth", "bandit"], "-s", "--strategy",
        help="Strategy, optionally with parameters: 'bandit:policy=thompson' (repeatable)"),
    budget: str = typer.Option("25,50,100", help="Judgments per topic, comma-separated"),
    param: list[str] = typer.Option([], "--param", help="name=value for every strategy "
                                    "that takes it (repeatable)"),
    depth: int | None = Num(None, within=COUNT, help="Cut every run at this depth first"),
    seed: int = Num(0, within=SEED, help="Seed of the randomised strategies"),
    level: int = Num(1, "-l", "--level", within=GRADE, help="Lowest grade that counts as relevant"),
    measure: str = typer.Option("map", "-m", "--measure", help="Measure for Kendall's tau"),
    plot_file: Path | None = typer.Option(None, "--plot", help="Write the curve (SVG or PNG)"),
    stop: str | None = typer.Option(None, "--stop", help="Stop each topic of an adaptive "
                                    "strategy early: knee, target or target:T (Cormack & "
                                    "Grossman); static strategies judge their order"),
    docs: Path | None = typer.Option(None, "--docs", help="Documents' text for cal: BEIR "
                                     "JSONL (_id, title, text), id<TAB>text lines or "
                                     "SMART (.I, .T, .W)"),
    topics_file: Path | None = typer.Option(None, "--topics", help="Topics' text for cal, "
                                            "in the same forms"),
    source_from: str | None = typer.Option(None, "--from", help="cal's candidates for "
                                           "every cal strategy: runs or collection"),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Replay strategies against a complete qrels: relevant found, tau, Judged@10 per budget.

    With --stop, the judged column counts what each adaptive strategy judged
    before its rule stopped the topic, and stderr says how many topics stopped.

    Strategies: see `relkit pool-strategies`.

    Example: relkit pool-simulate qrels.txt runs/*.txt -s depth -s hedge --plot curve.svg
    """
    from relkit.metrics.core.tables import write_table
    from relkit.pooling.simulate import plot, simulate

    if source_from is not None:
        from relkit.metrics.core.options import OptionError

        if source_from not in ("runs", "collection"):
            raise OptionError("--from", f"expected runs or collection; got {source_from!r}")
        if not any(s.partition(":")[0] == "cal" for s in strategy):
            raise OptionError("--from", "is for the cal strategy (give -s cal)")
    plans = _plans(strategy, [*param, *([f"from={source_from}"] if source_from else [])])
    budgets = _parse_budgets(budget)
    if stop is not None:
        from relkit.metrics.core.options import option_value
        from relkit.pooling.stopping import parse_stop

        with option_value("--stop"):
            parse_stop(stop)
    _check_measure(measure)
    _table_options(fmt, output)
    if plot_file is not None:  # before the simulation, not after it
        from relkit.metrics.core.errors import check_output
        from relkit.metrics.core.options import OptionError

        check_output(plot_file, "--plot")
        if plot_file.suffix.lower() not in (".svg", ".png", ".pdf"):
            raise OptionError("--plot", f"{plot_file}: write an .svg, .png or .pdf file")
    texts = _texts(plans, docs, topics_file)
    sim = simulate(_read_qrels(qrels), load_runs(runs), plans, budgets, depth=depth, seed=seed,
                   level=level, measure=measure,
                   progress=lambda label: _say(f"relkit: simulating {label}"), stop=stop,
                   texts=texts)
    for label, at in sim.stopped.items():
        _say(f"relkit: {label}: the {stop} rule stopped {len(at)} topic(s), after "
             f"{sum(at.values()) / len(at):.1f} judgments on average")
    write_table(["strategy", "budget", "judged", "relevant", "found_share", "recall", "tau",
                 "judged@10"],
                [[r.label, r.budget, r.judged, r.relevant, float(r.found_share),
                  float(r.recall), None if r.tau is None else float(r.tau),
                  float(r.judged_at_10)] for r in sim.rows], fmt, output)
    if plot_file is not None:
        plot(sim, str(plot_file), title=f"{qrels.name}: relevant found vs judgments")
        _say(f"relkit: wrote {plot_file}")


@app.command("pool-sample")
def sample_cmd(
    pool: Path = typer.Argument(..., help="A pool file with provenance (relkit pool -o)"),
    strata: str = typer.Option("10:1,30:0.5,100:0.1", help="'max_rank:rate,...' by best rank"),
    seed: int = Num(0, within=SEED, help="Seed of the sample"),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the sample here"),
    qrels: Path | None = typer.Option(
        None, "--qrels", help="Judgments of the sampled documents (needed by --prels)"),
    prels: Path | None = typer.Option(
        None, "--prels", help="Write the judged sample as NIST sample_eval prels "
        "(every stratum document; unsampled -1) for relkit eval -R prels"),
    for_: str = typer.Option(
        "inferred", "--for", help="inferred (default: strata by rank, for xinfAP/statAP) "
        "or ppi (POOL is the automatic qrels; --budget pairs for relkit eval --ppi)"),
    budget: int | None = Num(None, "--budget", within=COUNT,
                             help="With --for ppi: human labels to draw (topics: "
                             "floor(budget x topics / pairs) whole topics)"),
    design: str = typer.Option(
        "simple", "--design", help="With --for ppi: simple or stratified (by automatic "
        "grade, proportional allocation) pairs, or topics (whole topics at random)"),
) -> None:
    """Stratified sample of a pool with inclusion probabilities (for xinfAP and statAP).

    The same pool, strata and seed give the same sample: draw it (-o), judge it, then
    run again with --qrels and --prels to write the prels that relkit eval -R prels reads.

    Example: relkit pool-sample pool.tsv --strata 10:1,30:0.5,100:0.1 --seed 7 -o sample.tsv
    """
    from relkit.pooling.sampling import SampleRequest, sample_pool

    sample_pool(SampleRequest(pool=pool, strata=strata, seed=seed, output=output, qrels=qrels,
                              prels=prels, for_=for_, budget=budget, design=design), _say)


def select_run_files(paths: Sequence[Path], group_file: Path | None, prefix: str | None,
                     per_group: int | None) -> list[Path]:
    """:func:`relkit.pooling.runfiles.select_run_files`, saying on stderr how many runs
    and groups were kept."""
    from relkit.pooling.runfiles import select_run_files as select

    return select(paths, group_file, prefix, per_group, _say)
