"""A test collection: documents, topics, qrels, runs and a relevance scale, together.

A collection is described declaratively by a manifest beside its files,
``collection.toml`` (written by hand) or ``collection.json`` (written by
``relkit corpora fetch``), with the same keys::

    name = "cranfield"
    scale = "cranfield"                # a known scale, or a [scale] table
    [docs]
    path = "cran.all.1400"
    format = "smart-docs"              # optional: sniffed from the file
    [topics]
    path = "cran.qry"
    format = "smart-topics"
    [qrels]
    path = "cranqrel"
    format = "trec-qrels"
    grade_map = { "1" = 4, "2" = 3, "3" = 2, "4" = 1, "5" = 0, "-1" = 0 }
    runs = ["runs/*/*.txt"]           # globs, relative to the manifest

Paths are relative to the manifest's folder; ``columns = "id=docid,text=body"``
goes to the CSV/TSV loaders; an ``irds-*`` format takes an ir_datasets id as its
path. Nothing is read until asked for, and documents are only ever streamed or
looked up through the :class:`relkit.corpora.docstore.DocStore`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from relkit.corpora.types import Document, Grade, RelevanceScale, ScaleError, Topic, get_scale
from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import did_you_mean

if TYPE_CHECKING:
    from relkit.corpora.docstore import DocStore
    from relkit.metrics.data import Qrels, Run

MANIFESTS = ("collection.toml", "collection.json")


class ManifestError(RelkitError):
    """A collection manifest is missing, malformed, or names something unknown."""


@dataclass(frozen=True)
class Part:
    """One component of a collection: where it is, its format, loader options."""

    path: str
    format: str | None = None
    options: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    grade_map: Mapping[int, int] | None = None  # qrels only: file grade -> scale grade


@dataclass(frozen=True)
class Collection:
    """Documents, topics, qrels, runs and the scale their grades are on.

    Build one with :meth:`load` (a folder or manifest file), :meth:`from_manifest`
    (a dict, e.g. a known collection's layout applied to a folder) or
    :func:`open_collection` (a path or a known collection's name).
    """

    name: str
    root: Path
    scale: RelevanceScale
    docs: Part | None = None
    topics: Part | None = None
    qrels: Part | None = None
    runs: tuple[str, ...] = ()
    description: str = ""
    licence: str = ""

    # -- construction -------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Collection:
        """The collection described by ``path``: a manifest file, or a folder holding one."""
        p = Path(path)
        if p.is_dir():
            found = [p / m for m in MANIFESTS if (p / m).is_file()]
            if not found:
                raise ManifestError(f"{p}: no {' or '.join(MANIFESTS)} here (write one, see "
                                    "docs/collections.md, or pass --layout NAME)")
            p = found[0]
        if not p.is_file():
            raise ManifestError(f"{p}: no such file or folder")
        try:
            if p.suffix == ".json":
                data = json.loads(p.read_text(encoding="utf-8"))
            else:
                import tomllib

                data = tomllib.loads(p.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:  # tomllib/json errors are ValueErrors
            raise ManifestError(f"{p}: not a valid manifest ({exc})") from None
        if not data:
            raise ManifestError(f"{p}: an empty manifest (see docs/collections.md)")
        return cls.from_manifest(data, p.parent, where=str(p))

    @classmethod
    def from_manifest(cls, data: Mapping[str, Any], root: str | Path,
                      where: str = "<manifest>") -> Collection:
        """A collection from manifest ``data``, its paths relative to ``root``."""
        if not isinstance(data, Mapping):
            raise ManifestError(f"{where}: expected a table of keys; found {type(data).__name__}")
        # title, licence and counts describe the data; counts are checked by tests.
        known = {"name", "description", "scale", "docs", "topics", "qrels", "runs",
                 "title", "licence", "counts"}
        extra = sorted(set(data) - known)
        if extra:
            raise ManifestError(f"{where}: unknown key(s) {extra}; known: {sorted(known)}")
        root = Path(root)
        runs = data.get("runs", [])
        if isinstance(runs, str):
            runs = [runs]
        if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
            raise ManifestError(f"{where}: 'runs' must be a list of file globs")
        return cls(
            name=str(data.get("name") or root.resolve().name),
            root=root,
            scale=_scale(data.get("scale", "binary"), where),
            docs=_part(data, "docs", where),
            topics=_part(data, "topics", where),
            qrels=_part(data, "qrels", where),
            runs=tuple(runs),
            description=str(data.get("description", "") or data.get("title", "")),
            licence=str(data.get("licence", "")),
        )

    # -- components ---------------------------------------------------------------------
    def source(self, part: Part, kind: str) -> Path | str:
        """Where ``part`` is: a path under :attr:`root`, or an id for non-file formats."""
        if part.format and part.format.startswith("irds-"):
            return part.path
        return self.root / part.path

    def _need(self, part: Part | None, what: str) -> Part:
        if part is None:
            raise ManifestError(f"collection {self.name!r} has no {what}")
        return part

    def iter_docs(self) -> Iterator[Document]:
        """Stream every document (never all in memory)."""
        from relkit.corpora.loaders import read_docs

        d = self._need(self.docs, "docs")
        return read_docs(self.source(d, "docs"), d.format, dict(d.options))

    def docstore(self, progress: Callable[[int], None] | None = None) -> DocStore:
        """Random access by id (built once into the cache, then reused)."""
        from relkit.corpora.docstore import DocStore

        d = self._need(self.docs, "docs")
        return DocStore.open(self.source(d, "docs"), d.format, options=dict(d.options) or None,
                             progress=progress)

    def read_topics(self) -> list[Topic]:
        from relkit.corpora.loaders import read_topics

        t = self._need(self.topics, "topics")
        return read_topics(self.source(t, "topics"), t.format, dict(t.options))

    def read_qrels(self) -> Qrels:
        """The qrels with grades on :attr:`scale` (the manifest's grade map applied)."""
        from relkit.corpora.qrels import read_qrels

        q = self._need(self.qrels, "qrels")
        return read_qrels(self.source(q, "qrels"), q.format, q.grade_map)

    def qrels_warnings(self, qrels: Qrels | None = None) -> list[str]:
        """What is suspicious about the qrels (read again when not given), one line each.

        Grades of 0 or more that the collection's scale does not declare (a negative
        grade is "pooled, not judged" on every scale: :mod:`relkit.metrics.readers.grades`),
        and grades that look as if they ran the wrong way
        (:func:`relkit.metrics.commands.grade_checks.inverted_grades`). An empty list: nothing.
        ``relkit corpora info`` says them on stderr; evaluate only once it says nothing.
        """
        from relkit.metrics.commands.grade_checks import grade_counts, inverted_grades

        q = qrels if qrels is not None else self.read_qrels()
        out = []
        off = {g: n for g, n in grade_counts(q).items() if g >= 0 and g not in self.scale}
        if off:
            shown = ", ".join(f"{g} ({n:,} judgment{'s' * (n != 1)})" for g, n in off.items())
            out.append(f"{q.source}: grade{'s' * (len(off) > 1)} {shown} not on the "
                       f"{self.scale.name!r} scale collection {self.name!r} declares "
                       f"({', '.join(map(str, self.scale.values))}): measures read them as "
                       "they are; map them with the manifest's grade_map")
        inverted = inverted_grades(q)
        if inverted is not None:
            out.append(inverted)
        return out

    def run_paths(self, strict: bool = True) -> list[Path]:
        """The run files the globs match; with ``strict``, a glob matching none is an error."""
        out: list[Path] = []
        for pattern in self.runs:
            hits = sorted(p for p in self.root.glob(pattern) if p.is_file())
            if not hits and strict:
                raise ManifestError(f"collection {self.name!r}: no run file matches "
                                    f"{pattern!r} under {self.root}")
            out += [h for h in hits if h not in out]
        return out

    def read_runs(self) -> dict[str, Run]:
        """The runs, named by file stem (run tags repeat across files, so never by tag);
        ``parent/stem`` when two stems are the same."""
        from relkit.metrics.data import Run

        paths = self.run_paths()
        stems = [p.stem for p in paths]
        return {(p.stem if stems.count(p.stem) == 1 else f"{p.parent.name}/{p.stem}"):
                Run.read(p) for p in paths}


def _scale(spec: Any, where: str) -> RelevanceScale:
    if isinstance(spec, str):
        try:
            return get_scale(spec)
        except ScaleError as exc:
            raise ManifestError(f"{where}: {exc}") from None
    if not isinstance(spec, Mapping) or not isinstance(spec.get("grades"), list):
        raise ManifestError(f"{where}: 'scale' must be a scale name or a table with 'grades' "
                            "(a list of {value, label, definition})")
    try:
        grades = tuple(Grade(int(g["value"]), str(g.get("label", g["value"])),
                             str(g.get("definition", ""))) for g in spec["grades"])
        return RelevanceScale(str(spec.get("name", "custom")), grades,
                              int(spec.get("threshold", 1)))
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"{where}: bad [scale] table ({exc})") from None


def _part(data: Mapping[str, Any], key: str, where: str) -> Part | None:
    spec = data.get(key)
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = {"path": spec}
    if not isinstance(spec, Mapping) or not isinstance(spec.get("path"), str):
        raise ManifestError(f"{where}: [{key}] needs a 'path'")
    allowed = {"path", "format", "columns"} | ({"grade_map"} if key == "qrels" else set())
    extra = sorted(set(spec) - allowed)
    if extra:
        raise ManifestError(f"{where}: [{key}] has unknown key(s) {extra}; known: "
                            f"{sorted(allowed)}")
    grade_map = None
    if "grade_map" in spec:
        try:
            grade_map = MappingProxyType({int(k): int(v) for k, v in spec["grade_map"].items()})
        except (AttributeError, TypeError, ValueError):
            raise ManifestError(f"{where}: [qrels] grade_map must map integer grades to "
                                "integer grades, e.g. {{ \"1\" = 4 }}") from None
    options = {"columns": str(spec["columns"])} if "columns" in spec else {}
    fmt = spec.get("format")
    if fmt is not None:
        _check_format(key, str(fmt), where)
    return Part(spec["path"], fmt, MappingProxyType(options), grade_map)


def _check_format(key: str, fmt: str, where: str) -> None:
    from relkit.corpora.loaders import LoaderError, get_loader
    from relkit.corpora.qrels import get_qrels_format

    try:
        if key == "qrels":
            get_qrels_format(fmt)
        else:
            get_loader(fmt, key)
    except LoaderError as exc:
        raise ManifestError(f"{where}: [{key}] {exc}") from None


def open_collection(ref: str | Path, layout: str | None = None) -> Collection:
    """A collection from a folder/manifest path, or a known collection's name.

    ``layout`` applies a known collection's manifest to the folder ``ref`` (for
    copies that have no manifest, such as ``../shared/corpora/cranfield``). A known
    name resolves to its folder in the cache, which ``relkit corpora fetch`` fills.
    """
    from relkit.corpora import known

    if layout is not None:
        kc = known.get_known(layout)
        if not Path(ref).is_dir():
            raise ManifestError(f"{ref}: no such folder")
        return Collection.from_manifest(kc.manifest, ref, where=f"layout {layout!r}")
    p = Path(ref)
    if p.exists():
        return Collection.load(p)
    if str(ref) in known.KNOWN:
        folder = known.collection_dir(str(ref))
        if not any((folder / m).is_file() for m in MANIFESTS):
            raise ManifestError(f"collection {str(ref)!r} is not fetched yet: run "
                                f"`relkit corpora fetch {ref}` (it goes to {folder})")
        return Collection.load(folder)
    raise ManifestError(f"{ref}: no such file or folder, nor a known collection"
                        f"{did_you_mean(str(ref), known.KNOWN)} "
                        f"(known: {', '.join(known.KNOWN)})")
