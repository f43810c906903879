"""The researcher's commands that build a project: init, pool, assign.

Reading progress and settling disagreements are in :mod:`relkit.judging.progress`,
moving judgments in and out in :mod:`relkit.judging.exchange`.

Each opens the database named by ``--db`` (or ``$RELKIT_DB``, else
``relkit.db`` in the working directory), does one unit of work, and prints
data on stdout and diagnostics on stderr. The work of ``pool`` and ``assign`` is
in :mod:`relkit.judging.poolruns` and :mod:`relkit.judging.staffing`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import typer

from relkit.corpora.types import SCALES
from relkit.judging.cliopts import DbOpt
from relkit.judging.cliopts import say as _say
from relkit.judging.owner import owner_store as _owner
from relkit.judging.owner import refuse_named_person
from relkit.metrics.commands.numopt import COUNT, SEED, SHARE, Num

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
    from relkit.corpora.textio import replaced

    _refuse_before_indexing(db, name or topics.stem, named=name is not None)
    bad = replaced()
    tops = read_topics(topics, topics_format)
    _say_replaced(topics, replaced() - bad)
    source = None
    if docs is not None:
        from relkit.metrics.core.progress import Bar

        with Bar(f"indexing {docs}", unit="documents") as bar:
            # Index once now: errors surface here, and `pool --db` is instant later.
            store_ = DocStore.open(docs, docs_format, progress=bar)
        source = str(docs.resolve())
        _say(f"relkit: indexed {len(store_):,} documents from {docs}")
        _say_replaced(docs, store_.replaced)
    store = _owner(db, "relkit init", create=True)
    store.create_collection(name or topics.stem, sc, tops, docs_source=source,
                            docs_format=docs_format)
    _say(f"relkit: created collection {name or topics.stem!r} with {len(tops)} topics "
         f"and the {sc.name!r} scale in {store.engine.url.render_as_string(True)}")


def _refuse_before_indexing(db: str | None, name: str, named: bool) -> None:
    """What init refuses when it writes (a --db that cannot be a file, a collection name
    already taken), refused before the documents are indexed (minutes, for a large
    collection) rather than after. Nothing is created or written here."""
    import os

    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import DatabaseError, make_engine, sqlite_path
    from relkit.judging.store.models import StoreError

    engine = make_engine(db, readonly=True)     # a bad URL, a missing directory: refused
    path = sqlite_path(engine)
    engine.dispose()
    if path is not None and os.path.isdir(path):
        raise DatabaseError(f"--db {path}: is a directory; name a file in it")
    if path is None or not (os.path.isfile(path) and os.path.getsize(path) > 0):
        return   # a new file: nothing to clash with; a server: one connection, when writing
    try:
        store = Store.open(db, readonly=True)
    except StoreError:
        return   # (an older schema, which init upgrades; what is refused, it refuses then)
    with store:
        try:
            store.collection_name(name)
        except StoreError:
            return
    raise StoreError(f"collection {name!r} already exists in this database"
                     + ("" if named else " (named after the topics file: --name NAME "
                        "for another)"))


def _say_replaced(path: Path, n: int) -> None:
    """Warn (even under --quiet: the text judged is not the file's) of a file's bytes
    that were not UTF-8 and were read as U+FFFD."""
    if n:
        from relkit.judging.quiet import error_stream

        # (no count: a format is sniffed from the file's head, read twice then)
        error_stream().write(
            f"relkit: warning: {path}: bytes that are not UTF-8 are kept as U+FFFD: "
            "convert the file to UTF-8 (iconv -f latin1 -t utf-8, for instance) and init "
            "a new database (or --name another collection) to judge the text as written\n")


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
    from relkit.judging.poolruns import PoolRequest, pool_runs

    pool_runs(PoolRequest(
        runs=runs, strategy=strategy, depth=depth, param=param, budget=budget, total=total,
        topics=topics, output=output, into=into, pool_name=pool_name, docs=docs,
        docs_format=docs_format, seed=seed, group_file=group_file, group_prefix=group_prefix,
        per_group=per_group, depth_of=depth_of, budget_of=budget_of, floor=floor, stop=stop,
        source_from=source_from), open_store=lambda: _owner(into, "pool --db"), say=_say,
        stdout=sys.stdout)


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
