"""``relkit systems``: run a baseline retrieval system over a collection's topics.

Data (the run, the list) go to stdout or ``-o``; progress and a one-line summary
go to stderr.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from relkit.corpora.systems import load_all, names
from relkit.metrics.commands.numopt import COUNT, Num
from relkit.metrics.commands.tableopts import TableFormat, TableOutput
from relkit.metrics.core.progress import Bar

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  epilog="Example: relkit systems run --collection sample -s bm25 -o bm25.txt",
                  help="Baseline retrieval systems (BM25, TF-IDF, query likelihood) that "
                       "turn a collection and topics into TREC runs.")


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


@app.command("list")
def list_cmd(
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """List the retrieval systems, their parameters (default, allowed values) and references.

    Example: relkit systems list --format markdown
    """
    from relkit.metrics.core.tables import check_table_options, write_table

    check_table_options(fmt, output)
    rows = [[n, ", ".join(f"{p.name}={str(p.default).lower() if p.kind is bool else p.default}"
                          f" ({p.expected()})" for p in s.params), s.summary, s.reference]
            for n, s in sorted(load_all().items())]
    write_table(["name", "parameters", "summary", "reference"], rows, fmt, output)


@app.command("run")
def run_cmd(
    docs: Annotated[Path | None, typer.Option(
        "--docs", help="The documents (any corpora loader)")] = None,
    topics: Annotated[Path | None, typer.Option("--topics", help="The topics")] = None,
    collection: Annotated[str | None, typer.Option(
        "--collection", "-c", help="A collection instead of --docs/--topics: a folder with "
        "a collection.toml, or a fetched known name (`relkit corpora list`)")] = None,
    system: Annotated[str, typer.Option(
        "--system", "-s", help=f"The system: {', '.join(names())}")] = "bm25",
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A system parameter, name=value (repeatable); "
        "see `relkit systems list`")] = None,
    docs_format: Annotated[str | None, typer.Option(
        "--docs-format", help="Documents format (default: sniffed)")] = None,
    topics_format: Annotated[str | None, typer.Option(
        "--topics-format", help="Topics format (default: sniffed)")] = None,
    field: Annotated[str, typer.Option(
        "--field", help="Topic text searched: title, desc or title+desc")] = "title",
    depth: Annotated[int, Num("--depth", "-k", within=COUNT, help="Documents per topic")] = 1000,
    tag: Annotated[str | None, typer.Option(
        "--tag", help="Run tag (last column); default: the system's name")] = None,
    stemmer: Annotated[str, typer.Option(
        "--stemmer", help="porter, snowball or none")] = "porter",
    stopwords: Annotated[bool, typer.Option(
        "--stopwords/--no-stopwords", help="Drop English stop words")] = True,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Run file to write (default: stdout; .gz ok)")] = None,
) -> None:
    """Index a collection, search its topics with one system, write a TREC run.

    Documents and queries go through the same analyzer (lower case, word tokens,
    English stop words out, Porter stems) whatever the system. Lines are
    `topic Q0 doc rank score tag`, ranked as trec_eval ranks (score descending,
    ties by docno descending), at most --depth per topic; only documents holding a
    query term are retrieved.

    Example: relkit systems run --docs cran.all.1400 --topics cran.qry -s bm25 -p k1=1.2 -o r.txt

    Example: relkit systems run --collection corpora/sample -s ql -p mu=100 -o ql.txt
    """
    from relkit.corpora.loaders import get_loader, read_docs, read_topics
    from relkit.corpora.systems import get, parse_params
    from relkit.corpora.systems.analyzer import Analyzer
    from relkit.corpora.systems.errors import SystemsError
    from relkit.corpora.systems.index import Index
    from relkit.corpora.systems.retrieve import query_text, retrieve
    from relkit.metrics.core.options import OptionError, option_value

    # Values the options cannot take are usage errors (exit 2), found before indexing.
    with option_value("--system"):
        sys_ = get(system)
    with option_value("--param"):
        params: dict[str, Any] = sys_.validate(parse_params(param or []))
    with option_value("--field"):
        query_text(_probe_topic(), field)
    if depth < 1:
        raise OptionError("--depth", f"must be an int >= 1; got {depth}")
    if tag is not None and (not tag or any(c.isspace() for c in tag)):  # as retrieve() says
        raise OptionError("--tag", f"a run tag must be one word without spaces; got {tag!r}")
    with option_value("--stemmer"):
        analyzer = Analyzer(stemmer, stopwords)  # type: ignore[arg-type]
    for opt, fmt, kind in (("--docs-format", docs_format, "docs"),
                           ("--topics-format", topics_format, "topics")):
        if fmt is not None:
            with option_value(opt):
                get_loader(fmt, kind)
    if collection is not None:
        if docs is not None or topics is not None:
            raise SystemsError("give --collection, or --docs and --topics, not both")
        from relkit.corpora.collection import open_collection

        col = open_collection(collection)
        queries = col.read_topics()
        stream = col.iter_docs()
    else:
        if docs is None or topics is None:
            raise SystemsError("give --docs and --topics (or --collection NAME|PATH)")
        for path in (docs, topics):
            if not path.is_file():
                raise SystemsError(f"{path}: no such file")
        queries = read_topics(topics, topics_format)
        stream = read_docs(docs, docs_format)
    t0 = time.perf_counter()
    with Bar("indexing documents", unit="documents") as bar:
        index = Index.build(stream, analyzer, progress=bar.update,
                            source=str(collection if docs is None else docs))
    t1 = time.perf_counter()
    with Bar(f"searching with {sys_.name}", len(queries), unit="topics") as bar:
        result = retrieve(index, sys_, queries, params=params, depth=depth, tag=tag,
                          field=field, progress=bar.update)
    t2 = time.perf_counter()
    result.run.write(output if output is not None else sys.stdout)
    for t in result.empty[:5]:
        _say(f"relkit: warning: topic {t}: no query term occurs in the collection; "
             "no documents")
    if len(result.empty) > 5:
        _say(f"relkit: warning: {len(result.empty) - 5} more topics without documents")
    shown = ", ".join(f"{k}={v}" for k, v in params.items())
    _say(f"relkit: {sys_.name} ({shown}; {analyzer.describe()}): {index.num_docs:,} documents "
         f"indexed in {t1 - t0:.1f} s, {len(queries)} topics searched in {t2 - t1:.1f} s, "
         f"{len(result.run):,} lines" + (f" to {output}" if output else ""))


def _probe_topic() -> Any:
    from relkit.corpora.types import Topic

    return Topic("probe")
