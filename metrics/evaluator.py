"""Prepare qrels once, evaluate many runs: ``Evaluator(qrels, measures).evaluate(run)``.

The :class:`Evaluator`. What it builds on has its own module: the measure requests
(:mod:`relkit.metrics.resolve`), ``-Z``'s z-scores (:mod:`relkit.metrics.zscores`), a
large run's chunks of whole topics and their merge (:mod:`relkit.metrics.topic_chunks`),
and what it returns, the :class:`Result` with its repr, frames and aggregates
(:mod:`relkit.metrics.result_view`); their names that callers use are importable from
here too (``__all__``). ``CHUNK_ROWS`` stays here: it is the evaluator's setting.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError, EvaluationError, MeasureError
from relkit.metrics.measures.base import REGISTRY, Family, Measure
from relkit.metrics.measures.context import Ctx, seq_sum
from relkit.metrics.ranking import JudgedTopics, Ranked, rank
from relkit.metrics.readers._arrow import release_unused_memory
from relkit.metrics.resolve import measure_requests, resolve
from relkit.metrics.result_view import Result
from relkit.metrics.topic_chunks import merge_parts, whole_topic_chunks
from relkit.metrics.zscores import MISSING_Z, ZTable, _zscore

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.core.engines import Engine as EngineProtocol
    from relkit.metrics.zeros import ZeroTopics

__all__ = [
    "AGGREGATIONS", "CHUNK_ROWS", "ENGINES", "MISSING_Z", "Aggregation", "Compat", "Engine",
    "Evaluator", "Result", "ZTable", "measure_requests", "resolve",
]

Compat = Literal[9, 10]
Engine = Literal["local", "spark"]
ENGINES: tuple[str, ...] = get_args(Engine)
Aggregation = Literal["trec", "mean", "median", "gmean", "micro"]
AGGREGATIONS: tuple[str, ...] = get_args(Aggregation)


# Rows per chunk when a run is evaluated a group of topics at a time: big
# enough that per-chunk overhead is negligible, small enough to bound memory.
CHUNK_ROWS = 1_000_000


def _engine(name: str) -> EngineProtocol:
    """The engine called ``name`` (built in or a plugin's).

    A name no engine has is the evaluator's option error, listing the installed engines
    (:meth:`EngineRegistry.installed`: the built-in ones, then the plugins'); a plugin
    that is installed but cannot be loaded raises its own one-line :class:`EngineError`.
    """
    from relkit.metrics.core.engines import ENGINES as REGISTERED
    from relkit.metrics.core.engines import EngineError

    try:
        return REGISTERED.lookup(name)
    except EngineError:
        installed = REGISTERED.installed()
        if name in installed:
            raise    # an installed plugin that cannot be loaded: its one line, as it is
        raise MeasureError(f"The 'engine' option must be one of {', '.join(installed)}; "
                           f"got {name!r}") from None


class Evaluator:
    """Evaluate runs against qrels prepared once.

    Parameters
    ----------
    qrels : Qrels, or anything :meth:`Qrels.coerce` takes (a path, a frame, a dict of
        dicts, ir_measures ``Qrel`` records, a ranx ``Qrels``, an ir_datasets dataset).
    measures : names in any dialect (``nDCG@10``, ``ndcg_cut.10``, ``ndcg_cut_10``,
        ranx's ``ndcg@10``), :class:`Measure` objects or ir_measures' measure objects;
        one alone or several; default trec_eval's ``official`` set.

    Every method taking a ``run`` takes anything :meth:`Run.coerce` takes as well.
    level : ``-l``, the lowest grade that counts as relevant.
    judged_only : ``-J``.  max_docs : ``-M``.  complete : ``-c``.
    num_docs : ``-N``, documents in the collection (utility, fallout).
    compat : 10 (trec_eval 10, default) or 9 (trec_eval 9.0.8 / pytrec_eval).
    engine : ``local`` (default) or ``spark``: runs given as paths Spark reads (TREC
        text or Parquet; local, ``hdfs://``, ``s3a://``) are evaluated by Spark tasks, each
        running this same per-topic code on a bucket of topics; the numbers are
        bit-identical (see docs/spark.md). ``spark_master``: a master URL (default: the
        active session, else ``RELKIT_SPARK_MASTER``, else ``local[2]``).

    Examples
    --------
    q1's grade-2 document at rank 2 (AP 1/2, nDCG@10 2/log2(3) / 2), q2's at rank 1:

    >>> from relkit import Evaluator
    >>> ev = Evaluator({"q1": {"d1": 2, "d2": 0}, "q2": {"007": 1}}, ["AP", "nDCG@10"])
    >>> ev
    <Evaluator: 2 judged topics, 2 measures (AP, nDCG@10), trec_eval 10>
    >>> run = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"007": 5.0}}
    >>> ev.aggregate(run).round(4).to_dict()          # trec_eval's summary
    {'AP': 0.75, 'nDCG@10': 0.8155}
    >>> ev.evaluate(run).round(4).values.tolist()     # per topic, tidy
    [['run', 'q1', 'AP', 0.5], ['run', 'q2', 'AP', 1.0], ['run', 'q1', 'nDCG@10', 0.6309],
     ['run', 'q2', 'nDCG@10', 1.0]]
    """

    def __init__(self, qrels: Qrels | Any, measures: Sequence[str | Measure] | Any = ("official",),
                 *,
                 level: int = 1, judged_only: bool = False, max_docs: int | None = None,
                 complete: bool = False, num_docs: int = 0, compat: Compat = 10,
                 engine: Engine = "local", spark_master: str | None = None) -> None:
        door = None if engine == "local" else _engine(engine)
        if compat not in (9, 10):
            raise MeasureError(f"The 'compat' option must be 9 or 10; got {compat!r}")
        if max_docs is not None and max_docs < 0:
            raise MeasureError(f"The 'max_docs' option must be an int >= 0; got {max_docs}")
        self.engine = engine
        self.spark_master = spark_master
        if door is not None and isinstance(qrels, (str, os.PathLike)):
            qrels = door.read_qrels(qrels, spark_master)   # hdfs://, s3a://: Spark reads them
        self.qrels = Qrels.coerce(qrels)
        self.judged = JudgedTopics.prepare(self.qrels)
        self.measures = resolve(measures, compat)
        self.level = level
        self.judged_only = judged_only
        self.max_docs = max_docs
        self.complete = complete
        self.num_docs = num_docs
        self.compat = compat

    def __repr__(self) -> str:
        names = [str(m) for m in self.measures]
        shown = ", ".join(names[:4]) + (f", +{len(names) - 4} more" if len(names) > 4 else "")
        return (f"<Evaluator: {len(self.judged.topics)} judged topics, {len(names)} measures "
                f"({shown}), trec_eval {self.compat}>")

    def zero_topics(self) -> ZeroTopics:
        """Qrels topics without a relevant document at ``level``: 0 for every run.

        See :mod:`relkit.metrics.zeros`; ``relkit eval`` warns about them.
        """
        from relkit.metrics.zeros import zero_topics

        return zero_topics(self.judged, self.level)

    def compute(self, run: Run | Any, zscores: ZTable | None = None,
                progress: Callable[[int, int], None] | None = None) -> Result:
        """Evaluate ``run``; the structured result behind every output format.

        With ``zscores`` (trec_eval ``-Z``), each per-topic value becomes
        (v - mean) / sd from the table before the summaries are taken; a
        missing entry, or sd = 0 with v != mean, gives -1000000.
        ``progress(rows_done, rows_total)`` is called after each chunk.
        """
        if self.engine != "local":
            return self.compute_many([run], zscores)[0]
        return self.compute_local(run, zscores, progress)

    def compute_local(self, run: Run | Any, zscores: ZTable | None = None,
                      progress: Callable[[int, int], None] | None = None) -> Result:
        """:meth:`compute` in this process, whatever :attr:`engine` is (the local
        engine's evaluation, and every single-machine engine's)."""
        run = Run.coerce(run)
        topics, codes, missing, values = self.per_topic(run, progress)
        if not topics:
            raise EvaluationError(
                f"{run.source}: no topic has both run lines and judgments in {self.qrels.source}")
        return self.finish(run.name, topics, missing, values, zscores)

    def compute_many(self, runs: Sequence[Any], zscores: ZTable | None = None) -> list[Result]:
        """:meth:`compute` for several runs; with ``engine="spark"``, one Spark job for all
        (runs as paths Spark reads: TREC text or Parquet, local, ``hdfs://``, ``s3a://``)."""
        if self.engine != "local":
            return [res for _label, res in self.door.evaluate(self, list(runs), zscores)]
        return [self.compute(run, zscores) for run in runs]

    @property
    def door(self) -> EngineProtocol:
        """The engine that evaluates (:data:`relkit.metrics.core.engines.ENGINES`)."""
        return _engine(self.engine)

    def finish(self, run_name: str, topics: list[str], missing: np.ndarray, values: list[Any],
               zscores: ZTable | None = None) -> Result:
        """The :class:`Result` of per-topic values (topics in trec_eval order): ``-c``'s
        zeros, ``-Z``, and the summaries summed in trec_eval's order. Every engine ends
        here, so the printed numbers depend only on the per-topic values."""
        summary: list[Any] = []
        count = len(topics)
        out_values: list[Any] = []
        missing = np.asarray(missing, dtype=bool)
        for m, v in zip(self.measures, values, strict=True):
            fam = REGISTRY[m.family]
            if fam.summary == "runid":
                out_values.append(None)
                summary.append(run_name)
                continue
            if fam.summary == "num_q":
                out_values.append(None)
                summary.append(float(count))
                continue
            if isinstance(v, list):             # strings (relstring)
                out_values.append(["''" if miss else x for x, miss in
                                   zip(v, missing, strict=True)])
                summary.append(None)
                continue
            if missing.any() and fam.trec:
                # trec_eval -c: a topic without run lines scores 0 (num_rel keeps R)
                v = v.copy()
                v[missing] = v[missing] if fam.name == "num_rel" else 0.0
            if zscores is not None:
                v = _zscore(zscores, topics, m.output, v)
            out_values.append(v)
            summary.append(self._summarise(fam, v, count, zscores is not None))
        return Result(run_name, topics, missing, self.measures, out_values, summary)

    def per_topic(self, run: Run, progress: Callable[[int, int], None] | None = None
                  ) -> tuple[list[str], np.ndarray, np.ndarray, list[Any]]:
        """Per-topic values of every measure, topics in trec_eval order: the topics,
        their codes (indices in the qrels' order), which have no run line, and one
        value per topic of each measure (what :meth:`finish` sums). Every engine's
        tasks run this on their topics.

        A large run is evaluated in chunks of whole topics (measures are per
        topic, so the values are the same) to bound the working memory.
        """
        return self.per_chunk(whole_topic_chunks(run, self.judged, CHUNK_ROWS), run.name,
                              single=len(run) <= CHUNK_ROWS, progress=progress,
                              total=len(run))

    def per_chunk(self, chunks: Iterable[tuple[Run, np.ndarray | None]], run_name: str, *,
                  single: bool, progress: Callable[[int, int], None] | None = None,
                  total: int = 0, release: bool = True
                  ) -> tuple[list[str], np.ndarray, np.ndarray, list[Any]]:
        """:meth:`per_topic` of a run given as ``chunks`` of whole topics (``single``: the
        whole run in one; ``total``: its rows, for ``progress``; ``release``: hand each
        chunk's freed Arrow memory back to the system, not when the next chunk's blocks
        are being read into it)."""
        codes_list, missing_list, values_list = [], [], []
        duplicates: list[DuplicateDocumentError] = []
        done = 0
        for part, part_codes in chunks:
            try:
                ranked = rank(part, self.judged, float32_scores=self.compat < 10,
                              max_docs=self.max_docs, judged_only=self.judged_only,
                              complete=self.complete and single, codes=part_codes)
            except DuplicateDocumentError as exc:
                duplicates.append(exc)     # report the first topic in trec_eval order
                continue
            codes_list.append(ranked.topic_codes)
            missing_list.append(ranked.missing)
            values_list.append(self.compute_all(ranked))
            del ranked
            if release:
                release_unused_memory()   # hand freed chunk memory back
            done += len(part)
            if progress is not None:
                progress(done, total)
        if duplicates:
            raise min(duplicates, key=lambda e: self.judged.index.get(e.query_id, -1))
        return self.merge(codes_list, missing_list, values_list, run_name,
                          absent=self.complete and not single)

    def merge(self, codes_list: list[np.ndarray], missing_list: list[np.ndarray],
              values_list: list[list[Any]], run_name: str, *, absent: bool
              ) -> tuple[list[str], np.ndarray, np.ndarray, list[Any]]:
        """Per-topic values of parts of a run (whole topics each) in trec_eval order;
        ``absent``: add ``-c``'s qrels topics that no part has (zero documents)."""
        if absent:
            seen = np.zeros(len(self.judged.topics), bool)
            for c in codes_list:
                seen[c] = True
            gone = np.flatnonzero(~seen)
            if len(gone):
                empty = Ranked(topics=[self.judged.topics[i] for i in gone], topic_codes=gone,
                               offsets=np.zeros(len(gone) + 1, np.int64),
                               rel=np.zeros(0, np.int32), missing=np.ones(len(gone), bool),
                               run_id=run_name, source_docs=[],
                               rows=np.zeros(0, np.int64))
                codes_list.append(gone)
                missing_list.append(empty.missing)
                values_list.append(self.compute_all(empty))
        return merge_parts(self.judged.topics, len(self.measures), codes_list, missing_list,
                           values_list)

    def _contexts(self, ranked: Ranked) -> Callable[[Measure], Ctx]:
        """One context per relevance level in use: the evaluation's, and any measure's own
        (``P(rel=2)@5``); each keeps its own memo of shared computations."""
        made: dict[int, Ctx] = {}

        def ctx_for(m: Measure) -> Ctx:
            level = self.level if m.rel is None else m.rel
            if level not in made:
                made[level] = Ctx(ranked, self.judged, level, self.num_docs, self.compat)
            return made[level]

        return ctx_for

    def compute_all(self, ranked: Ranked) -> list[Any]:
        """Every measure's per-topic values on ``ranked`` (one entry per measure: an
        array, a list of strings, or None for the run-level ``runid``/``num_q``)."""
        ctx_for = self._contexts(ranked)
        return [self._compute_one(ctx_for(m), m) for m in self.measures]

    @staticmethod
    def _compute_one(ctx: Ctx, m: Measure) -> Any:
        fam = REGISTRY[m.family]
        if fam.summary in ("runid", "num_q"):
            return None
        # gm_map reuses map, gm_bpref bpref...: one computation per function and value
        memo = ctx.__dict__.setdefault("_memo", {})
        key = (fam.compute, repr(m.value))
        if key not in memo:
            v = fam.compute(ctx, m.value)
            memo[key] = v if isinstance(v, list) else np.asarray(v, dtype=np.float64)
        return memo[key]

    def _summarise(self, fam: Family, v: np.ndarray, count: int,
                   z: bool = False) -> float | None:
        if fam.summary == "mean":
            return seq_sum(v) / count
        if fam.summary == "sum":
            if fam.name == "num_rel" and self.complete and not z:
                # trec_eval -c recounts num_rel over all qrels topics, grades > 0, ignoring -l
                return float(self.judged.levels[:, 1:].sum())
            return seq_sum(v)
        if fam.summary == "gm":
            logs = np.log(np.maximum(v, 1e-5))
            return math.exp(seq_sum(logs) / count)
        if fam.summary == "nanmean":
            ok = ~np.isnan(v)
            return seq_sum(v[ok]) / int(ok.sum()) if ok.any() else float("nan")
        return None

    def evaluate(self, run: Run | Any) -> pd.DataFrame:
        """Tidy per-topic values: columns ``run_id, query_id, measure, value``.

        ``measure`` is the readable name (``P@5``); string-valued and
        summary-only measures are left out (see :meth:`compute`).
        """
        from relkit.metrics.result_view import per_topic_frame

        res = self.compute(run)     # coerces run
        return per_topic_frame(res.run_id, res.topics, res.measures, res.values)

    def aggregate(self, run: Run | Any, how: Aggregation = "trec") -> pd.Series:
        """One value per measure.

        Parameters
        ----------
        run : the run to evaluate.
        how : ``trec``: trec_eval's summary (mean, sum or geometric mean as trec_eval
            does); ``mean``: macro average; ``median``: the median over topics;
            ``gmean``: geometric mean (floor 1e-5); ``micro``: the measure's formula on
            counts pooled over topics (only measures that define one: set measures,
            P@k, R@k, F, fallout...).

        Returns
        -------
        pandas.Series
            Indexed by measure name, named after the run.

        Raises
        ------
        ValueError
            ``how`` is not one of the above (the message names the close ones).
        """
        if how not in AGGREGATIONS:
            import difflib

            close = difflib.get_close_matches(str(how), AGGREGATIONS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown aggregation {how!r}{hint} "
                             f"(choose from {', '.join(AGGREGATIONS)})")
        import pandas as pd

        from relkit.metrics.result_view import aggregates

        if self.engine == "local":
            run = Run.coerce(run)       # read once, for compute and micro
        res = self.compute(run)         # spark: a path, read by Spark
        if how != "micro":
            out = aggregates(res.measures, res.values, res.summary, how)
            return pd.Series(out, name=res.run_id, dtype="float64")
        run = Run.coerce(run)           # pooled counts: on this machine
        ranked = rank(run, self.judged, float32_scores=self.compat < 10,
                      max_docs=self.max_docs, judged_only=self.judged_only,
                      complete=self.complete)
        ctx_for = self._contexts(ranked)
        micro = {str(m): float(fn(ctx_for(m), m.value)[0]) for m in res.measures
                 if (fn := REGISTRY[m.family].micro) is not None}
        return pd.Series(micro, name=res.run_id, dtype="float64")
