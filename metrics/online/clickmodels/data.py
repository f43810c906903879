"""Click logs as integer-coded arrays: sessions x ranks of pair codes and clicks.

Every model reads a :class:`ClickData`: row ``s`` is one impression (a SERP shown once),
column ``r`` its rank ``r + 1``. ``pair[s, r]`` is the code of the query-document pair
shown there (``-1``: nothing shown, e.g. a shorter page), ``click[s, r]`` whether it was
clicked (a click count > 0 is one click). Codes index :attr:`ClickData.queries` and
:attr:`ClickData.docs` (strings). The log is aggregated in DuckDB; Python only sees the
final arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from relkit.metrics.core.errors import FormatError

if TYPE_CHECKING:
    from relkit.metrics.online.source import LogSource

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass
class ClickData:
    """Impressions as arrays.

    Attributes
    ----------
    pair
        ``(n_sessions, max_rank)`` int64: pair code at each rank, ``-1`` where no result.
    click
        ``(n_sessions, max_rank)`` bool: clicked.
    queries, docs
        Pair code -> query id, document id (strings), arrays of objects.
    """

    pair: IntArray
    click: BoolArray
    queries: npt.NDArray[np.object_]
    docs: npt.NDArray[np.object_]

    @property
    def n_sessions(self) -> int:
        return int(self.pair.shape[0])

    @property
    def max_rank(self) -> int:
        return int(self.pair.shape[1])

    @property
    def n_pairs(self) -> int:
        return len(self.queries)

    @property
    def shown(self) -> BoolArray:
        """Where a result was shown."""
        return self.pair >= 0

    def subset(self, rows: npt.NDArray[np.bool_] | IntArray) -> ClickData:
        """The sessions ``rows`` selects, with the same pair codes."""
        return ClickData(self.pair[rows], self.click[rows], self.queries, self.docs)

    def session_query(self) -> IntArray:
        """Code of each session's query (by the pair at its first shown rank).

        The query codes index ``np.unique(self.queries)``.
        """
        _, qcode = np.unique(self.queries.astype(str), return_inverse=True)
        first = np.argmax(self.shown, axis=1)
        p = self.pair[np.arange(self.n_sessions), first]
        out: IntArray = np.asarray(qcode, dtype=np.int64)[np.maximum(p, 0)]
        return out

    def split(self, holdout: float, seed: int) -> tuple[ClickData, ClickData]:
        """Train and test sets: within each query, a ``holdout`` share of its sessions
        (seeded) is held out, so every query of the test set also has training sessions
        when it has at least two sessions (the split of Chuklin et al., ch. 5: a model is
        judged on queries it has seen, on sessions it has not)."""
        if not 0 < holdout < 1:
            raise ValueError(f"holdout must be in (0, 1); got {holdout}")
        rng = np.random.default_rng(seed)
        q = self.session_query()
        u = rng.random(self.n_sessions)
        # rank of each session's draw within its query: the lowest share is held out
        order = np.lexsort((u, q))
        counts = np.bincount(q)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        pos = np.empty(self.n_sessions, dtype=np.int64)
        pos[order] = np.arange(self.n_sessions) - np.repeat(starts, counts)
        n_test = np.floor(counts * holdout).astype(np.int64)
        test = pos < n_test[q]
        return self.subset(~test), self.subset(test)


def from_log(log: LogSource, max_rank: int = 10) -> ClickData:
    """Read a click log (as :func:`~relkit.metrics.online.source.open_log` opens it).

    Results below ``max_rank`` are ignored. Raises :class:`FormatError` naming the file
    and row of the first impression that shows two results at the same rank.
    """
    con, v = log.con, log.view
    # Pair and impression codes are made in DuckDB (out of core); only codes come back.
    con.execute(f"CREATE OR REPLACE TEMP TABLE relkit_cm_rows AS SELECT impression_id, "
                f"query_id, doc_id, rank, clicked > 0 AS c, _row FROM {v} "
                f"WHERE rank BETWEEN 1 AND {int(max_rank)} AND doc_id IS NOT NULL")
    con.execute("CREATE OR REPLACE TEMP TABLE relkit_cm_pairs AS SELECT query_id, doc_id, "
                "(row_number() OVER (ORDER BY query_id, doc_id)) - 1 AS p FROM "
                "(SELECT DISTINCT query_id, doc_id FROM relkit_cm_rows)")
    con.execute("CREATE OR REPLACE TEMP TABLE relkit_cm_imps AS SELECT impression_id, "
                "(row_number() OVER (ORDER BY impression_id)) - 1 AS s FROM "
                "(SELECT DISTINCT impression_id FROM relkit_cm_rows)")
    dup = con.execute("SELECT min(_row) FROM (SELECT _row, row_number() OVER "
                      "(PARTITION BY impression_id, rank ORDER BY _row) AS n "
                      "FROM relkit_cm_rows) WHERE n > 1").fetchone()
    if dup and dup[0] is not None:
        raise FormatError(log.path, int(dup[0]), f"one result per rank in column "
                          f"{log.columns['rank']!r}", "a second result at the same rank "
                          "of the impression (relkit clicks validate lists them all)")
    arr = con.execute("SELECT i.s, p.p, r.rank, r.c FROM relkit_cm_rows r "
                      "JOIN relkit_cm_imps i USING (impression_id) "
                      "JOIN relkit_cm_pairs p USING (query_id, doc_id)").fetchnumpy()
    pairs = con.execute("SELECT query_id, doc_id FROM relkit_cm_pairs ORDER BY p").fetchnumpy()
    (n,) = con.execute("SELECT count(*) FROM relkit_cm_imps").fetchone() or (0,)
    pair = np.full((int(n), max_rank), -1, dtype=np.int64)
    click = np.zeros((int(n), max_rank), dtype=bool)
    s = np.asarray(arr["s"], dtype=np.int64)
    r = np.asarray(arr["rank"], dtype=np.int64) - 1
    pair[s, r] = np.asarray(arr["p"], dtype=np.int64)
    click[s, r] = np.asarray(arr["c"], dtype=bool)
    for t in ("relkit_cm_rows", "relkit_cm_pairs", "relkit_cm_imps"):
        con.execute(f"DROP TABLE {t}")
    return ClickData(pair, click, np.asarray(pairs["query_id"], dtype=object),
                     np.asarray(pairs["doc_id"], dtype=object))
