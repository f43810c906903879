"""``relkit demo``: the quick start, from nothing to judging, on the shipped sample.

One command does what a project does on day one: create a SQLite judging
database for the sample collection (``corpora/sample``), pool its runs at a
depth, assign two assessors with overlap (so agreement has something to
measure), and open the judging screen. Run again, it resumes: the database is
kept and the assessor continues where they stopped. When the assessor quits,
the next commands are printed (agreement, export, evaluation).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.judging.cliopts import DbOpt
from relkit.judging.cliopts import say as _say

app = typer.Typer()

SAMPLE = Path(__file__).resolve().parent.parent / "corpora" / "sample"
ASSESSORS = ("ann", "bob")


def build(db: str, depth: int, overlap: float, seed: int) -> None:
    """Create the demo project in ``db``: collection, depth pool, two assessors."""
    from relkit.corpora.collection import Collection
    from relkit.judging.models import PoolEntryIn
    from relkit.judging.store import Store
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
    depth: int = typer.Option(10, help="Pool the top DEPTH documents of each sample run"),
    overlap: float = typer.Option(0.5, help="Share of the pairs both assessors judge"),
    seed: int = typer.Option(7, help="Presentation order seed"),
    judge: bool = typer.Option(True, "--judge/--no-judge",
                               help="Open the judging screen (off when not on a terminal)"),
) -> None:
    """The quick start: the sample collection pooled, assigned and open for judging.

    Creates (or reopens) a SQLite database for the shipped sample collection,
    pools its runs, assigns two assessors with overlap and opens the judging
    screen. Running it again resumes where the assessor stopped.

    Example: relkit demo --db demo.db
    """
    from relkit.judging.store import Store

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
    _say(_next_steps(path))


def _create(path: str, depth: int, overlap: float, seed: int) -> bool:
    from relkit.judging.engine import DatabaseError
    from relkit.judging.models import StoreError
    from relkit.judging.store import Store

    if Path(path).exists() or "://" in path:
        try:
            store = Store.open(path, create=False)
            if store.assessor(ASSESSORS[0]).topics():
                return False
        except (StoreError, DatabaseError):
            pass  # not a demo project yet (no collection, no such assessor): build it
    build(path, depth, overlap, seed)
    return True


def _next_steps(db: str) -> str:
    runs = SAMPLE / "runs"
    try:
        shown_runs = runs.relative_to(Path.cwd())
    except ValueError:
        shown_runs = runs
    return (f"\nYour judgments are in {Path(db).resolve() if '://' not in db else db}.\n"
            "Next:\n"
            f"  relkit judge --db {db} --assessor bob         # the second assessor\n"
            f"  relkit status --db {db}                       # progress\n"
            f"  relkit agree --db {db}                        # assessor agreement\n"
            f"  relkit export qrels --db {db} -o qrels.txt    # the judgments as qrels\n"
            f"  relkit eval qrels.txt {shown_runs}/*.txt      # evaluate the sample runs\n")
