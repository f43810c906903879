"""Generated evaluation cases for the Spark engine's tests (ties, empty topics, topics on
one side only, ids with leading zeros), and a stand-in for Spark's grouping that feeds
relkit's task function the groups Spark would."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np

from relkit.metrics.measures.base import REGISTRY

CONF = Path("/work/shared/conformance/trec_eval")
CRANFIELD = Path("/work/shared/corpora/cranfield")


def every_measure() -> list[str]:
    """trec_eval's all_trec, every relkit family at its defaults, and a measure with its
    own relevance level."""
    from relkit.metrics.resolve import _registry

    _registry()
    return ["all_trec", *[f for f, fam in REGISTRY.items() if not fam.trec], "P(rel=2)@5"]


def generated(tmp: Path, seed: int = 7) -> tuple[Path, list[Path]]:
    """Qrels and three runs (TREC text) exercising the edges.

    - topics ``0000842`` and ``842`` are different topics (ids stay strings);
    - ``0007`` has only ``-1`` lines (judged nothing), ``0008`` no relevant document;
    - ``0009`` is judged but in no run (-c scores it 0), ``9999`` is in runs, not qrels;
    - scores are rounded to 1 decimal, so many tie (trec_eval breaks them by docno);
    - one run ranks topic ``0010`` with a single document, another never retrieves it.
    """
    rng = np.random.default_rng(seed)
    topics = ["0000842", "842", "0001", "001", "0002", "0003", "0004", "0005", "0006",
              "0007", "0008", "0009", "0010", "q1", "q10", "q2"]
    qrels = []
    for t in topics:
        docs = [f"d{n:04d}" for n in rng.choice(300, size=40, replace=False)]
        for d in docs:
            grade = -1 if t == "0007" else 0 if t == "0008" else int(rng.integers(-1, 4))
            qrels.append(f"{t} 0 {d} {grade}")
    qpath = tmp / "gen.qrels"
    qpath.write_text("\n".join(qrels) + "\n")
    runs = []
    for r in range(3):
        lines = ["# a comment line, then a blank one", ""]
        for t in [*topics[:-5], "0010", "q1", "q10", "q2", "9999"]:
            if t == "0010" and r == 2:
                continue
            depth = 1 if t == "0010" and r == 0 else int(rng.integers(5, 60))
            docs = rng.choice(300, size=depth, replace=False)
            for rank, n in enumerate(docs, start=1):
                score = round(float(rng.normal()), 1)
                lines.append(f"{t}\tQ0\td{n:04d}\t{rank}\t{score}\tgen{r}")
        path = tmp / f"gen{r}.run"
        path.write_text("\n".join(lines) + "\n")
        runs.append(path)
    return qpath, runs


def group_rows(paths: list[Path], buckets: int) -> list[Any]:
    """What Spark hands the task for TREC text runs: per (run, bucket), the content lines
    with their file-order key, as :func:`relkit.metrics.spark.inputs.run_rows` builds
    them (a CRC of the topic id stands in for Spark's hash)."""
    import pyarrow as pa

    groups: dict[tuple[int, int], list[tuple[str, int]]] = {}
    for i, path in enumerate(paths):
        for n, line in enumerate(path.read_text().splitlines()):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            bucket = zlib.crc32(parts[0].encode()) % buckets
            groups.setdefault((i, bucket), []).append((line, n))
    out = []
    for (i, _bucket), rows in sorted(groups.items()):
        rng = np.random.default_rng(len(rows))
        rows = [rows[j] for j in rng.permutation(len(rows))]   # Spark keeps no order
        n = len(rows)
        out.append(pa.table({
            "run": pa.array([i] * n, pa.int32()),
            "qid": [r[0].split()[0] for r in rows],
            "blk": pa.array([0] * n, pa.int64()),
            "mid": pa.array([r[1] for r in rows], pa.int64()),
            "line": [r[0] for r in rows],
            "doc": pa.array([None] * n, pa.string()),
            "score": pa.array([None] * n, pa.float64()),
            "rid": pa.array([None] * n, pa.string()),
        }))
    return out


def same_result(a: Any, b: Any) -> None:
    """Two :class:`Result` objects hold the same bits: topics, flags, every per-topic
    value (compared as bytes: -0.0 and NaN too) and every summary."""
    assert a.run_id == b.run_id
    assert a.topics == b.topics
    assert a.missing.tolist() == b.missing.tolist()
    assert [str(m) for m in a.measures] == [str(m) for m in b.measures]
    for m, x, y in zip(a.measures, a.values, b.values, strict=True):
        if x is None or isinstance(x, list):
            assert x == y, m
        else:
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), m
    for m, x, y in zip(a.measures, a.summary, b.summary, strict=True):
        if isinstance(x, float):
            assert np.float64(x).tobytes() == np.float64(y).tobytes(), m
        else:
            assert x == y, m
