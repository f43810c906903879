"""``relkit corpora ...``: the known public collections, what a collection holds, fetching.

Data (tables, JSON) goes to stdout; progress and notes to stderr. Registered in
``judging/cli.py`` as the ``corpora`` sub-app.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any, Literal

import typer

from relkit.metrics.commands.tableopts import TableFormat, TableOutput
from relkit.metrics.core.progress import Bar

app = typer.Typer(help="Test collections: list the known ones, describe one, fetch one.",
                  no_args_is_help=True, add_completion=False,
                  epilog="Example: relkit corpora fetch cranfield")
Fmt = Literal["text", "json"]


def _say(msg: str) -> None:
    sys.stderr.write(f"relkit: {msg}\n")


@app.command("list")
def list_(
    fmt: str = typer.Option("text", "--format", help="text (tab-separated), json (with the "
                            "descriptions), csv or markdown"),
    output: TableOutput = None,
) -> None:
    """The known public collections: size, sources, checksums, and whether fetched.

    Example: relkit corpora list
    """
    from relkit.corpora.known import KNOWN, collection_dir
    from relkit.metrics.core.tables import check_table_options, write_table

    table = "tsv" if fmt == "text" else fmt
    check_table_options(table, output)

    rows: list[dict[str, Any]] = []
    for kc in KNOWN.values():
        files = kc.sources.get(kc.default_source, ())
        check = ("-" if kc.shipped else "sha256" if all(f.sha256 for f in files) else
                 "md5" if all(f.verifiable for f in files) else "none")
        rows.append({"name": kc.name, "title": kc.title, "docs": kc.counts.get("docs"),
                     "topics": kc.counts.get("topics"), "qrels": kc.counts.get("qrels"),
                     "sources": list(kc.sources) or ["shipped"], "checksum": check,
                     "fetched": kc.shipped is not None
                     or (collection_dir(kc.name) / "collection.json").is_file(),
                     "description": kc.description})
    if table == "json":  # the full records, descriptions and source lists included
        text = json.dumps(rows, indent=2) + "\n"
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
        return
    write_table(["name", "docs", "topics", "qrels", "sources", "checksum", "fetched", "title"],
                [[r["name"], r["docs"], r["topics"], r["qrels"], ",".join(r["sources"]),
                  r["checksum"], "yes" if r["fetched"] else "no", r["title"]] for r in rows],
                table, output, missing="-")


@app.command()
def info(
    ref: str = typer.Argument(..., help="A known collection's name (fetched), a folder with "
                              "collection.toml/json, or a manifest file"),
    layout: str | None = typer.Option(None, help="Read the folder REF with this known "
                                      "collection's layout (for copies without a manifest)"),
    fmt: str = typer.Option("text", "--format", help="text or json"),
) -> None:
    """Counts of a collection's documents, topics and judgments; grades; unanswerable topics.

    Example: relkit corpora info ../shared/corpora/cranfield --layout cranfield
    """
    from relkit.corpora.collection import open_collection
    from relkit.corpora.known import get_known
    from relkit.corpora.stats import collection_stats
    from relkit.metrics.core.options import option_value

    fmt = _fmt(fmt)  # before the work
    if layout is not None:
        with option_value("--layout"):
            get_known(layout)
    c = open_collection(ref, layout)
    with Bar(f"indexing {c.name} documents", unit="documents") as bar:
        st = collection_stats(c, bar.update)
    for warning in st.warnings:   # stderr: --quiet silences them
        sys.stderr.write(f"relkit corpora info: warning: {warning}\n")
    if fmt == "json":
        typer.echo(json.dumps(st.to_dict(), indent=2))
    else:
        for line in st.lines():
            typer.echo(line)


@app.command()
def fetch(
    name: str = typer.Argument(..., help="A known collection (see `relkit corpora list`)"),
    url_base: str | None = typer.Option(None, help="Download FILE from URL_BASE/FILE instead "
                                        "of upstream (a mirror)"),
    source: str | None = typer.Option(None, help="Which of the collection's sources "
                                      "(default: the first listed)"),
    dest: Path | None = typer.Option(None, help="Folder to fill (default: "
                                     "$RELKIT_CACHE/collections/NAME)"),
    unverified: bool = typer.Option(False, "--unverified", help="Accept files for which no "
                                    "checksum is known (their SHA-256 is printed)"),
) -> None:
    """Download a known collection into the cache, checking every file's checksum.

    The collection's sources are tried in order (`relkit corpora list` shows them)
    until one delivers every file intact; --source picks one, --url-base replaces
    them with a mirror. Each failed transfer is retried twice.

    Example: relkit corpora fetch cranfield
    """
    from relkit.corpora.fetch import fetch as do_fetch

    if source is not None:  # a source the collection does not have: the option's value
        from relkit.corpora.known import get_known
        from relkit.metrics.core.options import OptionError, option_value

        with option_value("--source"):
            sources = get_known(name).sources
        if source not in sources:
            raise OptionError("--source", f"{name} has no source {source!r}; it has "
                              f"{', '.join(sources)}")
    with Bar(name, size=True) as bar:
        root = do_fetch(name, dest=dest, url_base=url_base, source=source,
                        unverified=unverified, say=_say,
                        progress=lambda label, done, total: bar.update(done, total, label))
    # Fetched elsewhere than the cache, the name does not find it: the path does.
    _say(f"{name} is in {root}; try: relkit corpora info "
         f"{name if dest is None else shlex.quote(str(root))}")
    typer.echo(str(root))


@app.command()
def formats(
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """The document, topic and qrels formats relkit reads (the loader registries).

    Example: relkit corpora formats --format markdown
    """
    from relkit.corpora.loaders import LOADERS
    from relkit.corpora.qrels import QRELS_FORMATS
    from relkit.metrics.core.tables import Cell, check_table_options, write_table

    check_table_options(fmt, output)
    rows: list[list[Cell]] = [[ld.name, ld.kind, ",".join(ld.options) or "-", ld.description]
                              for ld in LOADERS.values()]
    rows += [[q.name, "qrels", "-", q.description] for q in QRELS_FORMATS.values()]
    write_table(["format", "kind", "options", "description"], rows, fmt, output)


def _fmt(fmt: str) -> str:
    if fmt not in ("text", "json"):
        raise typer.BadParameter(f"expected text or json; got {fmt!r}", param_hint="--format")
    return fmt
