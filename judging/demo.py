"""``relkit demo``: the quick start, from nothing to judging, on the shipped sample.

One command does what a project does on day one: create a SQLite judging
database for the sample collection (``corpora/sample``), pool its runs at a
depth, assign two assessors with overlap (so agreement has something to
measure), and open the judging screen. Run again, it resumes: the database is
kept and the assessor continues where they stopped. When the assessor quits,
the next commands are printed (agreement, export, evaluation), spelt so that they
can be pasted as they are (``.venv/bin/relkit`` when relkit is not on the PATH) and
so that the evaluation they lead to has numbers to show: before anything is judged,
the sample's own shipped judgments rather than an export of unjudged pairs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import typer

from relkit.corpora.known import SAMPLE_DIR as SAMPLE
from relkit.judging.cliopts import DbOpt
from relkit.judging.cliopts import say as _say
from relkit.metrics.commands.numopt import COUNT, SEED, SHARE, Num

app = typer.Typer()

ASSESSORS = ("ann", "bob")


def build(db: str, depth: int, overlap: float, seed: int) -> None:
    """Create the demo project in ``db``: collection, depth pool, two assessors."""
    from relkit.corpora.collection import Collection
    from relkit.judging.store.assign import Store
    from relkit.judging.store.models import PoolEntryIn
    from relkit.pooling.depth import depth_pool

    col = Collection.load(SAMPLE)
    docs = col.docs
    assert docs is not None, "the sample manifest names its documents"
    store = Store.open(db)
    store.create_collection(col.name, col.scale, col.read_topics(),
                            docs_source=str(Path(col.source(docs, "docs")).resolve()),
                            docs_format=docs.format)
    runs = col.read_runs()
    pool = depth_pool(runs, depth)
    entries = [PoolEntryIn(topic=e.topic, doc=e.doc, priority=e.priority,
                           provenance=e.provenance) for e in pool]
    lookup = col.docstore().get
    store.import_pool(entries, name=f"depth-{depth}", lookup=lookup, strategy="depth",
                      params={"depth": depth}, source="relkit demo")
    store.assign(list(ASSESSORS), overlap=overlap, ordering="random", seed=seed)
    _say(f"relkit: sample collection {col.name!r}: {len(pool):,} pooled documents from "
         f"{len(runs)} runs at depth {depth}, assigned to {' and '.join(ASSESSORS)} "
         f"with {overlap:.0%} overlap")


@app.command()
def demo(
    db: str | None = DbOpt,
    assessor: str = typer.Option(ASSESSORS[0], help="Judge as this assessor"),
    depth: int = Num(10, within=COUNT, help="Pool the top DEPTH documents of each sample run"),
    overlap: float = Num(0.5, within=SHARE, help="Share of the pairs both assessors judge"),
    seed: int = Num(7, within=SEED, help="Presentation order seed"),
    judge: bool = typer.Option(True, "--judge/--no-judge",
                               help="Open the judging screen (off when not on a terminal)"),
) -> None:
    """The quick start: the sample collection pooled, assigned and open for judging.

    Creates (or reopens) a SQLite database for the shipped sample collection,
    pools its runs, assigns two assessors with overlap and opens the judging
    screen. Running it again resumes where the assessor stopped.

    Example: relkit demo --db demo.db
    """
    from relkit.judging.store.assign import Store

    path = db or "relkit-demo.db"
    created = _create(path, depth, overlap, seed)
    if not created:
        _say(f"relkit: reopening {path} (delete it to start over)")
    if judge and sys.stdin.isatty() and sys.stdout.isatty():
        from relkit.judging.tui.app import make_app
        from relkit.judging.tui.cli import finish

        app = make_app(Store.open(path, create=False), assessor)
        app.run()
        code = finish(app)
        if code:
            raise typer.Exit(code)
    elif judge:
        _say("relkit: not on a terminal: skipping the judging screen")
    _say(_next_steps(path, _judged(path)))


def _judged(db: str) -> int:
    """How many pairs have a grade (0: an export would be all -1, pooled-unjudged)."""
    from relkit.judging.store.assign import Store
    from relkit.judging.store.reports import export_qrels

    return len(export_qrels(Store.open(db, create=False), unjudged=False))


def _create(path: str, depth: int, overlap: float, seed: int) -> bool:
    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import DatabaseError
    from relkit.judging.store.models import StoreError

    if Path(path).exists() or "://" in path:
        try:
            store = Store.open(path, create=False)
            if store.assessor(ASSESSORS[0]).topics():
                return False
        except (StoreError, DatabaseError):
            pass  # not a demo project yet (no collection, no such assessor): build it
    build(path, depth, overlap, seed)
    return True


def relkit_command() -> tuple[str, str]:
    """How to type ``relkit`` here, and a note on activating its environment (or "").

    ``relkit`` when that name on the PATH is this very installation; otherwise the
    script beside this Python (``.venv/bin/relkit``, shown relative to the working
    directory) with a note that activating the environment makes plain ``relkit``
    work; as a last resort ``python -m relkit`` with this interpreter.
    """
    bindir = Path(sys.executable).parent
    script = bindir / "relkit"
    on_path = shutil.which("relkit")
    if on_path and script.exists() and os.path.samefile(on_path, script):
        return "relkit", ""
    if not script.exists():
        return f"{shlex.quote(sys.executable)} -m relkit", ""
    shown = _shown(script)
    note = (f"(or run `source {_shown(bindir / 'activate')}` once, then plain `relkit`)"
            if (bindir / "activate").exists() else "")
    return shlex.quote(shown), note


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is below it."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _next_steps(db: str, judged: int) -> str:
    rk, note = relkit_command()
    dbq = shlex.quote(db)
    sample = shlex.quote(_shown(SAMPLE))
    runs = f"{sample}/runs/*.txt"
    where = Path(db).resolve() if "://" not in db else db
    first = [(f"{rk} judge --db {dbq} --assessor bob", "the second assessor"),
             (f"{rk} status --db {dbq}", "progress"),
             (f"{rk} agree --db {dbq}", "assessor agreement")]
    width = max(len(c) for c, _ in first)
    lines = [f"\nThe project and its judgments are in {where}.",
             "Next" + (f" {note}" if note else "") + ":",
             *(f"  {c:<{width}}   # {why}" for c, why in first)]
    if judged:
        lines += [f"  {rk} export qrels --db {dbq} -o qrels.txt   # your {judged} judgment"
                  f"{'s' if judged != 1 else ''} as qrels (-1: pooled, not judged yet)",
                  f"  {rk} eval -m map -m nDCG@10 qrels.txt {runs}",
                  "    # the sample runs on your judgments (topics nobody judged yet score "
                  "0; eval says which)",
                  f"  {rk} eval -m map -m nDCG@10 {sample}/qrels.txt {runs}",
                  "    # the same runs on the judgments shipped with the sample, to compare",
                  f"  {rk} judges-run --db {dbq} --backend supervised",
                  "    # an offline automatic judge learns your judgments and grades the pool",
                  f"  {rk} judges --db {dbq}",
                  "    # that judge against your grades (on pairs it did not learn from)"]
    else:
        lines += ["Nothing is judged yet, so an export would hold only -1 lines (pooled, not "
                  "judged) and every run would score 0.",
                  "Meanwhile, the sample runs on the judgments shipped with the sample:",
                  f"  {rk} eval -m map -m nDCG@10 {sample}/qrels.txt {runs}",
                  "After judging, export yours and evaluate the same runs on them:",
                  f"  {rk} export qrels --db {dbq} -o qrels.txt",
                  f"  {rk} eval -m map -m nDCG@10 qrels.txt {runs}"]
    return "\n".join(lines) + "\n"
