"""``relkit pool``'s work: pool runs with a strategy, to a file, stdout or a judging
database.

:func:`pool_runs` checks the whole request before it reads a run (an unknown strategy,
an option that does not go with it, an output path that cannot be written), then
pools. A static strategy's pool is written (``-o``, else stdout) or imported into the
database whole (all or nothing); an adaptive strategy's candidates are imported with
its definition, and the store picks each document as judgments arrive
(:mod:`relkit.judging.store.adaptive`). The command parses and prints; this module
decides and never prints: what the command says as it goes is ``say``'s, the pool
written to stdout goes to ``stdout``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store
    from relkit.pooling.pool import Pool


@dataclass(frozen=True, kw_only=True)
class PoolRequest:
    """What ``relkit pool`` was asked (its options, by the names of its parameters).

    ``into`` is the database the pool goes into (``--db``; None: a file or stdout).
    """

    runs: list[Path]
    strategy: str = "depth"
    depth: int = 100
    param: list[str] = field(default_factory=list)
    budget: int | None = None
    total: int | None = None
    topics: list[str] | None = None
    output: Path | None = None
    into: str | None = None
    pool_name: str | None = None
    docs: Path | None = None
    docs_format: str | None = None
    seed: int = 0
    group_file: Path | None = None
    group_prefix: str | None = None
    per_group: int | None = None
    depth_of: list[str] = field(default_factory=list)
    budget_of: list[str] = field(default_factory=list)
    floor: int | None = None
    stop: str | None = None
    source_from: str | None = None


def pool_runs(r: PoolRequest, open_store: Callable[[], Store], say: Callable[[str], None],
              stdout: IO[str]) -> None:
    """Pool ``r.runs`` as ``r`` asks; ``open_store`` opens ``r.into`` (the owner's).

    Raises
    ------
    OptionError
        An option value the strategy cannot take, or options that do not go together
        (a usage error).
    PoolingError
        An adaptive strategy without a database, unreadable runs, a strategy's failure.
    StoreError
        The import was refused (nothing was imported).
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import option_value
    from relkit.pooling.groups import parse_topic_budgets
    from relkit.pooling.runfiles import select_run_files
    from relkit.pooling.strategies import get, parse_params

    with option_value("--strategy"):
        kind = get(r.strategy).kind     # an unknown name fails before the runs are read
    with option_value("--param"):
        params = parse_params(r.param)
    if r.source_from is not None:
        cal_from(r.strategy, r.source_from, params)
    if r.output is not None:
        check_output(r.output)          # before the work, not after it
    if r.docs is not None and r.into is None:
        raise OptionError("--docs", "is used only with --db (to copy pooled documents' text)")
    with option_value("--budget-of"):
        topic_budgets = parse_topic_budgets(r.budget_of)
    if topic_budgets and r.total is not None:
        raise OptionError("--budget-of", "gives per-topic budgets; --total splits one "
                          "budget, give one or the other")
    runs = select_run_files(r.runs, r.group_file, r.group_prefix, r.per_group, say)
    if r.into is None and os.environ.get("RELKIT_DB"):
        # the one command that does not read it: say so, or the next `assign` finds no pool
        say("relkit pool: $RELKIT_DB is not read here: the pool goes to "
            f"{r.output or 'stdout'}; give --db \"$RELKIT_DB\" to import it")
    if kind == "adaptive":
        if r.depth_of or topic_budgets or r.floor is not None:
            raise OptionError("--depth-of" if r.depth_of else "--budget-of" if topic_budgets
                              else "--floor", "is for static strategies (an adaptive pool "
                              "takes one depth and budget)")
        _pool_adaptive(r, runs, params, open_store, say)
        return
    if r.stop is not None:
        raise OptionError("--stop", "is for adaptive strategies (a static pool is judged "
                          "whole)")
    _pool_static(r, runs, params, topic_budgets, open_store, say, stdout)


def cal_from(strategy: str, source: str, params: dict[str, Any]) -> None:
    """``--from`` is cal's ``from`` parameter (a usage error for another strategy)."""
    if strategy != "cal":
        raise OptionError("--from", "is for the cal strategy (its candidates)")
    if source not in ("runs", "collection"):
        raise OptionError("--from", f"expected runs or collection; got {source!r}")
    params["from"] = source


def _pool_static(r: PoolRequest, runs: list[Path], params: dict[str, Any],
                 topic_budgets: dict[str, int], open_store: Callable[[], Store],
                 say: Callable[[str], None], stdout: IO[str]) -> None:
    from relkit.metrics.core.options import option_value
    from relkit.pooling.build import build_pool
    from relkit.pooling.groups import parse_run_depths
    from relkit.pooling.runfiles import read_runs

    # a bad --db (or a person's) fails before pooling
    store = open_store() if r.into is not None else None
    loaded = read_runs(runs, say)
    with option_value("--depth-of"):
        depths = parse_run_depths(r.depth_of, loaded, r.depth)
    if r.strategy == "depth":
        params.setdefault("depth", str(r.depth if isinstance(depths, int)
                                       else max(depths.values())))
    p = build_pool(r.strategy, loaded, params, topics=r.topics, depth=depths,
                   budget=r.budget, total=r.total, topic_budgets=topic_budgets or None,
                   floor=r.floor)
    pooled = (f"relkit: pooled {len(p):,} documents over {len(p.sizes())} topics from "
              f"{len(loaded)} run{'s' if len(loaded) != 1 else ''} ({r.strategy}, depth {r.depth})")
    if store is None:  # with --db, said once the import has succeeded (one line if not)
        say(pooled)
    if r.output is not None:
        from relkit.metrics.core.outfile import open_output

        with open_output(r.output) as fp:
            p.write(fp)
    elif r.into is None:
        p.write(stdout)
    if store is not None:
        summary = _import_static(r, store, p, params, dict(zip(loaded, runs, strict=True)))
        say(pooled)
        say(f"relkit: imported pool {summary.name!r} ({summary.entries:,} entries, "
            f"{summary.new_documents:,} documents copied in)")


def _import_static(r: PoolRequest, store: Store, p: Pool, params: dict[str, Any],
                   files: dict[str, Path]) -> Any:
    from relkit.judging.store.models import PoolEntryIn

    entries = [PoolEntryIn(topic=e.topic, doc=e.doc, priority=e.priority,
                           provenance=e.provenance) for e in p]

    def locate(i: int) -> str:
        # An entry comes from the runs: name the first run file that retrieved it.
        e = entries[i]
        if not e.provenance:
            return f"{r.output or 'pool'}:{i + 2}"
        run, rank = e.provenance[0]
        return f"{files.get(run, run)} (topic {e.topic}, rank {rank})"

    label = r.pool_name or free_name(
        store, f"depth-{r.depth}" if r.strategy == "depth" else f"{r.strategy}-{r.depth}")
    return store.import_pool(entries, name=label, lookup=doc_lookup(store, r.docs,
                                                                    r.docs_format),
                             strategy=r.strategy, params={k: v for k, v in {
                                 "depth": r.depth, **params, "budget": r.budget,
                                 "total": r.total}.items() if v is not None},
                             source=str(r.output or "pool"), locate=locate)


def collection_ids(store: Store, docs: Path | None, docs_format: str | None) -> list[str]:
    """Every document id of the collection's documents file (cal from=collection)."""
    from relkit.corpora.docstore import DocStore
    from relkit.pooling.errors import PoolingError

    src, fmt = store.docs_source()
    source = docs or (Path(src) if src else None)
    if source is None:
        raise PoolingError("cal from=collection needs the collection's documents: give "
                           "--docs, or `relkit init --docs`")
    return DocStore.open(source, docs_format or fmt).ids()


def free_name(store: Store, label: str) -> str:
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


def doc_lookup(store: Store, docs: Path | None, docs_format: str | None) -> Any:
    """The documents file given, or the one `init` recorded (None: neither)."""
    src, fmt = store.docs_source()
    source = docs or (Path(src) if src else None)
    if source is None:
        return None
    from relkit.corpora.docstore import DocStore

    return DocStore.open(source, docs_format or fmt).get


def _pool_adaptive(r: PoolRequest, runs: list[Path], params: dict[str, Any],
                   open_store: Callable[[], Store], say: Callable[[str], None]) -> None:
    import hashlib

    from relkit.judging.store.adaptive import Definition, import_pool
    from relkit.pooling.candidates import Candidates
    from relkit.pooling.errors import PoolingError
    from relkit.pooling.runfiles import read_runs

    if r.into is None or r.output is not None:
        raise PoolingError(f"{r.strategy!r} is adaptive: it picks each document as "
                           "judgments arrive, so there is no pool file to write; import it "
                           "with --db DB (or replay it against qrels with `relkit "
                           "pool-simulate`)")
    from relkit.metrics.core.options import option_value
    from relkit.pooling.stopping import parse_stop

    with option_value("--stop"):
        parse_stop(r.stop)
    budget, total = r.budget, r.total
    definition = Definition(r.strategy, params, r.seed, budget, total, stop=r.stop).validated()
    store = open_store()
    loaded = read_runs(runs, say)
    cands = Candidates.from_runs(loaded, r.depth, r.topics)
    if definition.strategy == "cal" and definition.params.get("from") == "collection":
        from relkit.pooling.cal.strategy import with_collection

        cands = with_collection(cands, collection_ids(store, r.docs, r.docs_format))
    # The runs themselves are in the pool (each candidate's provenance); their files'
    # checksums say which files those were.
    files = {n: {"path": str(p.resolve()), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
             for n, p in zip(loaded, runs, strict=True)}
    label = r.pool_name or free_name(store, f"{r.strategy}-{budget or total}-{r.depth}")
    summary = import_pool(store, cands, definition, name=label,
                          lookup=doc_lookup(store, r.docs, r.docs_format),
                          extra={"depth": r.depth, "runs": files}, source=str(runs[0]))
    per = f"{budget} per topic" if budget is not None else f"{total} in all"
    rule = f", stop {definition.stop}" if definition.stop else ""
    say(f"relkit: imported adaptive pool {summary.name!r} ({r.strategy}, seed {r.seed}, "
        f"budget {per}{rule}): {summary.entries:,} candidates over {summary.topics} topics, "
        f"{summary.new_documents:,} documents copied in")
