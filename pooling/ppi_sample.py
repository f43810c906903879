"""``relkit pool-sample --for ppi``: the human sample of prediction-powered evaluation.

The pool is the automatic qrels (every pooled pair with the judge's grade); the sample
is drawn by :func:`relkit.metrics.ppi.design.draw` (simple random, or stratified by the
automatic grade), or, under ``--design topics``, is every pooled pair of
floor(B N / P) topics drawn at random (:mod:`relkit.metrics.ppi.topics`;
probability n/N, stratum 0) and written in the sample format of :mod:`relkit.pooling.sample`
(``topic, doc, stratum, probability``), sorted like a pool. Judge those pairs, then
``relkit eval --ppi --human H --auto A --design D runs...`` with the same design.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def sample_for_ppi(auto: Path, budget: int, design: str, seed: int, output: Path,
                   say: Callable[[str], None]) -> None:
    """Draw ``budget`` pairs of the automatic qrels ``auto`` and write them to ``output``."""
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import option_value
    from relkit.metrics.data import Qrels
    from relkit.metrics.ppi.design import ALL_DESIGNS, check_design, draw
    from relkit.pooling.pool import natural
    from relkit.pooling.sample import SampledDoc, write_sample

    with option_value("--design"):
        check_design(design, ALL_DESIGNS)
    check_output(output, "-o")
    grades = Qrels.read(auto).to_dict()
    pairs = [(t, d) for t in grades for d in grades[t]]
    if design == "topics":
        from relkit.metrics.ppi.topics import draw_topics, topic_count

        sizes = {t: len(docs) for t, docs in grades.items() if docs}
        with option_value("--budget"):
            n = topic_count(sizes, budget)
        p = n / len(sizes)
        drawn = [(t, d, 0, p) for t in draw_topics(list(sizes), n, seed) for d in grades[t]]
    else:
        with option_value("--budget"):
            drawn = draw(pairs, [grades[t][d] for t, d in pairs], budget, design, seed)
    sample = sorted((SampledDoc(t, d, h, p) for t, d, h, p in drawn),
                    key=lambda s: (natural(s.topic), s.doc))
    write_sample(sample, output)
    if design == "topics":
        say(f"relkit: sampled {n:,} of {len(sizes):,} topics, {len(sample):,} of "
            f"{len(pairs):,} pooled pairs to judge (topics) into {output}")
        return
    say(f"relkit: sampled {len(sample):,} of {len(pairs):,} pooled pairs ({design}) "
        f"into {output}")
