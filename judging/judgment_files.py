"""Reading judgments from files: qrels files per assessor, or one long table.

Two file kinds, as ``relkit import judgments`` and ``relkit agree`` read them:

- a qrels file (``topic iteration doc grade``) per assessor, the file's stem
  naming the assessor (``alice.qrels`` is alice's);
- a long table (CSV or TSV, with a header) with the columns ``assessor,
  topic, doc, grade`` (aliases in :data:`ALIASES`, e.g. ``doc_id``/``docno``,
  ``query_id``/``qid``, and the TREC 2010 crowd header ``topicID workerID docID
  gold label``). An optional ``gold`` column gives the pair's expert grade: it
  is read once per (topic, doc) as judgments of the assessor :data:`GOLD`; a
  negative gold value means "no gold label" and is skipped (and counted).

No database here: the agreement statistics read files through this module, and
:mod:`relkit.judging.store.imports` writes what it reads into a store.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from relkit.metrics.core.errors import FormatError, InputError, check_utf8, open_error


@dataclass(frozen=True)
class JudgmentLine:
    assessor: str
    topic: str
    doc: str
    grade: int
    source: str
    line: int
    gold: bool = False


class JudgmentLines(list[JudgmentLine]):
    """Judgment lines, and ``notes`` on what the reader skipped (for the CLI to print)."""

    def __init__(self, lines: Iterable[JudgmentLine] = (), notes: Iterable[str] = ()) -> None:
        super().__init__(lines)
        self.notes = list(notes)


ALIASES = {"assessor": ("assessor", "worker", "workerid", "worker_id", "judge", "annotator"),
           "topic": ("topic", "query_id", "qid", "topic_id", "topicid", "query"),
           "doc": ("doc", "doc_id", "docno", "docid", "document"),
           "grade": ("grade", "relevance", "label", "rel")}
GOLD_COLUMN = "gold"
GOLD = "gold"          # the assessor name given to a long table's gold column


def read_qrels_file(path: str | Path, assessor: str | None = None) -> list[JudgmentLine]:
    """One assessor's qrels (4 columns, or 3 without the iteration)."""
    p = Path(path)
    who = assessor or p.stem
    src = str(p)
    out = []
    with _open(p) as fp:
        for n, line in enumerate(fp, 1):
            check_utf8(src, n, line)
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) not in (3, 4):
                raise FormatError(src, n, "'topic iteration doc grade'", f"{len(parts)} fields")
            topic, doc, grade = parts[0], parts[-2], parts[-1]
            g = _int(p, n, grade)
            out.append(JudgmentLine(who, topic, doc, g, src, n))
    return out


def read_long_table(path: str | Path) -> JudgmentLines:
    """A CSV/TSV with a header naming assessor, topic, doc and grade (and maybe gold) columns."""
    p = Path(path)
    with _open(p, newline="") as fp:
        head = fp.readline()
        delim = "\t" if "\t" in head else ","
        fp.seek(0)
        reader = _rows(p, csv.reader(fp, delimiter=delim))
        header = [h.strip().lower() for h in next(reader, [])]
        cols = {}
        for name, alias in ALIASES.items():
            found = [i for i, h in enumerate(header) if h in alias]
            if not found:
                raise FormatError(str(p), 1, f"a header with a {name!r} column "
                                  f"(one of {list(alias)})", repr(",".join(header)))
            cols[name] = found[0]
        gcol = header.index(GOLD_COLUMN) if GOLD_COLUMN in header else None
        out = JudgmentLines()
        gold: dict[tuple[str, str], JudgmentLine] = {}
        no_gold: dict[int, set[tuple[str, str]]] = {}
        for row in reader:
            n = reader.line_num  # type: ignore[attr-defined]
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise FormatError(str(p), n, f"{len(header)} fields", f"{len(row)}")
            vals = {k: row[i].strip() for k, i in cols.items()}
            for k in ("assessor", "topic", "doc"):
                if not vals[k]:
                    raise FormatError(str(p), n, f"a non-empty {k}", "an empty field")
            g = _int(p, n, vals["grade"])
            if gcol is not None:
                if vals["assessor"] == GOLD:
                    raise FormatError(str(p), n, f"no assessor named {GOLD!r} (the gold "
                                      "column's name)", repr(GOLD))
                pair = (vals["topic"], vals["doc"])
                gv = _int(p, n, row[gcol].strip(), "an integer gold grade")
                if gv < 0:
                    no_gold.setdefault(gv, set()).add(pair)
                elif pair not in gold:
                    gold[pair] = JudgmentLine(GOLD, pair[0], pair[1], gv, str(p), n, True)
                elif gold[pair].grade != gv:
                    raise FormatError(str(p), n, f"gold grade {gold[pair].grade} for topic "
                                      f"{pair[0]!r} document {pair[1]!r} (as on line "
                                      f"{gold[pair].line})", str(gv))
            out.append(JudgmentLine(vals["assessor"], vals["topic"], vals["doc"], g, str(p), n))
    out.extend(gold.values())
    if gcol is not None:
        skipped = ", ".join(f"{len(v):,} with gold {k}" for k, v in sorted(no_gold.items()))
        out.notes.append(f"{p}: gold column read as assessor {GOLD!r}: {len(gold):,} pairs"
                         + (f"; no gold label for {sum(map(len, no_gold.values())):,} pairs "
                            f"({skipped}): their labels are kept, only not compared with gold"
                            if skipped else ""))
    return out


def _open(p: Path, newline: str | None = None) -> IO[str]:
    """``p`` for reading: undecodable bytes kept (surrogates) for :func:`check_utf8`."""
    try:
        return open(p, encoding="utf-8", errors="surrogateescape", newline=newline)
    except OSError as exc:
        raise open_error(p, exc) from None


class _rows:  # noqa: N801 - a csv.reader, checked
    """A csv reader whose rows are checked for UTF-8 and whose errors name the line."""

    def __init__(self, p: Path, reader: Any) -> None:
        self.p, self.reader = p, reader

    @property
    def line_num(self) -> int:
        return int(self.reader.line_num)

    def __iter__(self) -> _rows:
        return self

    def __next__(self) -> list[str]:
        try:
            row: list[str] = next(self.reader)
        except csv.Error as exc:
            raise FormatError(str(self.p), self.reader.line_num + 1, "CSV/TSV text",
                              str(exc)) from None
        for cell in row:
            check_utf8(str(self.p), self.reader.line_num, cell)
        return row


# Grades are small integers; a bound keeps a typo (99999999999999999999) from reaching
# numpy's int64 or a table with one column per grade.
GRADE_BOUND = 1000


def _int(p: Path, n: int, text: str, what: str = "an integer grade") -> int:
    try:
        value = int(text)
    except ValueError:
        raise FormatError(str(p), n, what, repr(text)) from None
    if abs(value) > GRADE_BOUND:
        raise FormatError(str(p), n, f"{what} between -{GRADE_BOUND} and {GRADE_BOUND}",
                          repr(text))
    return value


def read_judgment_files(paths: Sequence[str | Path]) -> JudgmentLines:
    """Read each file as a long table if its first line is a header, else as qrels."""
    out = JudgmentLines()
    for path in paths:
        with _open(Path(path)) as fp:
            first = fp.readline().strip().lower()
        words = set(first.replace(",", " ").replace("\t", " ").split())
        if words & set(ALIASES["assessor"]):
            lines = read_long_table(path)
            out.notes.extend(lines.notes)
        else:
            lines = JudgmentLines(read_qrels_file(path))
        if not lines:  # an empty file is named here, not as a missing assessor later
            raise InputError(f"{path}: no judgments in it (only blank or comment lines)")
        out.extend(lines)
    return out
