"""Documents, topics and qrels from the ``ir_datasets`` package (optional extra).

``pip install 'relkit[irds]'`` brings it in; without it every function here
raises :class:`IrdsMissing`, naming the extra. The "path" of these sources is an
ir_datasets id (``cranfield``, ``beir/scifact/test``). ir_datasets downloads the
data into its own cache (``$IR_DATASETS_HOME``) the first time; relkit then
streams it like any file. ir_datasets is imported only when one of these runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from relkit.corpora.types import Document, Topic
from relkit.metrics.core.errors import RelkitError


class IrdsMissing(RelkitError):
    """ir_datasets is not installed."""


def load(dataset_id: str | Path) -> Any:
    """The ir_datasets dataset ``dataset_id``; a clear error when it is missing."""
    try:
        import ir_datasets
    except ImportError:
        raise IrdsMissing("the ir_datasets formats need the optional extra: "
                          "pip install 'relkit[irds]'") from None
    try:
        return ir_datasets.load(str(dataset_id))
    except KeyError:
        raise RelkitError(f"ir_datasets has no dataset {str(dataset_id)!r} "
                          "(see https://ir-datasets.com)") from None


def _text(rec: Any, names: tuple[str, ...]) -> str:
    for n in names:
        value = getattr(rec, n, None)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def irds_docs(dataset_id: str | Path) -> Iterator[Document]:
    """Stream ``docs_iter()``: ``doc_id``, ``title`` (if any), text (``text``/``body``)."""
    ds = load(dataset_id)
    if not ds.has_docs():
        raise RelkitError(f"ir_datasets {str(dataset_id)!r} has no documents")
    for rec in ds.docs_iter():
        others = {k: str(v) for k, v in rec._asdict().items()
                  if k not in ("doc_id", "title", "text", "body") and isinstance(v, str | int)}
        yield Document(str(rec.doc_id), _text(rec, ("title",)) or None,
                       _text(rec, ("text", "body", "abstract")), others)


def irds_topics(dataset_id: str | Path) -> Iterator[Topic]:
    """``queries_iter()`` as topics: title from ``title``/``text``/``query``."""
    ds = load(dataset_id)
    if not ds.has_queries():
        raise RelkitError(f"ir_datasets {str(dataset_id)!r} has no queries")
    for rec in ds.queries_iter():
        yield Topic(str(rec.query_id).strip(),
                    *(_text(rec, names).strip() or None for names in (
                        ("title", "text", "query"), ("description",), ("narrative",))))


def irds_qrels(dataset_id: str | Path) -> Iterator[tuple[str, str, int]]:
    """``qrels_iter()`` as (query id, doc id, grade) triples."""
    ds = load(dataset_id)
    if not ds.has_qrels():
        raise RelkitError(f"ir_datasets {str(dataset_id)!r} has no qrels")
    for rec in ds.qrels_iter():
        yield str(rec.query_id), str(rec.doc_id), int(rec.relevance)
