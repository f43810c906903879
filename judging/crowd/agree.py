"""``relkit agree --workers``: the per-worker report, from label files or the database."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.judging.crowd.table import CrowdError, LabelTable

if TYPE_CHECKING:
    import pandas as pd


def workers_text(files: Sequence[Path] | None, stored: tuple[pd.DataFrame, str | None] | None,
                 gold: str | None, method: str, fmt: str, seed: int = 0
                 ) -> tuple[str, list[str]]:
    """The report's text and the notes to print (what was read, what gold is).

    The labels are ``files``, else ``stored``: the database's long frame and the
    name of its gold assessor (:func:`relkit.judging.agreement.store.from_store`,
    read by the caller so this package never imports the agreement package).
    ``gold``: a qrels file of gold grades, or the name of the worker whose
    labels are gold; by default a label file's gold column or the database's
    gold pairs.
    """
    from relkit.judging.crowd.files import read_gold_qrels, read_labels
    from relkit.judging.crowd.methods import METHODS, aggregate
    from relkit.judging.crowd.workers import FORMATS, render, worker_report

    if fmt not in FORMATS:
        raise CrowdError(f"--format {fmt}: --workers writes {', '.join(FORMATS)}")
    METHODS.lookup(method)   # an unknown name fails before any work
    notes: list[str] = []
    gold_grades: dict[tuple[str, str], int] = {}
    if files:
        read = read_labels(files)
        table, gold_grades, notes = read.table, read.gold, list(read.notes)
    else:
        if stored is None:
            raise CrowdError("no labels: give label files or a database")
        frame, found = stored
        if found is not None:
            g = frame[frame["assessor"] == found]
            gold_grades = {(str(t), str(d)): int(x) for t, d, x in
                           zip(g["topic"], g["doc"], g["grade"], strict=True)}
            frame = frame[frame["assessor"] != found]
            notes.append(f"the database's gold pairs are gold ({len(gold_grades):,})")
        if frame.empty:
            raise CrowdError("the database has no judgments to aggregate")
        table = LabelTable.from_frame(frame)
    if gold is not None:
        if Path(gold).is_file():
            gold_grades = read_gold_qrels(gold)
            notes.append(f"gold: {gold} ({len(gold_grades):,} pairs)")
        else:
            names = set(map(str, table.workers))
            if gold not in names:
                raise CrowdError(f"--gold {gold}: neither a file nor a worker's name")
            keep = table.workers[table.worker] != gold
            g_rows = ~keep
            gold_grades = {(str(table.topics[i]), str(table.docs[i])): int(table.classes[c])
                           for i, c in zip(table.item[g_rows], table.label[g_rows],
                                           strict=True)}
            table = LabelTable.from_columns(table.topics[table.item[keep]],
                                            table.docs[table.item[keep]],
                                            table.workers[table.worker[keep]],
                                            table.classes[table.label[keep]])
            notes.append(f"gold: worker {gold!r}'s labels ({len(gold_grades):,} pairs)")
    model = aggregate(table, method, seed=seed)
    ds = model if model.confusion is not None else aggregate(table, "dawid-skene")
    notes.append(f"{len(table):,} labels by {table.n_workers:,} workers on "
                 f"{table.n_items:,} items")
    return render(worker_report(model, ds, gold_grades), fmt), notes
