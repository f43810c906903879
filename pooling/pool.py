"""The judgment pool: per topic, the documents to judge, where they came from.

A :class:`Pool` is an immutable value. Each :class:`PoolEntry` keeps its
provenance (which runs retrieved the document, at which rank) for analysis
only: the judging store keeps it away from assessors. Ids are strings.

File format (``pool.tsv``): a header line, then one entry per line, sorted by
topic (numeric ids numerically) and document id::

    topic<TAB>doc<TAB>priority<TAB>provenance
    1       d17     1.0     bm25:1,dense:3

``provenance`` is ``run:rank`` pairs joined by commas (run names are the run
files' stems, never the run tags, which often repeat); ``priority`` is a
float printed with ``repr`` so it reads back bit for bit. Writing the same
pool twice gives byte-identical files.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from relkit.metrics.core.errors import FormatError

HEADER = "topic\tdoc\tpriority\tprovenance"


@dataclass(frozen=True, order=True)
class PoolEntry:
    topic: str
    doc: str
    priority: float = 0.0
    provenance: tuple[tuple[str, int], ...] = ()

    @property
    def runs(self) -> tuple[str, ...]:
        return tuple(r for r, _ in self.provenance)

    @property
    def best_rank(self) -> int | None:
        return min((k for _, k in self.provenance), default=None)


_DIGITS = re.compile(r"(\d+)")


def natural(topic: str) -> tuple[int, int, tuple[str | int, ...], str]:
    """Numeric ids in numeric order, then the others in natural order (``q2`` < ``q10``).

    The id itself stays a string; it is the last key, so ``7`` and ``007`` still differ.
    """
    if topic.isdigit():
        return (0, int(topic), (), topic)
    # re.split with a group alternates text, number, text...: types match position by position.
    chunks = tuple(int(c) if i % 2 else c for i, c in enumerate(_DIGITS.split(topic)))
    return (1, 0, chunks, topic)


@dataclass(frozen=True)
class Pool:
    """Entries keyed by (topic, doc); iteration is in file order."""

    entries: tuple[PoolEntry, ...]

    def __post_init__(self) -> None:
        seen: set[tuple[str, str]] = set()
        for e in self.entries:
            if (e.topic, e.doc) in seen:
                raise ValueError(f"topic {e.topic!r} document {e.doc!r} is in the pool twice")
            seen.add((e.topic, e.doc))
        object.__setattr__(self, "entries", tuple(sorted(
            self.entries, key=lambda e: (natural(e.topic), e.doc))))

    @classmethod
    def from_columns(cls, columns: Any) -> Pool:
        """A pool kept as sorted arrays (:class:`relkit.pooling.columns.Columns`): its
        entries are built on first use; :meth:`write`, ``len`` and :meth:`sizes` do not
        need them."""
        pool = object.__new__(cls)
        object.__setattr__(pool, "_columns", columns)
        return pool

    def __getattr__(self, name: str) -> Any:
        # Only reached while a column pool's entries are not built yet.
        cols = self.__dict__.get("_columns")
        if name != "entries" or cols is None:
            raise AttributeError(name)
        entries = cols.entries()
        object.__setattr__(self, "entries", entries)
        return entries

    def _lazy(self) -> Any:
        return None if "entries" in self.__dict__ else self.__dict__.get("_columns")

    @classmethod
    def presorted(cls, entries: tuple[PoolEntry, ...]) -> Pool:
        """A pool from entries already unique and in file order (topic, then doc).

        For builders that produce that order themselves (:func:`relkit.pooling.depth.depth_pool`):
        checking and sorting 400k entries again would double the pool's build time.
        """
        pool = object.__new__(cls)
        object.__setattr__(pool, "entries", entries)
        return pool

    def __iter__(self) -> Iterator[PoolEntry]:
        return iter(self.entries)

    def __repr__(self) -> str:
        # the dataclass's repr printed every entry (a line of text per pooled document)
        return f"<Pool: {len(self):,} documents over {len(self.sizes())} topics>"

    def __len__(self) -> int:
        cols = self._lazy()
        return len(cols) if cols is not None else len(self.entries)

    def topics(self) -> list[str]:
        return sorted({e.topic for e in self.entries}, key=natural)

    def for_topic(self, topic: str) -> list[PoolEntry]:
        return [e for e in self.entries if e.topic == topic]

    def pairs(self) -> set[tuple[str, str]]:
        return {(e.topic, e.doc) for e in self.entries}

    def sizes(self) -> dict[str, int]:
        cols = self._lazy()
        if cols is not None:
            return dict(cols.sizes())
        out: dict[str, int] = {}
        for e in self.entries:
            out[e.topic] = out.get(e.topic, 0) + 1
        return out

    def union(self, other: Pool) -> Pool:
        """Both pools' pairs; a pair in both keeps the higher priority and all provenance."""
        merged = {(e.topic, e.doc): e for e in self.entries}
        for e in other.entries:
            old = merged.get((e.topic, e.doc))
            if old is None:
                merged[(e.topic, e.doc)] = e
            else:
                prov = tuple(sorted(set(old.provenance) | set(e.provenance)))
                merged[(e.topic, e.doc)] = PoolEntry(e.topic, e.doc,
                                                     max(old.priority, e.priority), prov)
        return Pool(tuple(merged.values()))

    def minus(self, judged: Iterable[tuple[str, str]]) -> Pool:
        """The pairs not yet judged (for a second round)."""
        done = set(judged)
        return Pool(tuple(e for e in self.entries if (e.topic, e.doc) not in done))

    # -- file --------------------------------------------------------------------------
    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        cols = self._lazy()
        if cols is not None:
            body = HEADER.encode() + b"\n" + cols.lines()
            if hasattr(target, "write"):
                target.write(body.decode("utf-8"))
            else:
                Path(target).write_bytes(body)
            return
        lines = [HEADER] + [
            f"{e.topic}\t{e.doc}\t{e.priority!r}\t"
            + ",".join(f"{r}:{k}" for r, k in e.provenance) for e in self.entries]
        text = "\n".join(lines) + "\n"
        if hasattr(target, "write"):
            target.write(text)
        else:
            Path(target).write_text(text, encoding="utf-8")

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> tuple[Pool, list[int]]:
        """A pool file and each entry's line number (for error messages downstream)."""
        from relkit.metrics.readers.io import BOM, read_bytes

        entries: list[PoolEntry] = []
        lines: list[int] = []
        where: dict[tuple[str, str], int] = {}
        name = str(path)
        width = 0   # fields per line the header names (0: no header)
        data = read_bytes(path)    # .gz too; a missing file or a broken gzip: named
        if data.startswith(BOM):
            data = data[len(BOM):]
        for n, blob in enumerate(data.splitlines(), 1):
            try:
                raw = blob.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise FormatError(name, n, "UTF-8 text", f"undecodable byte "
                                  f"{exc.object[exc.start]:#04x}") from None
            if n == 1 and raw.startswith("topic\t"):
                # relkit's own header: every line then has its fields (an empty
                # provenance is an empty field), so a line short of one is damage.
                width = len(raw.split("\t"))
                continue
            if not raw.strip() or raw.startswith("#"):
                continue
            parts = raw.split("\t")
            if len(parts) == 1:
                parts = raw.split()
            if not 2 <= len(parts) <= 4 or not parts[0] or not parts[1] \
                    or width and len(parts) != width:
                raise FormatError(str(path), n, "'topic<TAB>doc[<TAB>priority"
                                  "<TAB>provenance]'" + (f" ({width} fields, as the header)"
                                                         if width else ""),
                                  f"{len(parts)} field(s): {raw[:60]!r}")
            try:
                prio = float(parts[2]) if len(parts) > 2 and parts[2] else 0.0
                if not math.isfinite(prio):
                    raise ValueError
            except ValueError:
                raise FormatError(str(path), n, "a number for the priority (not nan or inf)",
                                  repr(parts[2])) from None
            prov = []
            if len(parts) > 3 and parts[3]:
                for item in parts[3].split(","):
                    run, _, rank = item.rpartition(":")
                    if not run or not rank.isdigit() or int(rank) < 1:
                        raise FormatError(str(path), n, "provenance 'run:rank,...' "
                                          "with ranks from 1",
                                          repr(item))
                    prov.append((run, int(rank)))
            key = (parts[0], parts[1])
            if key in where:
                raise FormatError(str(path), n, "each topic/document pair once",
                                  f"{key[0]} {key[1]} again (first at line {where[key]})")
            where[key] = n
            entries.append(PoolEntry(parts[0], parts[1], prio, tuple(prov)))
            lines.append(n)
        if not entries:     # nothing to judge, sample or count: a wrong file, not a pool
            raise FormatError(name, None, "at least one 'topic<TAB>doc' line",
                              "no pooled pair (an empty pool file)")
        pool = cls(tuple(entries))
        order = {(e.topic, e.doc): i for i, e in enumerate(entries)}
        return pool, [lines[order[(e.topic, e.doc)]] for e in pool.entries]
