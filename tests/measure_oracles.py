"""Data and oracle helpers shared by the ERR, C/W/L and Compat tests.

The collections come from ``../shared`` (never copied into the repository):
Cranfield with its graded qrels (grades turned so that higher is better: 1 = best
becomes 4, -1 becomes 0) and its six real Lucene runs, and Vaswani's binary qrels with
a deterministic run made here (every judged document of a topic plus unjudged ones,
scores with ties). Generated collections (hypothesis) add ties, grades up to 4,
negative grades, unjudged documents and topics without a relevant document.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from hypothesis import strategies as st

from relkit.metrics.data import Run
from relkit.metrics.ranking import ranked_docnos

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CRANFIELD = SHARED / "cranfield"
VASWANI = SHARED / "vaswani"
CRAN_RUNS = sorted((CRANFIELD / "runs").glob("*/*.txt"))

QrelsDict = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]


def cranfield() -> tuple[QrelsDict, list[RunDict]]:
    """Cranfield's graded qrels (higher is better, 0-4) and its real runs."""
    qrels: QrelsDict = {}
    for line in (CRANFIELD / "cranqrel").read_text().splitlines():
        q, d, g = line.split()
        qrels.setdefault(q, {})[d] = 5 - int(g) if int(g) > 0 else 0
    return qrels, [Run.read(p).to_dict() for p in CRAN_RUNS]


def vaswani() -> tuple[QrelsDict, RunDict]:
    """Vaswani's qrels and a deterministic run: each topic's judged documents and 30
    others, scored by a hash of (topic, doc) on a coarse scale, so scores tie."""
    qrels: QrelsDict = {}
    for line in (VASWANI / "qrels").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: RunDict = {}
    for q, docs in qrels.items():
        pool = [*docs, *(str(7000 + int(q) * 31 + i) for i in range(30))]
        run[q] = {d: float(hashlib.sha1(f"{q}/{d}".encode()).digest()[0] % 13) for d in pool}
    return qrels, run


def tie_free(run: RunDict) -> RunDict:
    """The same ranking in relkit's (trec_eval's) order, with distinct scores n..1."""
    out: RunDict = {}
    for q, docs in ranked_docnos(Run.from_dict(run)).items():
        out[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    return out


def write_trec(path_qrels: Path, path_run: Path, qrels: QrelsDict, run: RunDict) -> None:
    """qrels (``q 0 d g``) and run (``q Q0 d rank score tag``) files for a peer."""
    path_qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items()
                                  for d, g in ds.items()))
    path_run.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} run\n" for q, ds in run.items()
                                for i, (d, s) in enumerate(ds.items())))


DOCS = [f"d{i}" for i in range(10)] + ["7", "07", "007"]


@st.composite
def collections(draw: st.DrawFn, max_grade: int = 4) -> tuple[QrelsDict, RunDict]:
    """Numeric topic ids (gdeval needs them), grades -1..max_grade, tied scores,
    unjudged documents, and topics without a relevant document."""
    qrels: QrelsDict = {}
    run: RunDict = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "10", "33"]), min_size=1, max_size=4,
                           unique=True)):
        qrels[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, max_grade),
                                        min_size=1))
        run[q] = draw(st.dictionaries(st.sampled_from(DOCS),
                                      st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=1))
    return qrels, run
