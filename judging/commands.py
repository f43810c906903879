"""The researcher's commands that build a project: init, pool, assign.

Reading progress and settling disagreements are in :mod:`relkit.judging.progress`,
moving judgments in and out in :mod:`relkit.judging.exchange`.

Each opens the database named by ``--db`` (or ``$RELKIT_DB``, else
``relkit.db`` in the working directory), does one unit of work, and prints
data on stdout and diagnostics on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer

from relkit.corpora.types import SCALES
from relkit.judging.cliopts import DbOpt, open_output
from relkit.judging.cliopts import say as _say
from relkit.judging.owner import owner_store as _owner
from relkit.judging.owner import refuse_named_person
from relkit.metrics.commands.numopt import COUNT, SEED, SHARE, Num

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store

app = typer.Typer(no_args_is_help=True)
Fmt = Literal["text", "tsv", "json"]


@app.command()
def init(
    topics: Path = typer.Option(..., help="Topics file (TREC <top>, SMART .qry, JSONL, TSV)"),
    docs: Path | None = typer.Option(None, help="Documents file (TREC <DOC>, SMART, JSONL); "
                                     "pooled documents' text is copied from it"),
    scale: str = typer.Option("trec-dl", help=f"Relevance scale: {', '.join(SCALES)}"),
    name: str | None = typer.Option(None, help="Collection name (default: the topics' stem)"),
    topics_format: str | None = typer.Option(None, help="Topics format (default: sniffed)"),
    docs_format: str | None = typer.Option(None, help="Documents format (default: sniffed)"),
    db: str | None = DbOpt,
) -> None:
    """Create a judging database for a collection: its topics and relevance scale.

    Example: relkit init --topics topics.trec --docs docs.trec --scale trec-dl --db project.db
    """
    from relkit.corpora.docstore import DocStore
    from relkit.corpora.loaders import get_loader, read_topics
    from relkit.corpora.types import get_scale
    from relkit.metrics.core.options import option_value

    refuse_named_person("relkit init")
    with option_value("--scale"):
        sc = get_scale(scale)
    with option_value("--topics-format"):
        if topics_format is not None:
            get_loader(topics_format, "topics")
    with option_value("--docs-format"):
        if docs_format is not None:
            get_loader(docs_format, "docs")
    tops = read_topics(topics, topics_format)
    source = None
    if docs is not None:
        from relkit.metrics.core.progress import Bar

        with Bar(f"indexing {docs}", unit="documents") as bar:
            # Index once now: errors surface here, and `pool --db` is instant later.
            store_ = DocStore.open(docs, docs_format, progress=bar)
        source = str(docs.resolve())
        _say(f"relkit: indexed {len(store_):,} documents from {docs}")
    store = _owner(db, "relkit init", create=True)
    store.create_collection(name or topics.stem, sc, tops, docs_source=source,
                            docs_format=docs_format)
    _say(f"relkit: created collection {name or topics.stem!r} with {len(tops)} topics "
         f"and the {sc.name!r} scale in {store.engine.url.render_as_string(True)}")


@app.command()
def pool(
    runs: list[Path] = typer.Argument(..., help="TREC run files (named by their file stem)"),
    strategy: str = typer.Option("depth", "-s", "--strategy",
                                 help="A strategy (see `relkit pool-strategies`); an adaptive "
                                 "one needs --db and a budget"),
    depth: int = Num(100, within=COUNT, help="Pool the top DEPTH documents of every run "
                              "(the candidates of every strategy)"),
    param: list[str] = typer.Option([], "--param", help="Strategy parameter name=value "
                                    "(repeatable), e.g. method=rrf or p=0.8"),
    budget: int | None = Num(None, within=COUNT, help="Keep at most this many documents per topic"),
    total: int | None = Num(None, within=COUNT, help="A global budget split evenly across topics"),
    topics: list[str] | None = typer.Option(None, "--topic", help="Only these topics"),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the pool here"),
    # --db as everywhere a database is meant; --into, its first name, still works. Not
    # read from $RELKIT_DB: without --db the pool goes to stdout or -o, not a database.
    into: str | None = typer.Option(None, "--db", "--into", help="Import the pool into this "
                                    "judging database (all or nothing); --into is the same"),
    pool_name: str | None = typer.Option(None, "--name", help="Pool name in the database"),
    docs: Path | None = typer.Option(None, help="Documents file (default: the one `init` "
                                     "recorded)"),
    docs_format: str | None = typer.Option(None, help="Documents format (default: sniffed)"),
    seed: int = Num(0, within=SEED, help="Seed of an adaptive strategy (same seed, same sequence)"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group "
                                           "[priority]' lines: pool by group (TREC)"),
    group_prefix: str | None = typer.Option(None, "--group-prefix", help="A run's group is "
                                            "its name up to the first SEP (e.g. '-')"),
    per_group: int | None = Num(None, "--runs-per-group", within=COUNT, help="Pool the first K "
                                         "runs of each group: by the map's priority column, "
                                         "else its line order, else command-line order"),
    depth_of: list[str] = typer.Option([], "--depth-of", help="RUN=K: this run's own depth "
                                       "(repeatable; run named by file stem)"),
    budget_of: list[str] = typer.Option([], "--budget-of", help="TOPIC=N: this topic's own "
                                        "budget (repeatable; others take --budget)"),
    floor: int | None = Num(None, "--floor", within=COUNT, help="Hybrid: every run's top K first "
                                     "(never cut by the budget), then the strategy fills the "
                                     "budget (static strategies)"),
    stop: str | None = typer.Option(None, "--stop", help="Adaptive: stop a topic early by "
                                    "Cormack & Grossman's knee or target method: knee, "
                                    "target or target:T (T relevant in a random sample "
                                    "first; default 10)"),
    source_from: str | None = typer.Option(None, "--from", help="cal: its candidates, the "
                                           "runs' top --depth (runs, the default) or every "
                                           "document of the collection (collection)"),
) -> None:
    """Pool runs with a strategy: to a file (-o), into a judging database (--db), or stdout.

    An adaptive strategy (mtf, bandit, hedge, rbp-adaptive, cal) imports every
    candidate with the strategy's definition; assessors are then shown the
    documents it picks as their judgments arrive, up to the budget per topic.
    cal ranks by a classifier over the documents' text; with --from collection
    every document of the collection is a candidate.

    Example: relkit pool runs/*.txt --strategy fusion --param method=rrf --budget 50 -o pool.tsv

    Example: relkit pool runs/*.txt --depth 20 --db project.db

    Example: relkit pool runs/*.txt --strategy bandit --budget 50 --seed 7 --db project.db

    Example: relkit pool runs/*.txt --strategy bandit --budget 500 --stop knee --db project.db

    Example: relkit pool runs/*.txt --strategy cal --from collection --budget 100 --db project.db

    Example: relkit pool runs/*.txt --groups teams.txt --runs-per-group 1 --depth 100 -o pool.tsv
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import option_value
    from relkit.pooling.build import build_pool
    from relkit.pooling.cli import load_runs, select_run_files
    from relkit.pooling.groups import parse_run_depths, parse_topic_budgets
    from relkit.pooling.strategies import get, parse_params

    with option_value("--strategy"):
        kind = get(strategy).kind     # an unknown name fails before the runs are read
    with option_value("--param"):
        params = parse_params(param)
    if source_from is not None:
        _cal_from(strategy, source_from, params)
    if output is not None:
        check_output(output)          # before the work, not after it
    if docs is not None and into is None:
        raise typer.BadParameter("is used only with --db (to copy pooled documents' text)",
                                 param_hint="--docs")
    with option_value("--budget-of"):
        topic_budgets = parse_topic_budgets(budget_of)
    if topic_budgets and total is not None:
        raise typer.BadParameter("gives per-topic budgets; --total splits one budget, "
                                 "give one or the other", param_hint="--budget-of")
    runs = select_run_files(runs, group_file, group_prefix, per_group)
    if into is None and os.environ.get("RELKIT_DB"):
        # the one command that does not read it: say so, or the next `assign` finds no pool
        _say("relkit pool: $RELKIT_DB is not read here: the pool goes to "
             f"{output or 'stdout'}; give --db \"$RELKIT_DB\" to import it")
    if kind == "adaptive":
        if depth_of or topic_budgets or floor is not None:
            raise typer.BadParameter("is for static strategies (an adaptive pool takes one "
                                     "depth and budget)", param_hint="--depth-of" if depth_of
                                     else "--budget-of" if topic_budgets else "--floor")
        _pool_adaptive(runs, strategy, params, depth, budget, total, topics, into, output,
                       pool_name, docs, docs_format, seed, stop)
        return
    if stop is not None:
        raise typer.BadParameter("is for adaptive strategies (a static pool is judged "
                                 "whole)", param_hint="--stop")
    # a bad --db (or a person's) fails before pooling
    store = _owner(into, "pool --db") if into is not None else None
    loaded = load_runs(runs)
    with option_value("--depth-of"):
        depths = parse_run_depths(depth_of, loaded, depth)
    if strategy == "depth":
        params.setdefault("depth", str(depth if isinstance(depths, int)
                                       else max(depths.values())))
    p = build_pool(strategy, loaded, params, topics=topics, depth=depths, budget=budget,
                   total=total, topic_budgets=topic_budgets or None, floor=floor)
    sizes = p.sizes()
    pooled = (f"relkit: pooled {len(p):,} documents over {len(sizes)} topics from "
              f"{len(loaded)} runs ({strategy}, depth {depth})")
    if store is None:  # with --db, said once the import has succeeded (one line if not)
        _say(pooled)
    if output is not None:
        with open_output(output) as fp:
            p.write(fp)
    elif into is None:
        p.write(sys.stdout)
    if store is not None:
        lookup = _doc_lookup(store, docs, docs_format)
        from relkit.judging.store.models import PoolEntryIn

        entries = [PoolEntryIn(topic=e.topic, doc=e.doc, priority=e.priority,
                               provenance=e.provenance) for e in p]
        files = dict(zip(loaded, runs, strict=True))

        def locate(i: int) -> str:
            # An entry comes from the runs: name the first run file that retrieved it.
            e = entries[i]
            if not e.provenance:
                return f"{output or 'pool'}:{i + 2}"
            run, rank = e.provenance[0]
            return f"{files.get(run, run)} (topic {e.topic}, rank {rank})"

        label = pool_name or _free_name(
            store, f"depth-{depth}" if strategy == "depth" else f"{strategy}-{depth}")
        summary = store.import_pool(entries, name=label, lookup=lookup,
                                    strategy=strategy, params={k: v for k, v in {
                                        "depth": depth, **params, "budget": budget,
                                        "total": total}.items() if v is not None},
                                    source=str(output or "pool"), locate=locate)
        _say(pooled)
        _say(f"relkit: imported pool {summary.name!r} ({summary.entries:,} entries, "
             f"{summary.new_documents:,} documents copied in)")


def _cal_from(strategy: str, source: str, params: dict[str, Any]) -> None:
    """``--from`` is cal's ``from`` parameter (a usage error for another strategy)."""
    if strategy != "cal":
        raise typer.BadParameter("is for the cal strategy (its candidates)",
                                 param_hint="--from")
    if source not in ("runs", "collection"):
        raise typer.BadParameter(f"expected runs or collection; got {source!r}",
                                 param_hint="--from")
    params["from"] = source


def _collection_ids(store: Store, docs: Path | None, docs_format: str | None) -> list[str]:
    """Every document id of the collection's documents file (cal from=collection)."""
    from relkit.corpora.docstore import DocStore
    from relkit.pooling.errors import PoolingError

    src, fmt = store.docs_source()
    source = docs or (Path(src) if src else None)
    if source is None:
        raise PoolingError("cal from=collection needs the collection's documents: give "
                           "--docs, or `relkit init --docs`")
    return DocStore.open(source, docs_format or fmt).ids()


def _free_name(store: Store, label: str) -> str:
    """A default pool name not yet used: ``depth-10``, then ``depth-10-2``...

    A second, different pool at the same depth (other runs) is not a duplicate; only
    the same entries are (the store refuses those whatever their name).
    """
    taken = set(store.pool_names())
    n, name = 1, label
    while name in taken:
        n += 1
        name = f"{label}-{n}"
    return name


def _doc_lookup(store: Store, docs: Path | None, docs_format: str | None) -> Any:
    """The documents file given, or the one `init` recorded (None: neither)."""
    src, fmt = store.docs_source()
    source = docs or (Path(src) if src else None)
    if source is None:
        return None
    from relkit.corpora.docstore import DocStore

    return DocStore.open(source, docs_format or fmt).get


def _pool_adaptive(runs: list[Path], strategy: str, params: dict[str, Any], depth: int,
                   budget: int | None, total: int | None, topics: list[str] | None,
                   into: str | None, output: Path | None, pool_name: str | None,
                   docs: Path | None, docs_format: str | None, seed: int,
                   stop: str | None = None) -> None:
    import hashlib

    from relkit.judging.store.adaptive import Definition, import_pool
    from relkit.pooling.candidates import Candidates
    from relkit.pooling.cli import load_runs
    from relkit.pooling.errors import PoolingError

    if into is None or output is not None:
        raise PoolingError(f"{strategy!r} is adaptive: it picks each document as judgments "
                           "arrive, so there is no pool file to write; import it with --db "
                           "DB (or replay it against qrels with `relkit pool-simulate`)")
    from relkit.metrics.core.options import option_value
    from relkit.pooling.stopping import parse_stop

    with option_value("--stop"):
        parse_stop(stop)
    definition = Definition(strategy, params, seed, budget, total, stop=stop).validated()
    store = _owner(into, "pool --db")
    loaded = load_runs(runs)
    cands = Candidates.from_runs(loaded, depth, topics)
    if definition.strategy == "cal" and definition.params.get("from") == "collection":
        from relkit.pooling.cal.strategy import with_collection

        cands = with_collection(cands, _collection_ids(store, docs, docs_format))
    # The runs themselves are in the pool (each candidate's provenance); their files'
    # checksums say which files those were.
    files = {n: {"path": str(p.resolve()), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
             for n, p in zip(loaded, runs, strict=True)}
    label = pool_name or _free_name(store, f"{strategy}-{budget or total}-{depth}")
    summary = import_pool(store, cands, definition, name=label,
                          lookup=_doc_lookup(store, docs, docs_format),
                          extra={"depth": depth, "runs": files}, source=str(runs[0]))
    per = f"{budget} per topic" if budget is not None else f"{total} in all"
    rule = f", stop {definition.stop}" if definition.stop else ""
    _say(f"relkit: imported adaptive pool {summary.name!r} ({strategy}, seed {seed}, budget "
         f"{per}{rule}): {summary.entries:,} candidates over {summary.topics} topics, "
         f"{summary.new_documents:,} documents copied in")


@app.command()
def assign(
    assessors: list[str] | None = typer.Argument(None, help="Assessor names"),
    db: str | None = DbOpt,
    pool: str | None = typer.Option(None, help="Pool name (default: the newest)"),
    topics: list[str] | None = typer.Option(None, "--topic", help="Only these topics"),
    overlap: float = Num(0.0, within=SHARE, help="Fraction of each topic's pairs judged twice"),
    order: str = typer.Option("docno", help="Presentation order: docno, random or priority"),
    seed: int = Num(0, within=SEED, help="Seed for the overlap sample and random order"),
    gold: Path | None = typer.Option(None, help="Qrels of gold pairs with known grades"),
    lead: list[str] | None = typer.Option(None, "--lead", help="Register a lead, who settles "
                                          "disagreements with `relkit judge --lead NAME` "
                                          "(repeatable; no assessors needed)"),
    token: bool = typer.Option(False, "--token", help="Also issue each named assessor and "
                               "lead a sign-in token for `relkit serve` (printed once, as "
                               "NAME<TAB>TOKEN lines on stdout; one who had a token "
                               "gets a new one, and the old one stops working)"),
) -> None:
    """Share the pool's topics among assessors, with overlap and gold pairs.

    Example: relkit assign ann bob --overlap 0.2 --order random --seed 7 --lead carol
    """
    from relkit.judging.staffing import Staffing, staff

    staff(Staffing(assessors=assessors or (), leads=lead or (), pool=pool, topics=topics,
                   overlap=overlap, order=order, seed=seed, gold=gold, token=token),
          open_store=lambda: _owner(db, "relkit assign"), say=_say,
          show_token=lambda name, secret: print(f"{name}\t{secret}"))
