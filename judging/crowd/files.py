"""Label files: what ``relkit export qrels --labels`` and ``relkit agree --workers`` read.

A label file is any judgment file ``relkit import judgments`` reads
(:mod:`relkit.judging.judgment_files`): a long CSV/TSV with a header naming
worker (``assessor``, ``worker``, ``workerID``...), topic, doc and label
(``grade``, ``label``...) columns, or one qrels file per worker (the stem
names the worker). The TREC 2010 Relevance Feedback crowd file
(``topicID workerID docID gold label``) is such a table as it ships: its
``gold`` column (NIST's grade; negative = none) is kept apart as gold, never
counted as a worker's label. Every label value is a class, negative ones too
(the crowd file's -2 = broken link is a worker's answer like any other).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from relkit.judging.crowd.table import CrowdError, LabelTable
from relkit.judging.judgment_files import GOLD, read_judgment_files


@dataclass(frozen=True)
class LabelFiles:
    """The labels read, the gold grades found (``{(topic, doc): grade}``) and the reader's notes."""

    table: LabelTable
    gold: dict[tuple[str, str], int]
    notes: list[str]


def read_labels(paths: Sequence[str | Path]) -> LabelFiles:
    """Read label files into a :class:`LabelTable` (gold columns apart)."""
    for p in paths:
        if Path(p).is_dir():
            raise CrowdError(f"{p}: a directory, not a label file")
        if not Path(p).is_file():
            raise CrowdError(f"{p}: no such file")
    lines = read_judgment_files(paths)
    gold = {(x.topic, x.doc): x.grade for x in lines if x.gold}
    labels = [x for x in lines if not x.gold]
    if not labels:
        raise CrowdError(f"{', '.join(map(str, paths))}: no labels to aggregate")
    table = LabelTable.from_columns([x.topic for x in labels], [x.doc for x in labels],
                                    [x.assessor for x in labels], [x.grade for x in labels])
    # the reader names the gold column an assessor (as agree reads it); here it is apart
    notes = [n.replace(f"gold column read as assessor {GOLD!r}",
                       "gold column kept apart (not a worker's label)") for n in lines.notes]
    return LabelFiles(table, gold, notes)


def read_gold_qrels(path: str | Path) -> dict[tuple[str, str], int]:
    """Gold grades from a qrels file; negative grades (no gold label) are left out."""
    from relkit.judging.judgment_files import read_qrels_file

    if Path(path).is_dir():
        raise CrowdError(f"{path}: a directory, not a qrels file")
    if not Path(path).is_file():
        raise CrowdError(f"{path}: no such file")
    return {(x.topic, x.doc): x.grade for x in read_qrels_file(path) if x.grade >= 0}
