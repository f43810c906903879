"""``relkit systems``: run a baseline retrieval system over a collection's topics.

Data (the run, the list) go to stdout or ``-o``; progress and a one-line summary
go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from relkit.corpora.systems import load_all, names
from relkit.metrics.commands.numopt import COUNT, Num
from relkit.metrics.commands.tableopts import TableFormat, TableOutput

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
    from relkit.corpora.systems.job import SystemRequest, run_system
    from relkit.metrics.core.errors import check_output

    if output is not None:
        check_output(output)     # before the retrieval, not after it
    made = run_system(SystemRequest(
        docs=docs, topics=topics, collection=collection, system=system, param=param,
        docs_format=docs_format, topics_format=topics_format, field=field, depth=depth,
        tag=tag, stemmer=stemmer, stopwords=stopwords, output=output))
    made.result.run.write(output if output is not None else sys.stdout)
    for line in made.notes(output):
        _say(line)
