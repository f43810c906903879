"""Depth-k pooling: the union of every run's top k documents per topic.

Ranking order is trec_eval's (score descending, then docno descending; the rank
column is ignored), decided by :func:`relkit.metrics.ranking.rank`, so tied
scores give the same pool on every machine. A run shorter than k contributes
what it has. A document a run lists twice is an error naming the run's line
(trec_eval refuses such runs too).

Priority is the best (smallest) rank at which any run retrieved the document,
as ``1 / best_rank``, so "priority order" presents a topic's documents roughly
in the order the systems agree on.

Reference: K. Spärck Jones and C. J. van Rijsbergen, "Report on the need for
and provision of an 'ideal' information retrieval test collection", 1975;
TREC practice since 1992 (Voorhees & Harman, *TREC*, 2005, ch. 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from relkit.metrics.convert import named_runs
from relkit.metrics.data import Run
from relkit.metrics.readers._arrow import to_np
from relkit.pooling.candidates import ranked_lists
from relkit.pooling.columns import Columns
from relkit.pooling.errors import PoolingError
from relkit.pooling.pool import Pool, natural

__all__ = ["PoolingError", "depth_pool", "run_name"]


def run_name(path: str | Path) -> str:
    """A run's name: its file's stem (run tags repeat across files, so never the tag)."""
    return Path(path).name.removesuffix(".gz").rsplit(".", 1)[0] or Path(path).name


def depth_pool(runs: Mapping[str, Run], depth: int | Mapping[str, int | None] | None,
               topics: Sequence[str] | None = None) -> Pool:
    """Pool the top ``depth`` documents of each run.

    Parameters
    ----------
    runs
        Runs by name (the name goes into the provenance).
    depth
        One depth for every run, a per-run mapping (TREC's per-run depths), or
        None (in the mapping too) for the whole run.
    topics
        Only these topics (None: every topic of every run).
    """
    runs = named_runs(runs)     # a path, frame, dict of dicts... per run
    if not runs:
        raise PoolingError("pooling needs at least one run")
    depths = (dict.fromkeys(runs, depth) if depth is None or isinstance(depth, int)
              else dict(depth))
    for name, k in depths.items():
        if k is None:
            continue
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise PoolingError(f"The 'depth' parameter of depth pooling must be an int >= 1; "
                               f"got {k!r} for run {name!r}")
    missing = set(runs) - set(depths)
    if missing:
        raise PoolingError(f"no depth given for runs {sorted(missing)}")
    wanted = set(topics) if topics is not None else None
    names = sorted(runs)
    # One row per (run, topic, kept document), gathered as arrays: the grouping
    # below is a numpy sort, not ~400k Python dict updates (bench/pool_bench.py).
    topic_ids: dict[str, int] = {}
    t_parts, d_parts, r_parts, k_parts = [], [], [], []
    for j, name in enumerate(names):
        ranked = ranked_lists(runs[name], depths[name])
        counts = np.diff(ranked.offsets)
        codes = np.array([topic_ids.setdefault(t, len(topic_ids)) for t in ranked.topics],
                         dtype=np.int64)
        t_rows = np.repeat(codes, counts)
        k_rows = np.arange(len(t_rows)) - np.repeat(ranked.offsets[:-1], counts) + 1
        rows = ranked.rows
        if wanted is not None:
            keep = np.array([t in wanted for t in ranked.topics], dtype=bool)
            sel = np.flatnonzero(np.repeat(keep, counts))
            t_rows, k_rows, rows = t_rows[sel], k_rows[sel], rows[sel]
        docs = _docs(ranked.source_docs, rows)
        t_parts.append(t_rows)
        k_parts.append(k_rows)
        r_parts.append(np.full(len(t_rows), j, dtype=np.int64))
        d_parts.append(docs.cast(pa.string()))
    if not t_parts or not sum(len(t) for t in t_parts):
        return Pool(())
    t_row = np.concatenate(t_parts)
    k_row = np.concatenate(k_parts)
    r_row = np.concatenate(r_parts)
    # Pool file order: topics naturally, documents by code point (as Pool sorts them).
    by_topic = sorted(topic_ids, key=natural)
    t_rank = np.empty(len(by_topic), dtype=np.int64)
    t_rank[[topic_ids[t] for t in by_topic]] = np.arange(len(by_topic))
    d_code, d_uniq = _doc_codes(d_parts)
    t_key = t_rank[t_row]
    n_d, n_r = len(d_uniq), len(names)
    if len(by_topic) * n_d * n_r < 2**62:
        # (topic, doc, run) is unique (a run lists a docno once per topic): one int64
        # key sorts like the three-key lexsort, in a third of the time.
        order = np.argsort((t_key * n_d + d_code) * n_r + r_row)
    else:
        order = np.lexsort((r_row, d_code, t_key))
    t_s, d_s, k_s, r_s = t_key[order], d_code[order], k_row[order], r_row[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (t_s[1:] != t_s[:-1]) | (d_s[1:] != d_s[:-1])
    starts = np.flatnonzero(new)
    # Entries only when read: `relkit pool` writes the file from the arrays.
    return Pool.from_columns(Columns(by_topic, d_uniq, names, t_s[starts], d_s[starts],
                                     starts, r_s, k_s))


def _docs(source: object, rows: np.ndarray) -> pa.Array:
    """The docnos at ``rows`` of a run's doc column (numpy bytes or Arrow) as Arrow strings.

    The positions go to Arrow as a buffer, not through ``pa.array``: pyarrow's first
    numpy conversion imports pandas (~0.3 s of `relkit pool`) to probe for it.
    """
    if isinstance(source, np.ndarray):
        return _bytes_to_arrow(source[rows])
    idx = np.ascontiguousarray(rows, dtype=np.int64)
    positions = pa.Array.from_buffers(pa.int64(), len(idx), [None, pa.py_buffer(idx)])
    col = source.take(positions)  # type: ignore[attr-defined]
    out: pa.Array = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    return out


def _bytes_to_arrow(values: np.ndarray) -> pa.Array:
    """Fixed-width UTF-8 bytes (numpy ``S``, NUL-padded) as an Arrow string array, built
    from its buffers (no Python string per row, and no ``pa.array``; see :func:`_docs`)."""
    n = len(values)
    width = values.dtype.itemsize
    if n == 0 or width == 0:
        return pa.array([""] * n, pa.string()) if n else pa.array([], pa.string())
    lengths = np.char.str_len(values).astype(np.int64)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    chars = np.frombuffer(np.ascontiguousarray(values).tobytes(), dtype=np.uint8).reshape(n, width)
    data = chars[np.arange(width)[None, :] < lengths[:, None]].tobytes()
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(data)])


def _doc_codes(parts: list[pa.Array]) -> tuple[np.ndarray, list[str]]:
    """Each row's document as a code ordered like the docnos (code point order).

    Arrow's dictionary encoding, then only the distinct docnos sorted in Python:
    no pandas import (~0.5 s of `relkit pool`'s start-up) and no object array
    of every row's string.
    """
    enc = pa.concat_arrays(parts).dictionary_encode()
    uniq = enc.dictionary.to_pylist()
    perm = sorted(range(len(uniq)), key=uniq.__getitem__)
    rank_of = np.empty(len(uniq), dtype=np.int64)
    rank_of[perm] = np.arange(len(uniq))
    return rank_of[to_np(enc.indices)], [uniq[i] for i in perm]
