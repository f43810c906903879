"""``relkit import judgments``'s work: read judgment files, then import them all or
nothing.

:func:`import_files` checks the options and that every file exists, reads every file
(a file with no judgment, or with several assessors under ``--assessor``, stops it
before the database is opened), and imports the judgments in one transaction
(:func:`relkit.judging.store.imports.import_judgments`). The command prints; this
module never does (the readers' notes go to ``say``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.judging.judgment_files import JudgmentLines
    from relkit.judging.store.assign import Store
    from relkit.judging.store.imports import ImportSummary


@dataclass(frozen=True, kw_only=True)
class ImportRequest:
    """What ``relkit import judgments`` was asked (its options, by their names)."""

    files: list[Path]
    add_missing: bool = False
    quiet: bool = False
    assessor: str | None = None
    kind: str = "human"


def check(r: ImportRequest) -> None:
    """Raise :class:`OptionError` for a ``--kind`` or ``--assessor`` it cannot take, or
    a file that does not exist (named as given)."""
    from relkit.judging.store.tables import KINDS

    if r.kind not in KINDS:
        raise OptionError("--kind", f"expected one of {', '.join(KINDS)}; got {r.kind!r}")
    if r.assessor is not None and not r.assessor.strip():
        raise OptionError("--assessor", "an assessor's name cannot be empty")
    for f in r.files:
        if not f.is_file():
            raise OptionError("FILES", f"{f}: {not_a_file(f)}")


def _bar(quiet: bool, label: str, total: int, unit: str) -> Any:
    from relkit.metrics.core.progress import Bar

    return nullcontext() if quiet else Bar(label, total, unit=unit)


def read_files(r: ImportRequest) -> JudgmentLines:
    """Every judgment of ``r.files`` (as ``r.assessor``'s when given), with the readers'
    notes (what they skipped or renamed).

    Raises
    ------
    StoreError
        A file with no judgment in it.
    OptionError
        ``--assessor`` with a file of several assessors.
    """
    import dataclasses

    from relkit.judging.judgment_files import JudgmentLines, read_judgment_files
    from relkit.judging.store.models import StoreError

    lines, notes = JudgmentLines(), []
    with _bar(r.quiet, "reading judgment files", len(r.files), "files") as reading:
        for n, f in enumerate(r.files, 1):
            got = read_judgment_files([f])
            if not got:
                raise StoreError(f"{f}: no judgments in it (only blank or comment lines); "
                                 "nothing was imported")
            if r.assessor is not None:
                named = sorted({x.assessor for x in got})
                if len(named) > 1:
                    raise OptionError("--assessor", f"{f} names {len(named)} assessors ("
                                      f"{', '.join(named[:3])}...); --assessor is for "
                                      "files of one assessor")
                got = JudgmentLines([dataclasses.replace(x, assessor=r.assessor)
                                     for x in got], got.notes)
            lines.extend(got)
            notes.extend(got.notes)
            if reading is not None:
                reading(n)
    return JudgmentLines(lines, notes)


def import_files(r: ImportRequest, open_store: Callable[[], Store],
                 say: Callable[[str], None]) -> ImportSummary:
    """Read ``r.files`` and import them into the store ``open_store`` opens, all or
    nothing; unless ``r.quiet``, ``say`` is told the readers' notes first."""
    from relkit.judging.store.imports import import_judgments

    check(r)
    lines = read_files(r)
    if not r.quiet:  # what the readers skipped or renamed (a long table's gold column)
        for note in lines.notes:
            say(f"relkit: {note}")
    store = open_store()
    with _bar(r.quiet, "importing judgments", len(lines), "judgments") as importing:
        return import_judgments(store, lines, add_missing=r.add_missing, kind=r.kind,
                                progress=importing)


def summary_line(done: ImportSummary) -> str:
    """What ``relkit import judgments`` says once the judgments are in."""
    return (f"relkit: imported {done.judgments:,} judgments ({done.new:,} new, "
            f"{done.revised:,} revised); {done.items_done:,} assigned items marked done"
            + (f"; {done.unassigned:,} match no assignment item (kept for agreement and "
               "export)" if done.unassigned else ""))
