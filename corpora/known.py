"""Known public test collections: where to get them, what to expect, how they are laid out.

Each entry names the files of a collection with their upstream address, size and
SHA-256, and the manifest (:mod:`relkit.corpora.collection`) that reads them. Checksums
are honest or absent:

* a SHA-256 is given only where it was computed here from a copy whose provenance
  note (``../shared/corpora/*/README.md``) says it is the unmodified file at that
  exact address (a GitHub raw URL pinned to a commit);
* an MD5 is given where ``ir_datasets`` publishes one (its ``etc/downloads.json``,
  commit 02a8f21c0f51d330124c30f1257d3fcb5866f3eb);
* otherwise both are ``None`` and :attr:`RemoteFile.note` says why, and
  ``relkit corpora fetch`` refuses to use the file unless told ``--unverified``.

One collection is shipped inside the package (``sample``, package data): it has no
sources and its folder is the package's own, in a checkout and in an installed wheel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relkit.corpora.docstore import cache_dir
from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry


class UnknownCollection(RelkitError):
    """No known collection has this name."""


@dataclass(frozen=True)
class RemoteFile:
    """One file to download: where it goes in the collection folder, and its checks.

    ``path`` is also where it sits below a mirror given with ``--url-base``.
    ``extract`` marks a ``.tar.gz`` whose members are unpacked into the folder.
    """

    path: str
    url: str
    size: int | None
    sha256: str | None
    md5: str | None = None
    note: str = ""
    extract: bool = False

    @property
    def verifiable(self) -> bool:
        return self.sha256 is not None or self.md5 is not None


@dataclass(frozen=True)
class KnownCollection:
    """A public collection: its sources (first is the default), layout and expectations.

    ``shipped`` is the folder of a collection that comes with relkit (no sources, no
    download); a fetched one lives in the cache (:func:`collection_dir`).
    """

    name: str
    title: str
    description: str
    sources: Mapping[str, tuple[RemoteFile, ...]]
    manifest: Mapping[str, Any]
    counts: Mapping[str, int]           # docs, topics, qrels as published/checked
    licence: str
    shipped: Path | None = None

    @property
    def default_source(self) -> str:
        """The first source's name (``"shipped"`` for a collection that has none)."""
        return next(iter(self.sources), "shipped")


# Package data (pyproject.toml's package-data): beside this module in a checkout and in
# an installed wheel alike.
SAMPLE_DIR = Path(__file__).resolve().parent / "sample"


# Cleverdon's codes (cranqrel.readme: 1 = complete answer ... 5 = no interest) turned
# round to higher-is-better; -1 (one per query, meaning not relevant) becomes 0.
# The scale these grades are on is relkit.corpora.types.CRANFIELD.
CRANFIELD_GRADES = {1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}

_COSMO = ("https://raw.githubusercontent.com/cosmopolitan033/CS7IS3-proj1/"
          "9d31bebc0e778998e1447a70bebdc2b585a1bced/data/")
_NORA = ("https://raw.githubusercontent.com/noramtboraas/information-retrieval/"
         "4ea1b8e02da1db64b68b0364d50620b3c95528dc/")
_TERRIER = ("https://raw.githubusercontent.com/terrier-org/terrier-core/"
            "3ceec7d89cb943a56e4bf298b00897d4221d0002/share/vaswani_npl/")
_GLASGOW = "http://ir.dcs.gla.ac.uk/resources/test_collections/"
_SHARED = ("SHA-256 of the copy in ../shared/corpora, which its README says is this file "
           "byte for byte")
_IRDS_MD5 = "MD5 from ir_datasets' etc/downloads.json; no SHA-256 published"
_NONE = ("no checksum: no copy here to compute one from, and none published that we "
         "found; fetch needs --unverified")

KNOWN: Registry[KnownCollection] = Registry("collection", UnknownCollection)
KNOWN.register(
    KnownCollection(
        # The same layout as sample/collection.toml (a test keeps them equal); that file is
        # what `relkit corpora info sample` reads.
        "sample", "Home energy (shipped with relkit)",
        "A small hand-written test collection on household energy, shipped with relkit: "
        "graded judgments and four runs (the quick start's collection).",
        {},
        {"name": "sample", "scale": "trec-dl",
         "runs": ["runs/bm25.txt", "runs/ql.txt", "runs/random.txt", "runs/tfidf.txt"],
         "docs": {"path": "docs.jsonl", "format": "jsonl-docs"},
         "topics": {"path": "topics.trec", "format": "trec-topics"},
         "qrels": {"path": "qrels.txt", "format": "trec-qrels"}},
        {"docs": 265, "topics": 6, "qrels": 471},
        "CC-BY-4.0",
        shipped=SAMPLE_DIR,
    ),
    KnownCollection(
        "cranfield", "Cranfield 1400",
        "Aeronautics abstracts with Cleverdon's graded judgments (Cranfield II, 1960s).",
        {
            "github": (
                RemoteFile("cran.all.1400", _COSMO + "cran.all.1400", 1_644_706,
                           "b234544b6ceccd131520df4a3cb6d42aee6576eb577933d047e722bbfe7b0b09",
                           note=_SHARED),
                RemoteFile("cran.qry", _COSMO + "cran.qry", 28_039,
                           "dd9b1419f678874daf66d5239ca372193722d74f5ea749f3b0f46a6b37cd9274",
                           note=_SHARED),
                RemoteFile("cranqrel", _COSMO + "cranqrel", 19_541,
                           "92e54b58dac0b980152178f350d892fae66c8a239b8a11715b835fb8d2f6bc0e",
                           note=_SHARED),
                RemoteFile("cranqrel.readme", _NORA + "cranqrel.readme", 1_487,
                           "5d5b5e72a4799df3e4ea98476ed803b2caac01d90c859a91771ac794971a1ad3",
                           note=_SHARED),
            ),
            "glasgow": (
                RemoteFile("cran.tar.gz", _GLASGOW + "cran/cran.tar.gz", 506_960, None,
                           "1730f7be572d95a5a4b56c59a7b900a5", _IRDS_MD5, extract=True),
            ),
        },
        {"name": "cranfield", "scale": "cranfield",
         "description": "Cranfield 1400; qrels grades turned round to higher-is-better",
         "docs": {"path": "cran.all.1400", "format": "smart-docs"},
         "topics": {"path": "cran.qry", "format": "smart-topics"},
         "qrels": {"path": "cranqrel", "format": "trec-qrels",
                   "grade_map": {str(k): v for k, v in CRANFIELD_GRADES.items()}},
         "runs": ["runs/*/*.txt"]},
        {"docs": 1400, "topics": 225, "qrels": 1837},
        "No licence stated anywhere (redistributed widely for research and teaching).",
    ),
    KnownCollection(
        "vaswani", "Vaswani / NPL",
        "Short 1960s-70s physics and electronics abstracts (NPL), TREC-formatted by Terrier; "
        "binary judgments.",
        {
            "github": (
                RemoteFile("corpus/doc-text.trec", _TERRIER + "corpus/doc-text.trec",
                           3_494_318,
                           "117ae7491647cb9725621bad52969a78307de19b1757852a0a2383659a856d36",
                           note=_SHARED),
                RemoteFile("query-text.trec", _TERRIER + "query-text.trec", 10_991,
                           "fef998db14818f74a22b2fb2be06425d5fb0dbd83ed9841fa0440e0a5477da7b",
                           note=_SHARED),
                RemoteFile("qrels", _TERRIER + "qrels", 24_863,
                           "1b3ed6a43752c7a7becb0dbd1614d662791bb7825b60182fd36be24d480ea447",
                           note=_SHARED),
            ),
        },
        {"name": "vaswani", "scale": "binary",
         "description": "Vaswani/NPL as Terrier ships it (TREC SGML); the original Glasgow "
                        "archive npl.tar.gz (MD5 23e5607081191b153738e81fbd834680 per "
                        "ir_datasets) has another layout that relkit does not read",
         "docs": {"path": "corpus/doc-text.trec", "format": "trec-docs"},
         "topics": {"path": "query-text.trec", "format": "trec-topics"},
         "qrels": {"path": "qrels", "format": "trec-qrels"}},
        {"docs": 11429, "topics": 93, "qrels": 2083},
        "No data licence stated; shipped inside the MPL-1.1 terrier-core repository.",
    ),
    KnownCollection(
        "cacm", "CACM",
        "Titles and abstracts of Communications of the ACM, 1958-1979; binary judgments.",
        {"glasgow": (RemoteFile("cacm.tar.gz", _GLASGOW + "cacm/cacm.tar.gz", None, None,
                                note=_NONE, extract=True),)},
        {"name": "cacm", "scale": "binary",
         "description": "Layout from public descriptions of the archive (not checked here)",
         "docs": {"path": "cacm.all", "format": "smart-docs"},
         "topics": {"path": "query.text", "format": "smart-topics"},
         "qrels": {"path": "qrels.text", "format": "smart-rel"}},
        {"docs": 3204, "topics": 64},
        "No licence stated.",
    ),
    KnownCollection(
        "cisi", "CISI",
        "Library and information science abstracts (ISI); binary judgments for 76 of 112 "
        "queries.",
        {"glasgow": (RemoteFile("cisi.tar.gz", _GLASGOW + "cisi/cisi.tar.gz", None, None,
                                note=_NONE, extract=True),)},
        {"name": "cisi", "scale": "binary",
         "description": "Layout from public descriptions of the archive (not checked here)",
         "docs": {"path": "CISI.ALL", "format": "smart-docs"},
         "topics": {"path": "CISI.QRY", "format": "smart-topics"},
         "qrels": {"path": "CISI.REL", "format": "smart-rel"}},
        {"docs": 1460, "topics": 112},
        "No licence stated.",
    ),
    KnownCollection(
        "medline", "MEDLINE (MED)",
        "1,033 medical abstracts and 30 queries; binary judgments.",
        {"glasgow": (RemoteFile("med.tar.gz", _GLASGOW + "medl/med.tar.gz", None, None,
                                note=_NONE, extract=True),)},
        {"name": "medline", "scale": "binary",
         "description": "Layout from public descriptions of the archive (not checked here)",
         "docs": {"path": "MED.ALL", "format": "smart-docs"},
         "topics": {"path": "MED.QRY", "format": "smart-topics"},
         "qrels": {"path": "MED.REL", "format": "smart-rel"}},
        {"docs": 1033, "topics": 30},
        "No licence stated.",
    ),
)


def get_known(name: str) -> KnownCollection:
    """A known collection by name; unknown names suggest the closest."""
    return KNOWN.lookup(name)


def collection_dir(name: str) -> Path:
    """Where collection ``name`` is: ``$RELKIT_CACHE/collections/NAME``, where ``relkit
    corpora fetch`` puts it, or the package's own folder for a shipped one."""
    kc = KNOWN.get(name)
    if kc is not None and kc.shipped is not None:
        return kc.shipped
    return cache_dir() / "collections" / name
