"""A stratified sample of a pool, with each document's inclusion probability.

Strata are by best rank over the runs (``--strata 10:1,30:0.5,100:0.1`` means
ranks 1-10 all judged, 11-30 half, 31-100 a tenth), as in the TREC
sampling designs of Yilmaz, Kanoulas & Aslam (SIGIR 2008). Within a stratum
of N documents, n = round(rate * N) (at least 1 when rate > 0 and N > 0) are
drawn without replacement, so every document of the stratum has inclusion
probability exactly n / N. The sample is seeded per topic: the same pool,
strata and seed give the same sample, byte for byte.

File format (``sample.tsv``), sorted like a pool file::

    topic<TAB>doc<TAB>stratum<TAB>probability

Estimators: judge the sampled documents, then write the judged sample as NIST
``sample_eval`` prels (:func:`sample_prels`; every document of the strata, the
unsampled ones at -1; format in :mod:`relkit.metrics.inferred.prels`) and evaluate with
:mod:`relkit.metrics.inferred.measures` (``relkit eval -R prels``):

* ``xinfAP``, ``infNDCG`` and ``statAP`` fit every design;
* ``infAP`` (trec_eval's) assumes a uniform sample: it is refused on a stratified one,
  where it is biased (+10% to +41% in ``tests/test_inferred.py``; +42% to +78% in the
  audit of issue 18). :func:`infap_qrels` still writes its qrels for a uniform design.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from relkit.metrics.core.errors import FormatError
from relkit.metrics.inferred.prels import Prels, judged_prels
from relkit.pooling.errors import PoolingError
from relkit.pooling.pool import Pool, natural

HEADER = "topic\tdoc\tstratum\tprobability"


def parse_strata(text: str) -> list[tuple[int, float]]:
    """``"10:1,30:0.5"`` -> ``[(10, 1.0), (30, 0.5)]`` (ranks increasing, rates in [0, 1])."""
    out: list[tuple[int, float]] = []
    for part in text.split(","):
        depth, sep, rate = part.partition(":")
        try:
            k, r = int(depth), float(rate)
        except ValueError:
            raise PoolingError(f"a stratum must read 'max_rank:rate' (e.g. 10:1); "
                               f"got {part!r}") from None
        if not sep or k < 1 or not 0.0 <= r <= 1.0 or (out and k <= out[-1][0]):
            raise PoolingError(f"a stratum must read 'max_rank:rate' with ranks increasing "
                               f"and rates in [0, 1]; got {part!r}")
        out.append((k, r))
    return out


@dataclass(frozen=True, order=True)
class SampledDoc:
    topic: str
    doc: str
    stratum: int
    probability: float


def _layers(pool: Pool, t: str, strata: Sequence[tuple[int, float]]) -> dict[int, list[str]]:
    """Stratum index -> documents of topic ``t`` (past the last stratum: left out)."""
    layers: dict[int, list[str]] = {}
    for e in pool.for_topic(t):
        best = e.best_rank
        if best is None:
            raise PoolingError(f"topic {t!r} document {e.doc!r} has no provenance: "
                               "stratified sampling needs the runs' ranks")
        h = next((i for i, (k, _) in enumerate(strata) if best <= k), None)
        if h is not None:
            layers.setdefault(h, []).append(e.doc)
    return layers


def universe(pool: Pool, strata: Sequence[tuple[int, float]]) -> dict[str, dict[str, str]]:
    """``{topic: {doc: stratum}}``: every document a sample of ``pool`` is drawn from,
    strata numbered from 1 as in the sample file. A stratum at rate 0 is left out, like
    the documents past the last stratum: nothing is known of it, so the estimators
    count it as non-relevant (kept, its documents would pass for half relevant)."""
    out: dict[str, dict[str, str]] = {}
    for t in pool.topics():
        for h, docs in sorted(_layers(pool, t, strata).items()):
            if strata[h][1] == 0:
                continue
            for d in sorted(docs):
                out.setdefault(t, {})[d] = str(h + 1)
    return out


def stratified_sample(pool: Pool, strata: Sequence[tuple[int, float]], seed: int = 0
                      ) -> list[SampledDoc]:
    """Sample ``pool`` by strata of best rank (documents past the last stratum are dropped)."""
    out: list[SampledDoc] = []
    for t in pool.topics():
        layers = _layers(pool, t, strata)
        rng = random.Random(f"sample:{seed}:{t}")
        for h in sorted(layers):
            docs = sorted(layers[h])
            rate = strata[h][1]
            n = max(1, round(rate * len(docs))) if rate > 0 else 0
            chosen = sorted(rng.sample(docs, n))
            out.extend(SampledDoc(t, d, h + 1, n / len(docs)) for d in chosen)
    return sorted(out, key=lambda s: (natural(s.topic), s.doc))


def write_sample(sample: Sequence[SampledDoc], target: str | os.PathLike[str]) -> None:
    lines = [HEADER] + [f"{s.topic}\t{s.doc}\t{s.stratum}\t{s.probability!r}" for s in sample]
    Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_sample(path: str | os.PathLike[str]) -> list[SampledDoc]:
    """A sample file (``.gz`` too); a line it cannot use raises a :class:`FormatError`
    naming the file and line."""
    from relkit.metrics.readers.io import BOM, read_bytes

    data = read_bytes(path)
    if data.startswith(BOM):
        data = data[len(BOM):]
    out = []
    for n, blob in enumerate(data.splitlines(), 1):
        try:
            raw = blob.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(str(path), n, "UTF-8 text", f"undecodable byte "
                              f"{exc.object[exc.start]:#04x}") from None
        if (n == 1 and raw.startswith("topic\t")) or not raw.strip():
            continue
        parts = raw.split("\t")
        try:
            if len(parts) != 4:
                raise ValueError
            s = SampledDoc(parts[0], parts[1], int(parts[2]), float(parts[3]))
        except ValueError:
            raise FormatError(str(path), n, "'topic<TAB>doc<TAB>stratum<TAB>probability'",
                              repr(raw[:60])) from None
        if not 0.0 < s.probability <= 1.0:
            raise FormatError(str(path), n, "a probability in (0, 1]", parts[3])
        out.append(s)
    return out


def infap_qrels(pool: Pool, sample: Sequence[SampledDoc],
                judgments: Mapping[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    """Qrels for trec_eval's infAP: sampled and judged -> grade; pooled, not sampled -> -1.

    A sampled document without a judgment is an error (the estimate would be biased).
    """
    sampled = {(s.topic, s.doc) for s in sample}
    out: dict[str, dict[str, int]] = {}
    for e in pool:
        key = (e.topic, e.doc)
        if key in sampled:
            if key not in judgments:
                raise PoolingError(f"sampled document {e.doc!r} of topic {e.topic!r} "
                                   "has no judgment")
            out.setdefault(e.topic, {})[e.doc] = judgments[key]
        else:
            out.setdefault(e.topic, {})[e.doc] = -1
    return out


def sample_prels(pool: Pool, strata: Sequence[tuple[int, float]],
                 sample: Sequence[SampledDoc], judgments: Mapping[str, Mapping[str, int]],
                 source: str = "<prels>") -> Prels:
    """The prels of a judged sample (NIST ``sample_eval``'s format,
    :mod:`relkit.metrics.inferred.prels`): every document of the strata, the sampled ones
    with their grade in ``judgments`` (``{topic: {doc: grade}}``), the rest -1.

    A sampled document without a judgment raises (the estimate would be biased).
    """
    return judged_prels(universe(pool, strata), [(s.topic, s.doc) for s in sample],
                        judgments, source)


def prels(sample: Sequence[SampledDoc], judgments: Mapping[tuple[str, str], int]
          ) -> dict[str, dict[str, tuple[int, float]]]:
    """``{topic: {doc: (grade, probability)}}`` for
    :func:`relkit.metrics.inferred.statap.stat_ap`."""
    out: dict[str, dict[str, tuple[int, float]]] = {}
    for s in sample:
        if (s.topic, s.doc) not in judgments:
            raise PoolingError(f"sampled document {s.doc!r} of topic {s.topic!r} "
                               "has no judgment")
        out.setdefault(s.topic, {})[s.doc] = (judgments[(s.topic, s.doc)], s.probability)
    return out
