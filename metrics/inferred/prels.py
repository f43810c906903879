r"""Sampled judgments with their strata ("prels"), in NIST ``sample_eval``'s format.

A prels file lists every document of the sampled **universe** (the pooled
documents the sample was drawn from), one per line::

    topic  iteration  doc  stratum  grade

whitespace-separated, with ``grade = -1`` for a document that was not sampled
(so not judged) and the judged grade otherwise. The iteration column is
ignored (write 0); the stratum is any token (relkit writes 1, 2, ... from
shallow to deep). Source of the column order: NIST's ``sample_eval.pl`` (the
script distributed with the TREC Web, Clinical Decision Support and Precision
Medicine tracks' ``qrels-sampleval`` files, implementing Yilmaz, Kanoulas &
Aslam, SIGIR 2008), which reads its qrels five fields at a time as
``(topic, dummy, doc_id, doc_category, rel)`` and counts, per topic and
category, the documents (``docs_per_category``) and those with ``rel >= 0``
(``sampled_docs``). A file has no probability column: within stratum
:math:`c` of a topic the inclusion probability is :math:`\pi_c = n_c / N_c`
(sampled over universe), which is exactly the probability
``relkit pool-sample`` draws with. As in relkit's qrels and runs, a line whose first
non-blank character is ``#`` is a comment (``sample_eval.pl`` has none: it would read
such a line as a judgment; docs/pooling.md).

The **design** of a prels file is ``uniform`` when, in every topic, all strata
were sampled at the same rate (infAP's assumption: the judged documents are a
uniform random sample of the pool), and ``stratified`` otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from relkit.metrics.core.errors import FormatError
from relkit.metrics.readers.grades import NOT_JUDGED, is_judged

Design = Literal["uniform", "stratified"]


@dataclass
class Prels:
    """Topic -> document -> (stratum, grade); grade :data:`NOT_JUDGED` when not sampled.

    Attributes
    ----------
    topics : dict[str, dict[str, tuple[str, int]]]
        Topic -> document of the universe -> (stratum, grade).
    source : str
        Where it was read from (named in errors).

    Examples
    --------
    Stratum 1 judged whole, stratum 2 half sampled:

    >>> from relkit.metrics.inferred.prels import Prels
    >>> p = Prels.from_rows([("q1", "a", "1", 1), ("q1", "b", "1", 0),
    ...                      ("q1", "c", "2", 2), ("q1", "d", "2", -1)])
    >>> p.design(), p.strata("q1")
    ('stratified', {'1': (2, 2), '2': (1, 2)})
    >>> p.probabilities()["q1"]["c"]
    (2, 0.5)
    """

    topics: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    source: str = "<prels>"

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, int]], source: str = "<prels>"
                  ) -> Prels:
        """From ``(topic, doc, stratum, grade)`` rows (a repeated pair keeps the last)."""
        out = cls(source=source)
        for t, d, s, g in rows:
            out.topics.setdefault(t, {})[d] = (s, g)
        return out

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Prels:
        """Read a ``sample_eval`` prels file (see the module docstring; ``.gz`` too).

        Raises
        ------
        FormatError
            Naming the file (and line): not a file, not UTF-8, a broken gzip stream,
            no line at all, a line without 5 fields, a grade that is not an integer
            of 32 bits, a topic/document pair listed twice (``sample_eval.pl`` would
            count it twice in its stratum but keep one grade).
        """
        from relkit.metrics.readers.io import GRADE_MAX, GRADE_MIN, content_lines, read_bytes

        name = str(path)
        out = cls(source=name)
        where: dict[tuple[str, str], int] = {}
        for n, parts in content_lines(read_bytes(path), name):
            if len(parts) != 5:
                raise FormatError(name, n, "5 fields 'topic iteration doc stratum grade'",
                                  f"{len(parts)} field(s): {' '.join(parts)[:60]!r}")
            try:
                grade = int(parts[4])
            except ValueError:
                raise FormatError(name, n, "an integer grade in field 5 (-1: not sampled)",
                                  repr(parts[4][:30])) from None
            if not GRADE_MIN <= grade <= GRADE_MAX:
                raise FormatError(name, n, f"a grade between {GRADE_MIN} and {GRADE_MAX}",
                                  repr(parts[4][:30]))
            key = (parts[0], parts[2])
            if key in where:
                raise FormatError(name, n, "each topic/document pair once",
                                  f"topic {key[0]!r} document {key[1]!r} again (first at "
                                  f"line {where[key]})")
            where[key] = n
            out.topics.setdefault(parts[0], {})[parts[2]] = (parts[3], grade)
        if not out.topics:
            raise FormatError(name, None, "at least one line 'topic iteration doc stratum "
                              "grade'", "no content lines")
        return out

    def write(self, target: str | os.PathLike[str]) -> None:
        """Write in ``sample_eval``'s format, topics and documents in the given order."""
        lines = [f"{t} 0 {d} {s} {g}" for t, docs in self.topics.items()
                 for d, (s, g) in docs.items()]
        Path(target).write_text("".join(x + "\n" for x in lines), encoding="utf-8")

    def strata(self, topic: str) -> dict[str, tuple[int, int]]:
        """Stratum -> (sampled n_c, universe N_c) for ``topic``."""
        out: dict[str, list[int]] = {}
        for s, g in self.topics.get(topic, {}).values():
            c = out.setdefault(s, [0, 0])
            c[0] += is_judged(g)
            c[1] += 1
        return {s: (n, m) for s, (n, m) in out.items()}

    def design(self) -> Design:
        """``uniform`` if every topic's strata share one sampling rate, else ``stratified``."""
        for t in self.topics:
            rates = list(self.strata(t).values())
            n0, m0 = rates[0]
            if any(n * m0 != n0 * m for n, m in rates[1:]):   # exact: n/m == n0/m0
                return "stratified"
        return "uniform"

    def probabilities(self) -> dict[str, dict[str, tuple[int, float]]]:
        """``{topic: {sampled doc: (grade, n_c/N_c)}}`` for statAP
        (:func:`relkit.metrics.inferred.statap.stat_ap`)."""
        out: dict[str, dict[str, tuple[int, float]]] = {}
        for t, docs in self.topics.items():
            sizes = self.strata(t)
            out[t] = {d: (g, sizes[s][0] / sizes[s][1]) for d, (s, g) in docs.items()
                      if is_judged(g)}
        return out

    def qrels(self) -> dict[str, dict[str, int]]:
        """``{topic: {doc: grade}}`` with unsampled documents at :data:`NOT_JUDGED` (for infAP)."""
        return {t: {d: g for d, (_, g) in docs.items()} for t, docs in self.topics.items()}


def judged_prels(universe: Mapping[str, Mapping[str, str]], sampled: Iterable[tuple[str, str]],
                 grades: Mapping[str, Mapping[str, int]], source: str = "<prels>") -> Prels:
    """Prels from a universe ``{topic: {doc: stratum}}``, the sampled pairs and their grades.

    Parameters
    ----------
    universe : Mapping[str, Mapping[str, str]]
        Topic -> every document the sample was drawn from -> its stratum.
    sampled : Iterable[tuple[str, str]]
        The sampled (topic, doc) pairs.
    grades : Mapping[str, Mapping[str, int]]
        Topic -> doc -> grade; must cover every sampled pair.
    source : str
        A name for errors.

    Returns
    -------
    Prels
        Unsampled documents at :data:`NOT_JUDGED`.

    Raises
    ------
    MeasureError
        A sampled pair without a grade (or with a negative one): dropping it
        would bias every estimate.

    Examples
    --------
    >>> from relkit.metrics.inferred.prels import judged_prels
    >>> p = judged_prels({"q1": {"a": "1", "b": "2"}}, [("q1", "a")], {"q1": {"a": 1}})
    >>> p.topics
    {'q1': {'a': ('1', 1), 'b': ('2', -1)}}
    """
    from relkit.metrics.core.errors import MeasureError

    chosen = set(sampled)
    rows = []
    for t, docs in universe.items():
        for d, s in docs.items():
            g = NOT_JUDGED
            if (t, d) in chosen:
                got = grades.get(t, {}).get(d)
                if got is None or not is_judged(got):
                    raise MeasureError(f"sampled document {d!r} of topic {t!r} has no judgment")
                g = got
            rows.append((t, d, s, g))
    return Prels.from_rows(rows, source)
