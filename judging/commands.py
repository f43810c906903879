"""The researcher's store commands: assign, status, export, import, adjudicate.

Each opens the database named by ``--db`` (or ``$RELKIT_DB``, else
``relkit.db`` in the working directory), does one unit of work, and prints
data on stdout and diagnostics on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import typer

from relkit.corpora.types import SCALES
from relkit.judging.cliopts import DbOpt, open_output
from relkit.judging.cliopts import say as _say
from relkit.metrics.core.tables import FORMAT_HELP, OUTPUT_HELP

if TYPE_CHECKING:
    from relkit.judging.store import Store

app = typer.Typer(no_args_is_help=True)
export_app = typer.Typer(help="Write judgments out: qrels or a full JSONL dump.",
                         no_args_is_help=True,
                         epilog="Example: relkit export qrels --db project.db -o qrels.txt")
import_app = typer.Typer(help="Bring outside judgments into the database.",
                         no_args_is_help=True,
                         epilog="Example: relkit import judgments ann.qrels bob.qrels "
                                "--db project.db")

Fmt = Literal["text", "tsv", "json"]


def _open(db: str | None, create: bool = False) -> Store:
    """Open for writing: created (``init``) or upgraded (saying so on stderr) as needed."""
    # The database stack is imported here, by the commands that open one: `relkit pool -o`
    # and `relkit --help` never pay for SQLAlchemy.
    from relkit.judging.store import Store

    return Store.open(db, create=create, notify=_say)


def _read(db: str | None) -> Store:
    """Open read-only: nothing is created, migrated or written."""
    from relkit.judging.store import Store

    return Store.open(db, readonly=True)


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
    store = _open(db, create=True)
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
    depth: int = typer.Option(100, min=1, help="Pool the top DEPTH documents of every run "
                              "(the candidates of every strategy)"),
    param: list[str] = typer.Option([], "--param", help="Strategy parameter name=value "
                                    "(repeatable), e.g. method=rrf or p=0.8"),
    budget: int | None = typer.Option(None, help="Keep at most this many documents per topic"),
    total: int | None = typer.Option(None, help="A global budget split evenly across topics"),
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
    seed: int = typer.Option(0, help="Seed of an adaptive strategy (same seed, same sequence)"),
    group_file: Path | None = typer.Option(None, "--groups", help="File of 'run group "
                                           "[priority]' lines: pool by group (TREC)"),
    group_prefix: str | None = typer.Option(None, "--group-prefix", help="A run's group is "
                                            "its name up to the first SEP (e.g. '-')"),
    per_group: int | None = typer.Option(None, "--runs-per-group", help="Pool the first K "
                                         "runs of each group: by the map's priority column, "
                                         "else its line order, else command-line order"),
    depth_of: list[str] = typer.Option([], "--depth-of", help="RUN=K: this run's own depth "
                                       "(repeatable; run named by file stem)"),
    budget_of: list[str] = typer.Option([], "--budget-of", help="TOPIC=N: this topic's own "
                                        "budget (repeatable; others take --budget)"),
    floor: int | None = typer.Option(None, "--floor", help="Hybrid: every run's top K first "
                                     "(never cut by the budget), then the strategy fills the "
                                     "budget (static strategies)"),
    stop: str | None = typer.Option(None, "--stop", help="Adaptive: stop a topic early by "
                                    "Cormack & Grossman's knee or target method: knee, "
                                    "target or target:T (T relevant in a random sample "
                                    "first; default 10)"),
) -> None:
    """Pool runs with a strategy: to a file (-o), into a judging database (--db), or stdout.

    An adaptive strategy (mtf, bandit, hedge, rbp-adaptive) imports every
    candidate with the strategy's definition; assessors are then shown the
    documents it picks as their judgments arrive, up to the budget per topic.

    Example: relkit pool runs/*.txt --strategy fusion --param method=rrf --budget 50 -o pool.tsv

    Example: relkit pool runs/*.txt --depth 20 --db project.db

    Example: relkit pool runs/*.txt --strategy bandit --budget 50 --seed 7 --db project.db

    Example: relkit pool runs/*.txt --strategy bandit --budget 500 --stop knee --db project.db

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
    store = _open(into) if into is not None else None  # a bad --db fails before pooling
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
        from relkit.judging.models import PoolEntryIn

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

    from relkit.judging.adaptive import Definition, import_pool
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
    store = _open(into)
    loaded = load_runs(runs)
    cands = Candidates.from_runs(loaded, depth, topics)
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
    overlap: float = typer.Option(0.0, help="Fraction of each topic's pairs judged twice"),
    order: str = typer.Option("docno", help="Presentation order: docno, random or priority"),
    seed: int = typer.Option(0, help="Seed for the overlap sample and random order"),
    gold: Path | None = typer.Option(None, help="Qrels of gold pairs with known grades"),
    lead: list[str] | None = typer.Option(None, "--lead", help="Register a lead, who settles "
                                          "disagreements with `relkit judge --lead NAME` "
                                          "(repeatable; no assessors needed)"),
    token: bool = typer.Option(False, "--token", help="Also issue each named assessor and "
                               "lead a sign-in token for `relkit serve` (printed once, as "
                               "NAME<TAB>TOKEN lines on stdout)"),
) -> None:
    """Share the pool's topics among assessors, with overlap and gold pairs.

    Example: relkit assign ann bob --overlap 0.2 --order random --seed 7 --lead carol
    """
    from relkit.judging.judgment_files import read_qrels_file
    from relkit.judging.schema import ORDERS

    if order not in ORDERS:
        raise typer.BadParameter(f"expected one of {', '.join(ORDERS)}; got {order!r}",
                                 param_hint="--order")
    if not assessors and not lead:
        raise typer.BadParameter("name at least one assessor (or a lead with --lead NAME)",
                                 param_hint="ASSESSORS")
    clash = sorted(set(assessors or ()) & set(lead or ()))
    if clash:
        raise typer.BadParameter(f"{', '.join(clash)}: both an assessor and a lead; a lead "
                                 "settles what others judged", param_hint="--lead")
    gold_pairs = None
    if gold is not None:
        gold_pairs = {(r.topic, r.doc): r.grade for r in read_qrels_file(gold)}
    store = _open(db)
    leads_now = set(store.assessors(role="lead")) & set(assessors or ())
    if leads_now:
        from relkit.judging.models import StoreError

        raise StoreError(f"assign: {', '.join(sorted(leads_now))}: a lead here, who settles "
                         "what others judged, not an assessor (nothing was changed)")
    if lead:
        from relkit.judging.adjudication import check_leads_free

        check_leads_free(store, lead)  # before any change: all or nothing
    if assessors:
        s = store.assign(assessors, pool=pool, topics=topics, overlap=overlap,
                         ordering=order, seed=seed, gold=gold_pairs)  # type: ignore[arg-type]
        if s.adaptive:
            _say(f"relkit: {s.assignments} assignments, a quota of {s.items} judgments for "
                 f"{s.assessors} assessors (adaptive pool: each document is picked as they "
                 f"judge; {s.overlap_pairs} pairs judged twice)")
        else:
            _say(f"relkit: {s.assignments} assignments, {s.items} items for {s.assessors} "
                 f"assessors ({s.overlap_pairs} pairs judged twice, {s.gold_items} gold items)")
    if lead:
        from relkit.judging.adjudication import register_leads

        new = register_leads(store, lead)
        _say(f"relkit: leads registered: {', '.join(new) or 'none new'} (they settle "
             "disagreements with `relkit judge --lead NAME`)")
    from relkit.judging.access.identity import missing_logins

    need = missing_logins(store, [*(assessors or ()), *(lead or ())])
    if need:  # a team database (PostgreSQL): the database grants nothing to them yet
        _say(f"relkit: run `relkit team init` to give {', '.join(need)} a login")
    if token:
        from relkit.judging.tokens import issue

        for name in dict.fromkeys([*(assessors or ()), *(lead or ())]):
            print(f"{name}\t{issue(store, name)}")
        _say("relkit: sign-in tokens printed above, shown only this once (relkit serve)")


@app.command()
def status(db: str | None = DbOpt,
           fmt: str = typer.Option("text", "--format", help="text, tsv or json"),
           output: Path | None = typer.Option(None, "-o", "--output",
                                              help="File (default stdout)")) -> None:
    """Progress per topic and per assessor, judgments per hour, median dwell time.

    Example: relkit status --db team.db
    """
    from relkit.judging.reports import status as get_status

    if fmt not in get_args(Fmt):
        raise typer.BadParameter(f"expected one of {', '.join(get_args(Fmt))}",
                                 param_hint="--format")
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    store = _read(db)
    st = get_status(store)
    from relkit.judging.access.identity import who

    me = who(store)
    if me.assessor:
        # An assessor sees their own progress only: the topics' counts and the automatic
        # judges' grades are everyone's (on PostgreSQL the database hides them anyway).
        st = type(st)(topics=[], assessors=[a for a in st.assessors if a.assessor == me.name],
                      automatic=[])
    text = _status_text(st, fmt)
    halted = _stops(store)
    if me.assessor:
        halted = [x for x in halted if x.assessor == me.name]
    if halted and fmt == "json":
        text = text[:-2] + ',\n  "stopped": ' + json.dumps(
            [asdict(x) for x in halted]) + "\n}"
    elif halted:
        # Adaptive topics whose stopping rule said stop (short of their budget).
        rows = [["stopped", "assessor", "pool", "rule", "judged", "budget"],
                *[[x.topic, x.assessor, x.pool, x.rule, str(x.judged), str(x.budget)]
                  for x in halted]]
        if fmt == "tsv":
            text += "\n\n" + "\n".join("\t".join(r) for r in rows)
        else:
            width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
            text += "\n\n" + "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width,
                                                                               strict=True))
                                        .rstrip() for r in rows)
    if output is not None:
        with open_output(output) as fp:
            fp.write(text + "\n")
        return
    typer.echo(text)


def _stops(store: Any) -> list[Any]:
    """The stopping rules' verdicts, if any pool has a rule (only then the strategies load)."""
    from sqlalchemy import select

    from relkit.judging.schema import PoolRow

    with store.read() as s:
        params = s.execute(select(PoolRow).with_only_columns(  # type: ignore[call-overload]
            PoolRow.params_json)).scalars()
        if not any('"stop"' in (p or "") for p in params):
            return []
    from relkit.judging.adaptive import stops

    return stops(store)


def _status_text(st: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"topics": [asdict(t) for t in st.topics],
                           "assessors": [asdict(a) for a in st.assessors],
                           "automatic": [asdict(a) for a in st.automatic]}, indent=2)
    sep = "\t" if fmt == "tsv" else "  "

    def num(x: float | None, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    # done + skipped + pending = items; "later" items are part of pending.
    rows = [["assessor", "topics", "items", "done", "skipped", "pending", "later", "per_hour",
             "median_dwell_s"]]
    rows += [[a.assessor, str(a.topics), str(a.items), str(a.done), str(a.skipped),
              str(a.pending), str(a.later), num(a.per_hour, ".1f"),
              num(a.median_dwell_s, ".1f")] for a in st.assessors]
    rows += [[]]
    rows += [["topic", "assessors", "items", "done", "skipped", "grades"]]
    rows += [[t.topic, str(t.assessors), str(t.items), str(t.done), str(t.skipped),
              " ".join(f"{g}:{n}" for g, n in sorted(t.grade_counts.items())) or "-"]
             for t in st.topics]
    if st.automatic:  # apart from the people: imported, not judged (relkit judges)
        rows += [[], ["automatic", "topics", "judgments", "grades"]]
        rows += [[a.assessor, str(a.topics), str(a.judgments),
                  " ".join(f"{g}:{n}" for g, n in a.grade_counts.items()) or "-"]
                 for a in st.automatic]
    if fmt == "tsv":
        return "\n".join(sep.join(r) for r in rows)
    blocks: list[list[list[str]]] = [[]]
    for r in rows:
        if r:
            blocks[-1].append(r)
        else:
            blocks.append([])
    out = []
    for block in blocks:
        widths = [max(len(r[i]) for r in block if i < len(r)) for i in range(len(block[0]))]
        out += [sep.join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
                for r in block]
        out.append("")
    return "\n".join(out).rstrip()


@export_app.command("qrels")
def export_qrels(
    db: str | None = DbOpt,
    method: str = typer.Option("majority", help="majority, mean, assessor, primary, "
                               "adjudicated; crowd aggregation: wawa, dawid-skene, glad, mace"),
    assessor: str | None = typer.Option(None, help="The assessor (for assessor/primary)"),
    threshold: int | None = typer.Option(None, help="Binarise: grade >= threshold -> 1"),
    unjudged: bool = typer.Option(True, "--unjudged/--no-unjudged",
                                  help="Write pooled-but-unjudged pairs as -1"),
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
    quiet: bool = typer.Option(False, "--quiet", help="No warning about disagreements "
                               "settled by the majority rule"),
    include_automatic: bool = typer.Option(False, "--include-automatic", help="Count "
                                           "automatic assessors' grades as a human's "
                                           "(default: humans only)"),
    labels: list[Path] | None = typer.Option(
        None, "--labels", help="Aggregate this label file (repeatable) instead of the "
        "database: a CSV/TSV with worker, topic, doc, label columns (the TREC 2010 crowd "
        "file as it ships) or a qrels file per worker; methods majority, wawa, "
        "dawid-skene, glad, mace"),
    max_iter: int | None = typer.Option(None, "--max-iter", min=1, help="Most EM "
                                        "iterations (dawid-skene, glad: 100; mace: 50)"),
    tol: float | None = typer.Option(None, "--tol", min=0.0, help="EM convergence "
                                     "tolerance (dawid-skene, glad: 1e-5; mace: none)"),
    seed: int = typer.Option(0, "--seed", help="Random starts' seed (mace)"),
) -> None:
    """Write qrels from the judgments.

    Methods: majority (the most frequent grade; a tie goes to the lower grade), mean
    (rounded half up), assessor (one assessor's grades), primary (the assessor's grade,
    else the others' majority), adjudicated (the lead's grade where there is one, else
    the majority as above; a warning counts the disagreements settled that way).
    Automatic assessors (imported with --kind automatic) count only with
    --include-automatic, or as the one --assessor named.
    Crowd aggregation (every assessor's grade is one worker's label; docs/crowd.md):
    wawa (majority weighted by agreement with it), dawid-skene (Dawid & Skene 1979),
    glad (Whitehill et al. 2009), mace (Hovy et al. 2013); with --labels FILE they
    read a label file instead of the database.

    Example: relkit export qrels --method majority --threshold 2 -o qrels.txt
    """
    from relkit.judging.crowd.methods import METHODS as CROWD
    from relkit.judging.reports import METHODS, write_qrels
    from relkit.judging.reports import export_qrels as run

    known = [*METHODS, *(m for m in CROWD if m not in METHODS)]
    if method not in known or (labels and method not in CROWD):
        allowed = list(CROWD) if labels else known
        raise typer.BadParameter(f"expected one of {', '.join(allowed)}"
                                 f"{' (with --labels)' if labels else ''}; got {method!r}",
                                 param_hint="--method")
    opts = {"max_iter": max_iter, "tol": tol, "seed": seed}
    if labels:
        from relkit.judging.crowd.files import read_labels
        from relkit.judging.crowd.methods import aggregate
        from relkit.judging.reports import QrelsRows

        read = read_labels(labels)
        seen = [int(c) for c in read.table.classes]
        if threshold is not None and threshold not in seen:
            raise typer.BadParameter(f"{threshold} is not a label of "
                                     f"{', '.join(map(str, labels))} "
                                     f"({', '.join(map(str, seen))})", param_hint="--threshold")
        for note in read.notes:
            _say(f"relkit: {note}")
        agg = aggregate(read.table, method, **opts)
        from relkit.pooling.pool import natural

        rows = QrelsRows(sorted(((t, d, g if threshold is None else int(g >= threshold))
                                 for t, d, g in agg.rows()),
                                key=lambda r: (natural(r[0]), r[1])))
    else:
        from relkit.judging.access.identity import check_export

        store = _read(db)
        check_export(store, method, assessor)  # an assessor exports only their own grades
        sc = store.scale()
        if threshold is not None and threshold not in sc.values:
            raise typer.BadParameter(f"{threshold} is not a grade of the {sc.name!r} scale "
                                     f"({', '.join(map(str, sc.values))})",
                                     param_hint="--threshold")
        if method not in METHODS:
            from relkit.judging.crowd.store import store_qrels

            rows = store_qrels(store, method, threshold=threshold,  # type: ignore[assignment]
                               unjudged=unjudged, include_automatic=include_automatic, **opts)
        else:
            rows = run(store, method, assessor=assessor,  # type: ignore[arg-type]
                       threshold=threshold, unjudged=unjudged,
                       include_automatic=include_automatic)
    if output is None:
        write_qrels(rows, sys.stdout)
    else:
        with open_output(output) as fp:
            write_qrels(rows, fp)
        _say(f"relkit: wrote {len(rows)} qrels lines to {output}")
    if method == "adjudicated" and rows.settled and not quiet:
        n, ties = rows.settled, rows.ties_low
        _say(f"relkit export qrels: warning: {n} disagreement{'s' if n != 1 else ''} "
             f"without a lead's grade {'were' if n != 1 else 'was'} settled by majority "
             f"({ties} tie{'s' if ties != 1 else ''} given the lower grade); adjudicate "
             "them first (relkit disagreements; relkit judge --lead NAME) or pass --quiet")


@export_app.command("jsonl")
def export_jsonl(
    db: str | None = DbOpt,
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
) -> None:
    """Dump every pair with its pools, provenance, judgments and their history.

    Example: relkit export jsonl -o judgments.jsonl
    """
    from relkit.judging.access.identity import refuse_assessor
    from relkit.judging.reports import write_jsonl

    store = _read(db)
    refuse_assessor(store, "export jsonl")
    if output is None:
        write_jsonl(store, sys.stdout)
        return
    with open_output(output) as fp:
        n = write_jsonl(store, fp)
    _say(f"relkit: wrote {n} records to {output}")


@import_app.command("judgments")
def import_judgments(
    files: list[Path] = typer.Argument(..., help="Qrels per assessor (stem = assessor) or "
                                       "a CSV/TSV with assessor, topic, doc, grade"),
    db: str | None = DbOpt,
    add_missing: bool = typer.Option(False, help="Add unknown topics/documents (no text)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or summary"),
    assessor: str | None = typer.Option(None, help="The assessor of every judgment in the "
                                        "files (default: a qrels file's stem, a table's "
                                        "assessor column)"),
    kind: str = typer.Option("human", help="human, or automatic (an LLM or other "
                             "automatic judge: kept apart from humans in status and exports)"),
) -> None:
    """Import judgments, all or nothing; they mark the assessors' assigned items done.

    Example: relkit import judgments alice.qrels bob.qrels

    Example: relkit import judgments umbrela.qrels --assessor umbrela --kind automatic
    """
    from relkit.judging.schema import KINDS

    if kind not in KINDS:
        raise typer.BadParameter(f"expected one of {', '.join(KINDS)}; got {kind!r}",
                                 param_hint="--kind")
    if assessor is not None and not assessor.strip():
        raise typer.BadParameter("an assessor's name cannot be empty", param_hint="--assessor")
    from relkit.judging.imports import import_judgments as run
    from relkit.judging.judgment_files import read_judgment_files

    for f in files:
        if not f.is_file():
            raise typer.BadParameter(f"{f}: no such file", param_hint="FILES")
    from relkit.judging.judgment_files import JudgmentLines
    from relkit.judging.models import StoreError
    from relkit.metrics.core.progress import Bar

    def bar(label: str, total: int, unit: str) -> Any:
        return nullcontext() if quiet else Bar(label, total, unit=unit)

    lines, notes = JudgmentLines(), []
    with bar("reading judgment files", len(files), "files") as reading:
        for n, f in enumerate(files, 1):
            got = read_judgment_files([f])
            if not got:
                raise StoreError(f"{f}: no judgments in it (only blank or comment lines); "
                                 "nothing was imported")
            if assessor is not None:
                import dataclasses

                named = sorted({r.assessor for r in got})
                if len(named) > 1:
                    raise typer.BadParameter(f"{f} names {len(named)} assessors ("
                                             f"{', '.join(named[:3])}...); --assessor is for "
                                             "files of one assessor", param_hint="--assessor")

                got = JudgmentLines([dataclasses.replace(r, assessor=assessor) for r in got],
                                    got.notes)
            lines.extend(got)
            notes.extend(got.notes)
            if reading is not None:
                reading(n)
    if not quiet:  # what the readers skipped or renamed (a long table's gold column)
        for note in notes:
            _say(f"relkit: {note}")
    store = _open(db)
    with bar("importing judgments", len(lines), "judgments") as importing:
        done = run(store, lines, add_missing=add_missing, kind=kind, progress=importing)
    if not quiet:
        _say(f"relkit: imported {done.judgments:,} judgments ({done.new:,} new, "
             f"{done.revised:,} revised); {done.items_done:,} assigned items marked done"
             + (f"; {done.unassigned:,} match no assignment item (kept for agreement and "
                "export)" if done.unassigned else ""))


@app.command()
def adjudicate(
    topic: str, doc: str, grade: int,
    db: str | None = DbOpt,
    lead: str = typer.Option(..., help="The lead recording the final grade"),
    note: str = typer.Option("", help="Why"),
) -> None:
    """Record a lead's final grade for a pair the assessors disagreed on.

    Example: relkit adjudicate 7 doc123 2 --lead carol --note "narrative says so"
    """
    from relkit.judging.access.identity import check_acts_as
    from relkit.judging.reports import adjudicate as run

    store = _open(db)
    check_acts_as(store, lead, f"adjudicate --lead {lead}")
    run(store, lead, topic, doc, grade, note)
    _say(f"relkit: adjudicated topic {topic} document {doc}: grade {grade}")


@app.command()
def disagreements(
    db: str | None = DbOpt,
    fmt: str = typer.Option("tsv", "--format", help=FORMAT_HELP),
    output: Path | None = typer.Option(None, "-o", "--output", help=OUTPUT_HELP),
    include_automatic: bool = typer.Option(False, "--include-automatic", help="Count "
                                           "automatic assessors' grades (default: humans "
                                           "only)"),
) -> None:
    """List pairs that assessors graded differently (TSV: topic, doc, grades, adjudication).

    Not yet adjudicated: '-' (null in JSON). Automatic assessors count only with
    --include-automatic.

    Example: relkit disagreements --db team.db --format csv -o disagreements.csv
    """
    from relkit.judging.access.identity import refuse_assessor
    from relkit.judging.reports import disagreements as run
    from relkit.metrics.core.tables import check_table_options, write_table

    check_table_options(fmt, output)
    store = _read(db)
    refuse_assessor(store, "relkit disagreements")
    rows = [[d.topic, d.doc, " ".join(f"{a}={g}" for a, g in sorted(d.grades.items())),
             d.adjudicated] for d in run(store, include_automatic)]
    write_table(["topic", "doc", "grades", "adjudicated"], rows, fmt, output, missing="-")
