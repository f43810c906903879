"""``relkit systems run``'s work: check the options, index a collection, search its
topics with one system.

:func:`run_system` checks every option value before it reads a document (a usage
error names the option), then indexes and searches, timing both. It returns the
run and what the command says of it (:class:`SystemRun`); the command writes the run
and prints; this module never does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError, option_value

if TYPE_CHECKING:
    from relkit.corpora.systems.analyzer import Analyzer

SHOWN_EMPTY = 5   # topics without documents named one by one


@dataclass(frozen=True, kw_only=True)
class SystemRequest:
    """What ``relkit systems run`` was asked (its options, by their names)."""

    docs: Path | None = None
    topics: Path | None = None
    collection: str | None = None
    system: str = "bm25"
    param: list[str] | None = None
    docs_format: str | None = None
    topics_format: str | None = None
    field: str = "title"
    depth: int = 1000
    tag: str | None = None
    stemmer: str = "porter"
    stopwords: bool = True
    output: Path | None = None


@dataclass(frozen=True)
class SystemRun:
    """A system's run and how it was made: the result of
    :func:`relkit.corpora.systems.retrieve.retrieve`, the system, its parameters, the
    analyzer, the index's size, the topics searched and the seconds indexing and
    searching took."""

    result: Any
    system: str
    params: dict[str, Any]
    analyzer: Analyzer
    num_docs: int
    topics: int
    index_seconds: float
    search_seconds: float

    def notes(self, output: Path | None) -> list[str]:
        """The lines the command says once the run is written (to ``output``, or
        stdout when None): topics without documents, then the summary."""
        lines = [f"relkit: warning: topic {t}: no query term occurs in the collection; "
                 "no documents" for t in self.result.empty[:SHOWN_EMPTY]]
        if len(self.result.empty) > SHOWN_EMPTY:
            lines.append(f"relkit: warning: {len(self.result.empty) - SHOWN_EMPTY} more "
                         "topics without documents")
        shown = ", ".join(f"{k}={v}" for k, v in self.params.items())
        lines.append(f"relkit: {self.system} ({shown}; {self.analyzer.describe()}): "
                     f"{self.num_docs:,} documents indexed in {self.index_seconds:.1f} s, "
                     f"{self.topics} topics searched in {self.search_seconds:.1f} s, "
                     f"{len(self.result.run):,} lines" + (f" to {output}" if output else ""))
        return lines


def _probe_topic() -> Any:
    from relkit.corpora.types import Topic

    return Topic("probe")


def _check(r: SystemRequest) -> tuple[Any, dict[str, Any], Analyzer]:
    """The system, its validated parameters and the analyzer; :class:`OptionError` for
    a value an option cannot take."""
    from relkit.corpora.loaders import get_loader
    from relkit.corpora.systems import get, parse_params
    from relkit.corpora.systems.analyzer import Analyzer
    from relkit.corpora.systems.retrieve import query_text

    with option_value("--system"):
        sys_ = get(r.system)
    with option_value("--param"):
        params: dict[str, Any] = sys_.validate(parse_params(r.param or []))
    with option_value("--field"):
        query_text(_probe_topic(), r.field)
    if r.depth < 1:
        raise OptionError("--depth", f"must be an int >= 1; got {r.depth}")
    if r.tag is not None and (not r.tag or any(c.isspace() for c in r.tag)):
        # as retrieve() says
        raise OptionError("--tag", f"a run tag must be one word without spaces; got "
                          f"{r.tag!r}")
    with option_value("--stemmer"):
        analyzer = Analyzer(r.stemmer, r.stopwords)  # type: ignore[arg-type]
    for opt, fmt, kind in (("--docs-format", r.docs_format, "docs"),
                           ("--topics-format", r.topics_format, "topics")):
        if fmt is not None:
            with option_value(opt):
                get_loader(fmt, kind)
    return sys_, params, analyzer


def _inputs(r: SystemRequest) -> tuple[Any, Any]:
    """The topics and the documents' stream: of ``--collection``, or of ``--docs`` and
    ``--topics``."""
    from relkit.corpora.loaders import read_docs, read_topics
    from relkit.corpora.systems.errors import SystemsError

    if r.collection is not None:
        if r.docs is not None or r.topics is not None:
            raise SystemsError("give --collection, or --docs and --topics, not both")
        from relkit.corpora.collection import open_collection

        col = open_collection(r.collection)
        return col.read_topics(), col.iter_docs()
    if r.docs is None or r.topics is None:
        raise SystemsError("give --docs and --topics (or --collection NAME|PATH)")
    for path in (r.docs, r.topics):
        if not path.is_file():
            raise SystemsError(f"{path}: {not_a_file(path)}")
    return read_topics(r.topics, r.topics_format), read_docs(r.docs, r.docs_format)


def run_system(r: SystemRequest) -> SystemRun:
    """Index ``r``'s documents and search its topics with its system.

    Raises
    ------
    OptionError
        A value an option cannot take (before anything is read).
    SystemsError
        Missing inputs, or both a collection and files.
    """
    from relkit.corpora.systems.index import Index
    from relkit.corpora.systems.retrieve import retrieve
    from relkit.metrics.core.progress import Bar

    sys_, params, analyzer = _check(r)
    queries, stream = _inputs(r)
    t0 = time.perf_counter()
    with Bar("indexing documents", unit="documents") as bar:
        index = Index.build(stream, analyzer, progress=bar.update,
                            source=str(r.collection if r.docs is None else r.docs))
    t1 = time.perf_counter()
    with Bar(f"searching with {sys_.name}", len(queries), unit="topics") as bar:
        result = retrieve(index, sys_, queries, params=params, depth=r.depth, tag=r.tag,
                          field=r.field, progress=bar.update)
    t2 = time.perf_counter()
    return SystemRun(result, sys_.name, params, analyzer, index.num_docs, len(queries),
                     t1 - t0, t2 - t1)
