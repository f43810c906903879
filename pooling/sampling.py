"""``relkit pool-sample``'s work: a sample of a pool to judge, for inferred measures or
for prediction-powered evaluation.

``for_="inferred"`` (the default) draws a stratified sample by each document's best
rank (:func:`relkit.pooling.sample.stratified_sample`) and, given the judged sample's
qrels, writes NIST sample_eval prels; ``for_="ppi"`` draws ``budget`` pairs of the
automatic qrels (:func:`relkit.pooling.ppi_sample.sample_for_ppi`). Which options go
with which is decided here, before anything is read: a combination that cannot be
taken is a usage error (:class:`~relkit.metrics.core.options.OptionError`). The
command prints; this module never does (``say`` is the caller's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from relkit.metrics.core.options import OptionError


@dataclass(frozen=True, kw_only=True)
class SampleRequest:
    """What ``relkit pool-sample`` was asked (its options, by their parameters' names)."""

    pool: Path
    strata: str = "10:1,30:0.5,100:0.1"
    seed: int = 0
    output: Path | None = None
    qrels: Path | None = None
    prels: Path | None = None
    for_: str = "inferred"
    budget: int | None = None
    design: str = "simple"


def check(r: SampleRequest) -> None:
    """Raise :class:`OptionError` unless ``r``'s options go together: ``--budget`` and
    ``--design`` with ``--for ppi`` only, ``--qrels``/``--prels`` (together) with
    ``--for inferred`` only, and an output to write."""
    if r.for_ == "ppi":
        if r.qrels is not None or r.prels is not None:
            raise OptionError(None, "--qrels and --prels are for --for inferred")
        if r.output is None:
            raise OptionError(None, "give -o (the sample to judge)")
        if r.budget is None:
            raise OptionError(None, "--for ppi needs --budget (human labels to draw)")
        return
    if r.for_ != "inferred":
        raise OptionError("'--for'", f"must be inferred or ppi; got {r.for_!r}")
    if r.budget is not None or r.design != "simple":
        raise OptionError(None, "--budget and --design go with --for ppi")
    if r.output is None and r.prels is None:
        raise OptionError(None, "give -o (the sample) or --prels (with --qrels)")
    if (r.prels is None) != (r.qrels is None):
        raise OptionError(None, "--prels and --qrels go together")


def sample_pool(r: SampleRequest, say: Callable[[str], None]) -> None:
    """Draw the sample ``r`` asks for and write it (``-o``) and/or its prels.

    Raises
    ------
    OptionError
        Options that do not go together (:func:`check`), bad ``--strata``.
    FormatError
        A pool line without provenance (the strata are by best rank).
    PoolingError
        A sampled pair the qrels lack (named with the qrels file).
    """
    check(r)
    if r.for_ == "ppi":
        from relkit.pooling.ppi_sample import sample_for_ppi

        assert r.budget is not None and r.output is not None  # check()
        sample_for_ppi(r.pool, r.budget, r.design, r.seed, r.output, say)
        return
    _sample_inferred(r, say)


def _sample_inferred(r: SampleRequest, say: Callable[[str], None]) -> None:
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import option_value
    from relkit.pooling.pool import Pool
    from relkit.pooling.sample import parse_strata, stratified_sample, write_sample

    with option_value("--strata"):
        layers = parse_strata(r.strata)
    for target, option in ((r.output, "-o"), (r.prels, "--prels")):
        if target is not None:   # before the work: nothing is written on a bad path
            check_output(target, option)
    p, lines = Pool.read(r.pool)
    bare = next((n for e, n in zip(p, lines, strict=True) if not e.provenance), None)
    if bare is not None:
        from relkit.metrics.core.errors import FormatError

        raise FormatError(str(r.pool), bare, "provenance 'run:rank,...' in field 4 (strata "
                          "are by best rank: relkit pool -o writes it)", "none")
    s = stratified_sample(p, layers, r.seed)
    if r.prels is not None and r.qrels is not None:
        from relkit.metrics.core.errors import MeasureError
        from relkit.metrics.data import Qrels
        from relkit.pooling.errors import PoolingError
        from relkit.pooling.sample import sample_prels
        from relkit.pooling.simulate import grades_of

        try:
            judged = sample_prels(p, layers, s, grades_of(Qrels.read(r.qrels)), str(r.prels))
        except MeasureError as exc:   # a sampled pair the qrels lack: name the qrels
            raise PoolingError(f"{r.qrels}: {exc}") from None
        judged.write(r.prels)
        say(f"relkit: wrote the {judged.design()} sample's prels to {r.prels}")
    if r.output is not None:
        write_sample(s, r.output)
        say(f"relkit: sampled {len(s):,} of {len(p):,} pooled pairs into {r.output}")
