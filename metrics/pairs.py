"""(topic, docno) pairs: hashed, grouped by topic, checked for a repeated pair.

Each pair gets a 63-bit hash; sorted within each topic, repeated pairs are
neighbours and the ``(topic, hash)`` keys can be looked up in the qrels' own
sorted keys (:class:`relkit.metrics.judged.JudgedTopics`). Every match and every
repeat is then checked on the bytes themselves, so a hash collision never changes
a result.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.id_columns import Strings
from relkit.metrics.readers._arrow import to_np, true_positions

_MIX = np.uint64(0x9E3779B97F4A7C15)


def pair_hash(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """A 63-bit hash of each ``(q, value)`` of a bytes array (equal pairs, equal
    hashes; unequal ones may collide, so matches are checked afterwards)."""
    width = values.dtype.itemsize
    if width % 8:
        # NUL-padded to whole words (astype pads with NULs: one copy, the same bytes
        # as appending zero columns)
        width += 8 - width % 8
        values = values.astype(f"S{width}")
    words = np.ascontiguousarray(values).view(np.uint64).reshape(len(values), width // 8)
    h = q.astype(np.uint64)
    h *= _MIX
    shifted = np.empty_like(h)         # in place: no temporary array per step
    for j in range(words.shape[1]):
        h ^= words[:, j]
        h *= _MIX
        np.right_shift(h, np.uint64(29), out=shifted)
        h ^= shifted
    h >>= np.uint64(1)                 # 63 bits: _PAD sorts after every hash
    return h


_PAD = np.uint64(np.iinfo(np.uint64).max)


def _topic_keys(q: np.ndarray, h: np.ndarray, topics: int) -> np.ndarray:
    """One sortable 64-bit key per ``(q, hash)``: the topic code in the high bits,
    the hash's high bits below (order by topic, then by hash)."""
    bits = max(int(topics).bit_length(), 1)
    return (q.astype(np.uint64) << np.uint64(64 - bits)) | (h >> np.uint64(bits))


def _same_width(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two bytes arrays with one itemsize (hashes depend on it)."""
    w = max(a.dtype.itemsize, b.dtype.itemsize)
    return a.astype(f"S{w}", copy=False), b.astype(f"S{w}", copy=False)


def _repeated_pair(q: np.ndarray, docs: np.ndarray, order: np.ndarray, hs: np.ndarray,
                   source: np.ndarray | None = None) -> tuple[int, int] | None:
    """:func:`_first_duplicate` for bytes, given the pairs' hashes in an order
    where equal ones are neighbours (``hs``) and that order (``order``).
    ``source`` maps positions to the input rows whose order decides which two
    occurrences are reported (default: the positions themselves), and the pair
    is returned as such rows."""
    same = hs[1:] == hs[:-1]
    if not same.any():
        return None
    # rows whose hash repeats hold every repeated pair: settle those exactly
    member = np.zeros(len(hs), bool)
    member[:-1] |= same
    member[1:] |= same
    at = order[member]
    src = at if source is None else source[at]
    first: dict[tuple[int, bytes], int] = {}
    pairs = []
    for r, i in sorted(zip(src.tolist(), at.tolist(), strict=True)):
        key = (int(q[i]), bytes(docs[i]))
        if key not in first:
            first[key] = r
        elif first[key] >= 0:
            pairs.append((key, first[key], r))
            first[key] = -1                          # only its first two occurrences
    if not pairs:
        return None
    _, a, b = min(pairs)
    return a, b


def grouped_order(h: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """An order sorting the rows by ``(q, h)``, when each topic's rows are one
    contiguous block (ranked rows; most qrels files); None otherwise.

    Sorting each topic's row of a topics x longest-topic grid is several times
    faster than one sort of everything; a very uneven run sorts the flat key.
    """
    n = len(h)
    if not n:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    heads = q[starts]
    by_topic = np.argsort(heads, kind="stable")
    if np.any(heads[by_topic][1:] == heads[by_topic][:-1]):
        return None                                  # a topic in several blocks
    sizes = np.diff(np.append(starts, n))
    width = int(sizes.max())
    if len(sizes) * width > 4 * n + 4096:
        return np.lexsort((h, q))
    if int(sizes.min()) == width:
        # Every topic has as many rows (most runs: 1,000 each): the grid is ``h``
        # itself, its rows taken in topic order; no padding, no scatter.
        perm = np.argsort(h.reshape(len(sizes), width)[by_topic], axis=1)
        return (starts[by_topic][:, None] + perm).ravel()
    return _padded_grid_order(h, starts[by_topic], sizes[by_topic], width)


def _padded_grid_order(h: np.ndarray, starts: np.ndarray, sizes: np.ndarray, width: int
                       ) -> np.ndarray:
    """:func:`grouped_order` on a topics x ``width`` grid, topics' blocks (``starts``,
    ``sizes``, in topic order) copied in and padded with :data:`_PAD`."""
    n = len(h)
    grid = np.full((len(sizes), width), _PAD, dtype=np.uint64)
    block = np.repeat(np.arange(len(sizes)), sizes)
    col = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    rows = np.repeat(starts, sizes) + col          # the input row of each grid cell
    grid[block, col] = h[rows]
    perm = np.argsort(grid, axis=1)                # _PAD is above every hash: last
    return (starts[:, None] + perm)[perm < sizes[:, None]]


def _first_duplicate(q: np.ndarray, docs: Strings) -> tuple[int, int] | None:
    """Positions ``(first, second)`` of one repeated ``(q, doc)`` pair, or None.

    The pair reported is the smallest by (topic code, docno), with its first two
    occurrences, whichever form the column has.
    """
    n = len(q)
    if n < 2:
        return None
    if isinstance(docs, np.ndarray):
        h = pair_hash(docs, q)
        order = grouped_order(h, q)                    # qrels are usually by topic
        if order is None:
            order = np.argsort(h)
        return _repeated_pair(q, docs, order, h[order])
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table({"q": q, "d": docs})
    order = to_np(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")]))
    qs = q[order]
    ds = pc.take(docs, pa.array(order))
    same = pc.and_(pc.equal(pa.array(qs[1:]), pa.array(qs[:-1])),
                   pc.equal(ds[1:], ds[:-1]))
    hits = true_positions(same)
    if len(hits) == 0:
        return None
    a, b = int(order[hits[0]]), int(order[hits[0] + 1])
    return min(a, b), max(a, b)
