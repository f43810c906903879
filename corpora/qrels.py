"""Qrels in the formats collections ship them in, and grade maps to higher-is-better.

Formats (found by name, like the document loaders)
-------
``trec-qrels``  ``qid iter docno grade`` or Cranfield's ``qid docno grade``: read by
                :meth:`relkit.metrics.data.Qrels.read` (the trec_eval-exact reader).
``beir-qrels``  BEIR's TSV: a header ``query-id<TAB>corpus-id<TAB>score``, then rows.
``smart-rel``   SMART relevance files (CACM ``qrels.text``, CISI ``CISI.REL``):
                ``qid docid ...``; every listed pair is relevant (grade 1). Their ids
                are zero-padded (``01``), so all-digit ids lose the zeros, as the
                SMART loaders' ids do (:mod:`relkit.metrics.core.smart`).
``irds-qrels``  an ``ir_datasets`` id (optional extra ``relkit[irds]``).

A *grade map* rewrites the file's grades, so every scale in relkit runs the same
way: a higher grade is more relevant. Cranfield needs one (see
:data:`relkit.corpora.known.CRANFIELD_GRADES`): its file's 1 is the *most* relevant.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from relkit.corpora.loaders import LoaderError
from relkit.corpora.textio import open_text
from relkit.metrics.core.errors import FormatError, found_instead
from relkit.metrics.core.registry import Registry
from relkit.metrics.core.smart import smart_id
from relkit.metrics.data import Qrels


def _table(rows: Iterable[tuple[str, str, int, int]], name: str) -> Qrels:
    q, d, g, lines = [], [], [], []
    for qid, did, grade, line in rows:
        q.append(qid)
        d.append(did)
        g.append(grade)
        lines.append(line)
    if not q:
        raise FormatError(name, None, "at least one judgment", "none")
    table = pa.table({"query_id": pa.array(q, pa.string()),
                      "iteration": pa.array(["0"] * len(q), pa.string()),
                      "doc_id": pa.array(d, pa.string()),
                      "relevance": pa.array(g, pa.int64())})
    return Qrels(table, name, np.asarray(lines, dtype=np.int64))


def beir_qrels(path: str | Path) -> Qrels:
    """BEIR ``qrels/*.tsv``: a ``query-id corpus-id score`` header (optional), then rows."""
    def rows() -> Iterable[tuple[str, str, int, int]]:
        with open_text(path) as fp:
            for n, line in enumerate(fp, 1):
                parts = line.split()
                if not parts:
                    continue
                if n == 1 and parts[0].lower() in ("query-id", "query_id", "qid"):
                    continue
                if len(parts) != 3:
                    raise FormatError(str(path), n, "3 tab-separated fields: query-id "
                                      "corpus-id score", f"{len(parts)} field(s): {line.strip()!r}")
                try:
                    grade = int(parts[2])
                except ValueError:
                    raise FormatError(str(path), n, "an integer score", repr(parts[2])) from None
                yield parts[0], parts[1], grade, n
    return _table(rows(), str(path))


def smart_rel(path: str | Path) -> Qrels:
    """SMART ``.REL``/``qrels.text``: ``qid docid`` first; every listed pair has grade 1."""
    def rows() -> Iterable[tuple[str, str, int, int]]:
        with open_text(path) as fp:
            for n, line in enumerate(fp, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 2:
                    raise FormatError(str(path), n, "'query-id doc-id ...'", repr(line.strip()))
                yield smart_id(parts[0]), smart_id(parts[1]), 1, n
    return _table(rows(), str(path))


def trec_qrels(path: str | Path) -> Qrels:
    return Qrels.read(path)


def irds_qrels(dataset_id: str | Path) -> Qrels:
    from relkit.corpora import irds

    return _table(((q, d, g, n) for n, (q, d, g) in enumerate(irds.irds_qrels(dataset_id), 1)),
                  f"ir_datasets:{dataset_id}")


@dataclass(frozen=True)
class QrelsFormat:
    """A named qrels reader."""

    name: str
    read: Callable[[str | Path], Qrels]
    description: str
    file_based: bool = True


QRELS_FORMATS: Registry[QrelsFormat] = Registry("qrels format", LoaderError)
QRELS_FORMATS.register(
    QrelsFormat("trec-qrels", trec_qrels, "qid iter docno grade (or qid docno grade)"),
    QrelsFormat("beir-qrels", beir_qrels, "BEIR TSV: query-id corpus-id score, with a header"),
    QrelsFormat("smart-rel", smart_rel, "SMART .REL: qid docid ...; every pair relevant"),
    QrelsFormat("irds-qrels", irds_qrels, "ir_datasets id (pip install 'relkit[irds]')",
                file_based=False),
)


def get_qrels_format(name: str) -> QrelsFormat:
    return QRELS_FORMATS.lookup(name)


def sniff_qrels(path: str | Path) -> QrelsFormat:
    """BEIR when the first line is its header, else TREC."""
    with open_text(path) as fp:
        first = next((line for line in fp if line.strip()), "")
    head = first.split()[0].lower() if first.split() else ""
    return QRELS_FORMATS["beir-qrels" if head in ("query-id", "query_id") else "trec-qrels"]


def map_grades(qrels: Qrels, grade_map: Mapping[int, int]) -> Qrels:
    """``qrels`` with every grade ``g`` replaced by ``grade_map[g]``.

    A grade the map does not name is an error naming the file and its first line:
    a silent pass-through would mix the two directions of a scale.
    """
    grades = qrels.table["relevance"].to_numpy()
    keys = np.fromiter(grade_map, dtype=np.int64, count=len(grade_map))
    vals = np.fromiter(grade_map.values(), dtype=np.int64, count=len(grade_map))
    unknown = ~np.isin(grades, keys)
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise FormatError(qrels.source, qrels.line_of(row),
                          f"a grade the collection's grade map names {sorted(grade_map)}",
                          f"grade {int(grades[row])}")
    order = np.argsort(keys)
    mapped = vals[order][np.searchsorted(keys[order], grades)]
    table = qrels.table.set_column(qrels.table.schema.get_field_index("relevance"),
                                   "relevance", pa.array(mapped, pa.int64()))
    return Qrels(table, qrels.source, qrels.lines)


def read_qrels(path: str | Path, fmt: str | None = None,
               grade_map: Mapping[int, int] | None = None) -> Qrels:
    """Qrels from ``path`` in ``fmt`` (sniffed when None), grades mapped when asked."""
    reader = get_qrels_format(fmt) if fmt else sniff_qrels(path)
    if reader.file_based and not Path(path).is_file():
        raise FormatError(str(path), None, "a qrels file", found_instead(path))
    qrels = reader.read(path)
    return map_grades(qrels, grade_map) if grade_map else qrels
