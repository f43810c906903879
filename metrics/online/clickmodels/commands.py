"""``relkit clicks fit | labels | simulate``: registered on the ``clicks`` app.

numpy, duckdb and the models are imported inside the commands.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.metrics.commands.numopt import COUNT, SEED, Num
from relkit.metrics.core.options import OptionError
from relkit.metrics.online.engines import ENGINE_HELP, MASTER_HELP, check_engine, spark_engine

if TYPE_CHECKING:
    from relkit.metrics.online.clickmodels.base import ClickModel, Evaluation


def _say(msg: str) -> None:
    sys.stderr.write(f"relkit: {msg}\n")


MODEL_NAMES = "random, gctr, rctr, dctr, pbm, ubm, cascade, sdbn, dbn, dcm or ccm"


def fit(
    log: Path = typer.Argument(..., help="The impression log (Parquet, CSV, TSV or JSONL)"),
    model: str = typer.Option("pbm", "--model", help=MODEL_NAMES),
    output: Path = typer.Option(..., "-o", "--output", help="The model file to write (JSON)"),
    iterations: int = Num(50, "--iterations", within="x >= 0", help="EM iterations "
                                   "(pbm, ubm, dbn, dcm, ccm)"),
    seed: int = Num(0, "--seed", within=SEED, help="Seeds EM's initial values and the split"),
    holdout: float = Num(0.0, "--holdout", within="0 <= x <= 0.9", help="Share of each "
                                  "query's sessions held out to report log-likelihood and "
                                  "perplexity on (0: report them on the training log)"),
    max_rank: int = Num(10, "--max-rank", within=COUNT, help="Ranks below are ignored"),
    map_: list[str] = typer.Option([], "--map", help="Read a field from another column: "
                                   "name=column (as in relkit clicks validate)"),
    memory_limit: str | None = typer.Option(None, "--memory-limit", help="DuckDB's "
                                            "memory limit (default 4GB)"),
    engine: str = typer.Option("local", "--engine", help=ENGINE_HELP),
    spark_master: str | None = typer.Option(None, "--spark-master", help=MASTER_HELP),
) -> None:
    """Fit a click model (Chuklin, Markov & de Rijke 2015) to a click log.

    Prints the log-likelihood per session and the perplexity at each rank (on the
    held-out sessions with --holdout) and writes the model as JSON.
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.online.clickmodels.base import evaluate
    from relkit.metrics.online.clickmodels.data import from_log
    from relkit.metrics.online.clickmodels.registry import MODELS
    from relkit.metrics.online.source import open_log

    if model not in MODELS:
        raise OptionError("--model", f"expected {MODEL_NAMES}; got {model!r}")
    check_output(output)
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.fields import FIELDS, WIDE_LISTS, parse_map
    from relkit.metrics.online.source import connect

    with option_value("--map"):
        mapping = parse_map(map_, [*FIELDS, *WIDE_LISTS])
    check_engine(engine, spark_master)
    if engine == "spark":
        if holdout > 0:
            raise OptionError("--holdout", "not with --engine spark yet (the split needs "
                              "the sessions on one machine)")
        if memory_limit is not None:
            raise OptionError("--memory-limit", "is DuckDB's; Spark's memory is set by "
                              "spark-submit (--driver-memory, --executor-memory)")
        m, ev, n_sessions, n_pairs = spark_engine().fit_clicks(
            log, model, mapping=mapping, max_rank=max_rank, iterations=iterations,
            seed=seed, master=spark_master)
        _report(log, model, output, m, ev, n_sessions, n_pairs, iterations=iterations,
                seed=seed, holdout=holdout, max_rank=max_rank, on=None)
        return
    with option_value("--memory-limit"):
        con = connect(memory_limit)
    source = open_log(log, mapping=mapping, con=con)
    source.check()
    data = from_log(source, max_rank)
    if data.n_sessions == 0:
        raise OptionError("LOG", f"{log}: no impressions to fit")
    train, test = data.split(holdout, seed) if holdout > 0 else (data, data)
    m = MODELS[model]().fit(train, iterations=iterations, seed=seed)
    ev = evaluate(m, test)
    on = f"{test.n_sessions:,} held-out sessions" if holdout > 0 else None
    _report(log, model, output, m, ev, train.n_sessions, data.n_pairs,
            iterations=iterations, seed=seed, holdout=holdout, max_rank=max_rank, on=on)


def _report(log: Path, model: str, output: Path, m: ClickModel, ev: Evaluation,
            n_train: int, n_pairs: int, *, iterations: int, seed: int, holdout: float,
            max_rank: int, on: str | None) -> None:
    """Print the evaluation, save the model (both engines)."""
    from relkit.metrics.online.clickmodels.store import save

    on = on or f"the {n_train:,} training sessions"
    sys.stdout.write(f"model\t{model}\nevaluated on\t{on}\n"
                     f"log-likelihood per session\t{ev.log_likelihood:.6f}\n"
                     f"mean perplexity\t{ev.mean_perplexity:.6f}\nrank\tperplexity\tsessions\n")
    for r, (p, n) in enumerate(zip(ev.perplexity, ev.sessions, strict=True), 1):
        if n:
            sys.stdout.write(f"{r}\t{p:.6f}\t{n}\n")
    save(m, output, {"log": str(log), "iterations": iterations, "seed": seed,
                     "holdout": holdout, "max_rank": max_rank, "sessions": n_train,
                     "trace": m.trace, "evaluation": ev.to_json()})
    _say(f"{log}: {model} fitted on {n_train:,} sessions, {n_pairs:,} pairs "
         f"-> {output}")


def _grades(spec: str) -> int:
    lo, _, hi = spec.partition("-")
    if lo.strip() != "0" or not hi.strip().isdigit() or int(hi) < 1:
        raise OptionError("--grades", f"expected 0-N with N >= 1 (0-3); got {spec!r}")
    return int(hi) + 1


def labels(
    model: Path = typer.Argument(..., help="A model file from relkit clicks fit"),
    output: Path = typer.Option(..., "-o", "--output", help="The qrels file to write; "
                                "the provenance goes next to it as OUTPUT.provenance.json"),
    grades: str = typer.Option("0-3", "--grades", help="The grade scale, 0-N"),
    min_impressions: int = Num(20, "--min-impressions", within=COUNT, help="Grade only "
                                        "pairs seen this often in the training log"),
    thresholds: str | None = typer.Option(None, "--thresholds", help="Fixed cut points, "
                                          "comma-separated, N of them (default: quantiles "
                                          "of the scores)"),
) -> None:
    """Turn a click model into qrels: attractiveness (x satisfaction for DBN/SDBN) cut
    into grades.

    Import the result as an automatic assessor:
    relkit import judgments clicks.qrels --assessor clicks --kind automatic
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.online.clickmodels.labels import click_labels
    from relkit.metrics.online.clickmodels.store import load

    n = _grades(grades)
    cuts = None
    if thresholds is not None:
        try:
            cuts = [float(x) for x in thresholds.split(",")]
        except ValueError:
            raise OptionError("--thresholds", f"expected numbers such as 0.1,0.3,0.6; got "
                              f"{thresholds!r}") from None
    check_output(output)
    m, fit_info = load(model)
    from relkit.metrics.core.errors import RelkitError

    try:
        lab = click_labels(m, n, min_impressions, cuts)
    except RelkitError as exc:
        raise OptionError("--thresholds" if cuts else "MODEL", str(exc)) from None
    with open(output, "w", encoding="utf-8") as fp:
        for q, d, g in zip(lab.queries, lab.docs, lab.grades, strict=True):
            fp.write(f"{q} 0 {d} {g}\n")
    side = output.with_name(output.name + ".provenance.json")
    side.write_text(json.dumps({
        "relkit_click_labels": 1, "model_file": str(model), "model": m.name,
        "log": fit_info.get("log"), "score": lab.score, "cut_method": lab.method,
        "cut_points": lab.cuts, "grades": grades, "min_impressions": min_impressions,
        "pairs": len(lab.grades)}, indent=1) + "\n", encoding="utf-8")
    _say(f"{model}: {len(lab.grades):,} pairs graded ({lab.method} of {lab.score}: "
         f"{', '.join(f'{c:.4g}' for c in lab.cuts)}) -> {output}, {side}")


def simulate(
    runs: list[Path] = typer.Option(..., "--runs", help="TREC run files whose pages the "
                                    "users see (repeat the option)"),
    output: Path = typer.Option(..., "-o", "--output", help="The long-form Parquet log "
                                "to write"),
    model: Path | None = typer.Option(None, "--model", help="A model file from relkit "
                                      "clicks fit (its parameters drive the users)"),
    preset: str | None = typer.Option(None, "--preset", help="perfect, navigational or "
                                      "informational (Hofmann et al. 2013): needs --qrels"),
    qrels: Path | None = typer.Option(None, "--qrels", help="Grades for --preset "
                                      "(unjudged documents count as 0)"),
    sessions: int = Num(10_000, "--sessions", within=COUNT, help="Impressions to draw"),
    depth: int = Num(10, "--depth", within=COUNT, help="Results per page"),
    seed: int = Num(0, "--seed", within=SEED, help="Seeds the users"),
) -> None:
    """Simulate users on the runs' result pages: a long-form click log.

    Each impression picks a run and one of its topics uniformly at random and shows its
    top --depth documents; clicks come from the model file or the preset user.
    """
    from relkit.metrics.online.clickmodels.simlog import simulate_log

    _say(simulate_log(runs, output, model=model, preset=preset, qrels=qrels,
                      sessions=sessions, depth=depth, seed=seed).summary())
