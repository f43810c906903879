"""``relkit interleave make | analyze``: interleave runs, and compare them from clicks.

Registered in ``judging/cli.py`` as the ``interleave`` sub-app. numpy, pyarrow, scipy
and duckdb are imported inside the commands: ``relkit interleave --help`` loads none.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.metrics.commands.numopt import COUNT, SEED, Num
from relkit.metrics.commands.tableopts import TableFormat, TableOutput
from relkit.metrics.online.cli import INPUT_FORMAT_HELP, MAP_HELP, MEMORY_HELP

# simulate's defaults (its work, and their one definition: simjob)
from relkit.metrics.online.interleave.simjob import SIM_GRID, SIM_METHODS

app = typer.Typer(help="Interleaving and multileaving: make the shown lists, compare runs "
                  "from clicks.", no_args_is_help=True, add_completion=False,
                  epilog="Example: relkit interleave make a.run b.run --method team-draft "
                         "-o lists.tsv")

METHODS = ("team-draft", "balanced", "probabilistic", "optimized")
TWO_RUN_METHODS = ("balanced", "optimized")


def _say(msg: str) -> None:
    sys.stderr.write(f"relkit: {msg}\n")


@app.command(epilog="Example: relkit interleave make bm25.run dense.run --method "
             "team-draft --depth 10 --seed 7 -o lists.tsv")
def make(
    runs: list[Path] = typer.Argument(..., help="Two TREC runs (more: multileaving, with "
                                      "team-draft or probabilistic)"),
    method: str = typer.Option("team-draft", "--method", help="team-draft, balanced, "
                               "probabilistic or optimized"),
    depth: int = Num(10, "--depth", within=COUNT, help="Length of each shown list"),
    seed: int = Num(0, "--seed", within=SEED, help="Seed of the random choices (the same seed "
                             "gives the same lists)"),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the lists here "
                                       "(.tsv, .jsonl or .parquet) instead of stdout (TSV)"),
) -> None:
    """Interleave runs: for every query, the list a live system would show, with teams.

    One row per shown position: query_id, rank, doc_id, team (A for the first run, B
    for the second...); balanced adds rank_A, rank_B, probabilistic p_A, p_B...
    (docs/interleaving.md). Runs are ranked as relkit eval ranks them (score
    descending, ties by docno descending).
    """
    import numpy as np

    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import OptionError
    from relkit.metrics.online.interleave import methods as m
    from relkit.metrics.online.interleave.lists import to_table, write_lists
    from relkit.metrics.online.interleave.rankings import load_rankings

    if method not in METHODS:
        raise OptionError("--method", f"expected one of {', '.join(METHODS)}; got {method!r}")
    if output is not None:
        check_output(output)
        from relkit.metrics.core.errors import FormatError
        from relkit.metrics.online.interleave.lists import list_format

        try:
            list_format(output, strict=True)
        except FormatError as exc:
            raise OptionError("-o", f"expected {exc.expected}; got {str(output)!r} (the "
                              "lists are written as the suffix says)") from None
    if len(runs) < 2:
        raise OptionError("RUNS", f"expected at least two runs; got {len(runs)}")
    if method in TWO_RUN_METHODS and len(runs) != 2:
        raise OptionError("--method", f"{method} interleaves exactly two runs; got "
                          f"{len(runs)} (multileave with team-draft or probabilistic)")
    # probabilistic draws from the whole ranking (Hofmann et al.'s softmax): keep more
    width = depth if method in ("team-draft", "balanced") else max(depth, 100)
    rankings = load_rankings(list(runs), width)   # paths: a str with a newline is text
    rng = np.random.default_rng(seed)
    if method == "team-draft":
        shown = m.team_draft(rankings.mats, depth, rng)
    elif method == "balanced":
        shown = m.balanced(rankings.mats, depth, rng)
    elif method == "probabilistic":
        shown = m.probabilistic(rankings.mats, depth, rng)
    else:
        from relkit.metrics.online.interleave.optimized import optimized

        shown = optimized(rankings.mats, depth, rng)
    write_lists(to_table(rankings, shown, method), output)
    where = "stdout" if output is None else str(output)
    _say(f"{len(rankings.queries):,} queries x {len(runs)} runs, {method}, depth {depth} "
         f"-> {where}")


@app.command(epilog="Example: relkit interleave analyze clicks.parquet --lists lists.tsv "
             "--format markdown")
def analyze(
    log: Path = typer.Argument(..., help="The click log of the experiment (Parquet, CSV, "
                               "TSV or JSONL)"),
    lists: Path = typer.Option(..., "--lists", help="The lists file `relkit interleave "
                               "make` wrote for this experiment"),
    names: str | None = typer.Option(None, "--names", help="Comma-separated run names for "
                                     "the teams A, B... (default: the letters)"),
    seed: int = Num(0, "--seed", within=SEED, help="Seed of the bootstrap over users"),
    samples: int = Num(1000, "--samples", within=COUNT, help="Bootstrap resamples"),
    map_: list[str] = typer.Option([], "--map", help=MAP_HELP),
    input_format: str | None = typer.Option(None, "--input-format", help=INPUT_FORMAT_HELP),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
    memory_limit: str | None = typer.Option(None, "--memory-limit", help=MEMORY_HELP),
) -> None:
    """Compare interleaved runs from clicks: wins, ties, Delta, sign test, bootstrap CI.

    Each impression with clicks is a win, a loss or a tie per pair of runs (team draft:
    clicks per team; balanced: Joachims's rule; probabilistic: marginalised over the
    assignments). Delta = (wins_a + ties/2) / (wins_a + wins_b + ties) - 1/2 (positive:
    run a is preferred); p_value: two-sided sign test of wins vs losses; ci_low/ci_high:
    a 95% bootstrap interval of Delta over users.
    """
    from relkit.metrics.core.tables import check_table_options, write_table
    from relkit.metrics.online.cli import _connect, _input_format, _mapping
    from relkit.metrics.online.interleave.analyze import HEADER
    from relkit.metrics.online.interleave.analyze import analyze as compare
    from relkit.metrics.online.pvalues import p_columns
    from relkit.metrics.online.source import open_log

    check_table_options(fmt, output)
    source = open_log(log, mapping=_mapping(map_), fmt=_input_format(input_format),
                      con=_connect(memory_limit))
    labels = [n.strip() for n in names.split(",")] if names else None
    rows = compare(source, str(lists), seed=seed, samples=samples, names=labels)
    write_table(HEADER, p_columns(HEADER, [r.row() for r in rows], fmt, ["p_value"]), fmt,
                output)


@app.command(epilog="Example: relkit interleave simulate bm25.run dense.run tfidf.run "
             "--qrels qrels.txt --preset navigational --plot agreement.svg")
def simulate(
    runs: list[Path] = typer.Argument(..., help="Two or more TREC runs: every pair is "
                                      "compared"),
    qrels: Path = typer.Option(..., "--qrels", help="The qrels: the nDCG@k winner of each "
                               "pair, and the grades the preset users click on"),
    preset: str | None = typer.Option(None, "--preset", help="Simulated users: perfect, "
                                      "navigational or informational (Hofmann et al. "
                                      "2013)"),
    model: Path | None = typer.Option(None, "--model", help="Simulated users from a click "
                                      "model file (relkit clicks fit) instead of a preset"),
    methods: str = typer.Option(",".join(SIM_METHODS), "--methods", help="Comma-separated "
                                "interleaving methods to compare"),
    impressions: str = typer.Option(",".join(str(n) for n in SIM_GRID), "--impressions",
                                    help="Comma-separated numbers of impressions at which "
                                    "to measure the agreement"),
    trials: int = Num(100, "--trials", within=COUNT, help="Simulated experiments per "
                               "pair and method (each of the largest --impressions)"),
    depth: int = Num(10, "--depth", within=COUNT, help="Length of each shown list"),
    cutoff: int | None = Num(None, "--cutoff", within=COUNT, help="k of nDCG@k, the "
                                      "offline winner (default: --depth)"),
    names: str | None = typer.Option(None, "--names", help="Comma-separated run names "
                                     "(default: the file names without extension)"),
    seed: int = Num(0, "--seed", within=SEED, help="Seed of every draw (the same seed gives "
                             "the same table)"),
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
    plot: Path | None = typer.Option(None, "--plot", help="Draw the agreement against "
                                     "impressions (mean over pairs) as SVG"),
) -> None:
    """Which interleaving method finds the nDCG winner with the fewest impressions.

    For each pair of runs and each method, simulated users (a preset over the qrels'
    grades, or a fitted click model) see --trials experiments of interleaved lists;
    agree@N is the share of experiments whose interleaving winner after N impressions
    is the run with the higher mean nDCG@k (a tie counts half). ab-ctr@1 is an A/B test
    at the same N: each run shown to half the impressions, the higher CTR@1 wins.
    n_95: the fewest impressions from which agreement stays >= 0.95; n_95_final: >= 95%
    of the agreement at the largest N (docs/interleaving.md).
    """
    from relkit.metrics.core.tables import write_table
    from relkit.metrics.online.interleave.simjob import SimRequest, simulate_runs

    sim = simulate_runs(SimRequest(
        runs=runs, qrels=qrels, preset=preset, model=model, methods=methods,
        impressions=impressions, trials=trials, depth=depth, cutoff=cutoff, names=names,
        seed=seed, fmt=fmt, output=output, plot=plot))
    write_table(sim.header(), sim.table(), fmt, output)
    if plot is not None:
        sim.draw(plot)
