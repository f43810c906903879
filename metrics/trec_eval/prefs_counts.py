"""Preference counting for one topic, as trec_eval's ``form_prefs_counts.c`` does it.

Vocabulary (trec_eval's):

* **docid**: every judged document of the topic gets an internal number. The
  judged documents the run retrieved come first, in rank order
  (``0 .. NJR-1``, NJR = ``num_judged_ret``); the others follow in docno
  order (``NJR .. NJ-1``). So for a preference A > B, "A ranked above B"
  is ``docid(A) < docid(B)``, and "retrieved" is ``docid < NJR``.
* A judgment group (JG) with a single sub-group is kept as **equivalence
  classes** (ECs): one class per distinct level, highest first. Every
  document of a higher class is preferred to every one of a lower class.
* A JG with several sub-groups is kept as a **preference array** ``P``
  (``P[i, j]``: i preferred to j), built per sub-group and closed
  transitively; a cycle is an error.
* Each preference is counted in one of five cells: fulfilled or not, with
  both documents retrieved (``_ret``), exactly one retrieved (``_imp``,
  "implied": the retrieved one counts as ranked above), or neither
  (``notoccur``, never fulfilled). ``poss_*`` includes ``ful_*``.
* ``counts[i, j]`` sums, over all JGs, the preferences i > j; the ``pair``
  measures read conflicts and confirmations from it.
* Relevant means level > 0. In EC form every other level is nonrelevant; in
  array form only level == 0 is (a negative level is neither).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relkit.metrics.core.errors import EvaluationError

__all__ = ["JudgmentGroup", "TopicPrefs", "count_topic", "rnonrel_counts"]


@dataclass
class JudgmentGroup:
    """Preference counts of one JG (trec_eval's ``JG``)."""

    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    ecs: list[np.ndarray] | None = None     # EC form: docids per class, level descending
    prefs: np.ndarray | None = None         # array form: closed NJ x NJ bool matrix
    levels: np.ndarray | None = None        # array form: level per docid, -1 if not in JG


@dataclass
class TopicPrefs:
    """All JGs of one topic plus the shared docid numbering."""

    jgs: list[JudgmentGroup]
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray                      # NJ x NJ preference counts over JGs


def _ec_group(qid: str, jg: str, docids: np.ndarray, levels: np.ndarray, njr: int,
              counts: np.ndarray) -> JudgmentGroup:
    # Rows arrive sorted by level descending then docid, so each class is a
    # contiguous run with ascending docids.
    cuts = np.flatnonzero(levels[1:] != levels[:-1]) + 1
    ecs = np.split(docids, cuts)
    ec_levels = levels[np.concatenate(([0], cuts))]
    c = dict.fromkeys(("fr", "ur", "fi", "ui", "no", "rel", "relret", "non", "nonret"), 0)
    for e1, a in enumerate(ecs):
        ret = int(np.count_nonzero(a < njr))
        if ec_levels[e1] > 0.0:
            c["rel"] += len(a)
            c["relret"] += ret
        else:
            c["non"] += len(a)
            c["nonret"] += ret
        for b in ecs[e1 + 1:]:
            p1, p2 = a[:, None], b[None, :]
            if np.any(p1 == p2):
                raise EvaluationError(f"topic {qid!r}, judgment group {jg!r}: a document has "
                                      "two different rel_levels in the same sub-group")
            np.add.at(counts, (p1, p2), 1)
            above, r1, r2 = p1 < p2, p1 < njr, p2 < njr
            c["fr"] += int(np.count_nonzero(above & r2))
            c["fi"] += int(np.count_nonzero(above & r1 & ~r2))
            c["ur"] += int(np.count_nonzero(~above & r1))
            c["ui"] += int(np.count_nonzero(~above & ~r1 & r2))
            c["no"] += int(np.count_nonzero(~r1 & ~r2))
    return JudgmentGroup(c["fr"], c["ur"] + c["fr"], c["fi"], c["ui"] + c["fi"], c["no"],
                         c["rel"], c["relret"], c["non"], c["nonret"], ecs=ecs)


def _closure(sub: np.ndarray) -> np.ndarray:
    """Transitive closure of a boolean relation (Warshall)."""
    out = sub.copy()
    for k in range(out.shape[0]):
        out |= out[:, k, None] & out[None, k, :]
    return out


def _array_group(qid: str, jg: str, jsgs: np.ndarray, docids: np.ndarray,
                 levels: np.ndarray, n: int, njr: int, doc_names: list[str],
                 counts: np.ndarray) -> JudgmentGroup:
    level_of = np.full(n, -1.0)
    for d, lv in zip(docids.tolist(), levels.tolist(), strict=True):
        # Only a 0 / non-0 clash is an error; otherwise the last level wins.
        old = level_of[d]
        if (old > 0.0 and lv == 0.0) or (old == 0.0 and lv > 0.0):
            raise EvaluationError(f"topic {qid!r}, judgment group {jg!r}: document "
                                  f"{doc_names[d]!r} has both 0 and non-0 rel_level")
        level_of[d] = lv
    prefs = np.zeros((n, n), dtype=bool)
    cuts = np.flatnonzero(jsgs[1:] != jsgs[:-1]) + 1
    for d, lv in zip(np.split(docids, cuts), np.split(levels, cuts), strict=True):
        rows, cols = np.nonzero(lv[:, None] > lv[None, :])
        prefs[d[rows], d[cols]] = True
    members = np.unique(docids)
    sub = _closure(prefs[np.ix_(members, members)])
    np.fill_diagonal(sub, False)
    clash = np.argwhere(sub & sub.T)
    if len(clash):
        i, j = clash[0]
        raise EvaluationError(f"topic {qid!r}, judgment group {jg!r}: inconsistent preferences "
                              f"between {doc_names[members[i]]!r} and {doc_names[members[j]]!r}")
    prefs[np.ix_(members, members)] = sub
    counts += prefs
    top = prefs[:njr, :njr]
    fr = int(np.count_nonzero(np.triu(top, 1)))
    ur = int(np.count_nonzero(np.tril(top, -1)))
    fi = int(np.count_nonzero(prefs[:njr, njr:]))
    ui = int(np.count_nonzero(prefs[njr:, :njr]))
    no = int(np.count_nonzero(prefs[njr:, njr:]))
    rel, non = level_of > 0.0, level_of == 0.0
    return JudgmentGroup(fr, ur + fr, fi, ui + fi, no,
                         int(rel.sum()), int(rel[:njr].sum()),
                         int(non.sum()), int(non[:njr].sum()),
                         prefs=prefs, levels=level_of)


def count_topic(qid: str, jg: list[str], jsg: list[str], docs: list[str],
                levels: np.ndarray, ranking: list[str]) -> TopicPrefs:
    """Count the preferences of one topic against its ranked docnos.

    ``jg``, ``jsg``, ``docs`` and ``levels`` are the topic's prefs lines;
    ``ranking`` is the run's docnos for the topic, best first (already cut
    to ``-M``). Raises :class:`~relkit.metrics.core.errors.EvaluationError` for the
    inconsistencies trec_eval rejects.
    """
    judged = set(docs)
    ret = [d for d in ranking if d in judged]
    names = ret + sorted(judged.difference(ret))
    docid = {d: i for i, d in enumerate(names)}
    n, njr = len(names), len(ret)
    ids = np.fromiter((docid[d] for d in docs), dtype=np.int64, count=len(docs))
    levels = np.asarray(levels, dtype=np.float64)
    # trec_eval's order: JG, JSG (strcmp), level descending, docid ascending.
    order = sorted(range(len(docs)), key=lambda i: (jg[i], jsg[i], -levels[i], ids[i]))
    counts = np.zeros((n, n), dtype=np.int64)
    groups: list[JudgmentGroup] = []
    start = 0
    while start < len(order):
        name = jg[order[start]]
        stop = start
        while stop < len(order) and jg[order[stop]] == name:
            stop += 1
        idx = np.asarray(order[start:stop])
        subgroups = np.array([jsg[i] for i in idx], dtype=object)
        if len(set(subgroups)) > 1:
            groups.append(_array_group(qid, name, subgroups, ids[idx], levels[idx], n, njr,
                                       names, counts))
        else:
            groups.append(_ec_group(qid, name, ids[idx], levels[idx], njr, counts))
        start = stop
    return TopicPrefs(groups, n, njr, counts)


# --- the R-nonrel recounts (m_prefs_avgjg_Rnonrel*.c) ---------------------------

def rnonrel_counts(g: JudgmentGroup, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) of one JG with its nonrelevant documents cut to R.

    Used when the JG has more nonrelevant (N) than relevant (R) documents;
    R and N count all judged documents, or only retrieved ones with
    ``retrieved_only`` (``prefs_avgjg_Rnonrel_ret``).
    """
    if g.ecs is not None:
        # The lowest class is taken as the nonrelevant one and cut to its first
        # R docids. Quirk kept from trec_eval: the second group of pairs joins
        # *every* class with that cut class, the lowest class itself included,
        # so nonrelevant documents also count as "preferred" to each other and
        # to themselves. The _ret variant first drops unretrieved documents.
        if retrieved_only:
            ecs = [e[e < njr] for e in g.ecs]
            new = g.ecs[-1][:g.num_rel_ret]
            new = new[new < njr]
        else:
            ecs, new = g.ecs, g.ecs[-1][:g.num_rel]
        pairs = [(a, b) for i, a in enumerate(ecs) for b in ecs[i + 1:len(ecs) - 1]]
        pairs += [(a, new) for a in ecs]
        ful = poss = 0
        for a, b in pairs:
            # Fulfilled: the preferred doc is retrieved and ranked above.
            ful += int(np.count_nonzero((a[:, None] < b[None, :]) & (a[:, None] < njr)))
            poss += a.size * b.size
        return ful, poss
    assert g.prefs is not None and g.levels is not None
    zero = g.levels == 0.0
    limit = njr if retrieved_only else len(zero)
    # Nonrelevant docs from the (num_rel+1)-th one on (docid order) are ignored.
    # The _ret variant also compares with num_rel, not num_rel_ret (as in C).
    hit = np.flatnonzero(np.cumsum(zero[:limit]) == g.num_rel + 1)
    first_dropped = int(hit[0]) if len(hit) else limit
    keep = ~((np.arange(len(zero)) >= first_dropped) & zero)
    p = g.prefs & keep[:, None] & keep[None, :]
    top = p[:njr, :njr]
    ful = int(np.count_nonzero(np.triu(top, 1)))
    unful = int(np.count_nonzero(np.tril(top, -1)))
    if not retrieved_only:
        ful += int(np.count_nonzero(p[:njr, njr:]))
        unful += int(np.count_nonzero(p[njr:, :]))
    return ful, ful + unful
