"""The ``cal`` policy: BMI's continuous active learning as an adaptive strategy.

Per topic: fit the model (:mod:`.model`) on what is judged so far, take the
top-scoring ``B`` unjudged candidates as the next batch (ties by docno), show
them best first, and retrain once every one of them is judged (or skipped);
``B`` grows as BMI's does (:mod:`.batches`). Candidates:

* ``from=collection``: every document of the text source (the pool's
  candidates then include the pseudo-run :data:`COLLECTION`, see
  :func:`with_collection`), so ``cal`` can find what no run retrieved;
* ``from=runs``: the runs' top ``--depth`` documents (the usual candidates).

``seed_depth=k`` adds each run's top ``k`` documents as pseudo-relevant seeds
(0, the default: the topic's text alone seeds the model, as in BMI).

**Deterministic and order-free.** The random non-relevant sample of a batch
(from the collection's documents not judged yet, whatever ``from`` is) comes
from a generator seeded by the topic's seed (itself from ``(seed, "cal",
topic)``) and the batch's number; the fit sees the labelled documents in
candidate order. So the sequence is a function of the set of judgments at each
batch's end: the same seed gives the same order, a restart that replays the
history (:meth:`relkit.pooling.adaptive.AdaptivePool.resume`) continues it, and
judgments of one batch arriving from several sessions in any interleaving train
the same model.

**Training ahead** (:meth:`Cal.ahead`, called by the judging store while the last
document of a batch is shown): the next batch is planned in the background for each
grade that document can get (not relevant, relevant; when it is set aside instead,
the batch trains when it ends, as without this step), in a training process of its
own (:mod:`.worker`) once that has started, else in a thread of this process. A
batch is still the one trained on the judgments before it; a plan is used only when
its inputs equal the state the batch ends in (:func:`_state`), and being a pure
function of them (:func:`plan`) it equals what would be computed then, so where and
when it was made changes how soon the next document is ready, never which it is.
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from functools import partial
from typing import Any

import numpy as np

from relkit.pooling.cal import worker
from relkit.pooling.cal.batches import grow
from relkit.pooling.cal.plan import Problem, plan
from relkit.pooling.cal.texts import TextSource
from relkit.pooling.candidates import Candidates, TopicMatrix
from relkit.pooling.errors import PoolingError

COLLECTION = "(collection)"


def with_collection(cands: Candidates, docs: Iterable[str], text: Any = None) -> Candidates:
    """``cands`` plus, per topic, the pseudo-run :data:`COLLECTION` listing every
    document id of ``docs`` (in id order): ``cal``'s ``from=collection`` candidates.
    ``text``: the :class:`TextSource` to attach (default: ``cands``'s)."""
    every = sorted(docs)
    lists = {t: {**cands.lists[t], COLLECTION: every} for t in cands.topics}
    scores = {t: {**cands.scores.get(t, {}), COLLECTION: [0.0] * len(every)} for t in lists}
    return Candidates(lists, scores, cands.depth, text=cands.text if text is None else text)


class Cal:
    """One topic's CAL state (a :class:`relkit.pooling.strategies.Policy`)."""

    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        texts = m.text
        if not isinstance(texts, TextSource):
            raise PoolingError("the cal strategy needs the documents' and topics' text "
                               "(give --docs and --topics)")
        whole = params["from"] == "collection"
        if whole and COLLECTION not in m.runs:
            raise PoolingError("cal from=collection needs the collection as candidates "
                               "(relkit.pooling.cal.strategy.with_collection)")
        self.runs = [j for j, r in enumerate(m.runs) if r != COLLECTION]
        # from=runs: only documents some run retrieved are candidates
        self.allowed = np.asarray(np.ones(len(m.docs), dtype=bool) if whole
                                  else (m.ranks[:, self.runs] > 0).any(axis=1), dtype=bool)
        query = texts.topic(m.topic)       # an empty topic fails before the features
        feats = texts.features(params["features"])
        k = params["seed_depth"]
        rows = feats.rows(m.docs)
        self.problem = Problem(
            x=feats.of(m.docs), pool=feats.matrix, rows=rows,
            topic=feats.vectorize([query]), allowed=self.allowed,
            seeds=np.unique(np.concatenate([m.order[j][:k] for j in self.runs]
                                           or [np.empty(0, np.int64)])).astype(np.int64),
            sample=params["sample"], c=params["c"], base=rng.getrandbits(64))
        self.labels: dict[int, bool] = {}
        self.batch: list[int] = []
        self.size = 1
        self.batches = 0
        self._ahead: dict[tuple[int, bytes, tuple[tuple[int, bool], ...]],
                          Future[list[int] | None]] = {}

    def choose(self, judged: np.ndarray) -> int | None:
        self.batch = [i for i in self.batch if not judged[i]]
        if not self.batch:
            self._retrain(judged)
        return self.batch[0] if self.batch else None

    def _retrain(self, judged: np.ndarray) -> None:
        # A plan made ahead for exactly this state (judged set, labels, batch number)
        # is this one's result; one not started yet is dropped and made here instead.
        ahead = self._ahead.pop(_state(judged, self.labels, self.batches), None)
        for f in self._ahead.values():
            f.cancel()
        self._ahead.clear()
        batch = _made(ahead)
        if batch is None:
            batch = self._plan(judged, dict(self.labels), self.batches, self.size)
        if batch is None:
            return
        self.batch = batch
        self.batches += 1
        self.size = grow(self.size)

    def _plan(self, judged: np.ndarray, labels: dict[int, bool], batches: int,
              size: int) -> list[int] | None:
        return plan(self.problem, judged, labels, batches, size)

    def ahead(self, judged: np.ndarray, pending: int) -> None:
        """Start the next batch's training in the background while ``pending`` (the
        last document of this batch) is read: one plan per grade it can get (not
        relevant, relevant; set aside, the key trains as it did). :meth:`_retrain`
        takes the plan matching the state it finds, so the order never depends on
        whether a plan was ready."""
        if [i for i in self.batch if not judged[i]] != [pending]:
            return
        trainer = worker.shared()
        for label in (False, True):   # a skip is rare: it trains on the key, as before
            j = judged.copy()
            j[pending] = True
            labels = {**self.labels, pending: label}
            key = _state(j, labels, self.batches)
            if key not in self._ahead:
                if trainer is not None and trainer.usable():
                    self._ahead[key] = trainer.plan(self.problem, j, labels, self.batches,
                                                    self.size)
                else:   # not started yet (or gone): a thread of this process
                    self._ahead[key] = _submit(partial(self._plan, j, labels,
                                                       self.batches, self.size))

    def upcoming(self, judged: np.ndarray, pending: int) -> int | None:
        """The document likely after ``pending``: inside a batch, the batch's next (fixed
        until the batch is all judged, whatever the grade); when ``pending`` ends it, the
        first of the next batch planned ahead for a "not relevant" grade (the usual one)
        if that plan has finished; else None. A forecast only (see
        :meth:`relkit.pooling.adaptive.AdaptivePool.upcoming`)."""
        if not self.batch or self.batch[0] != pending:
            return None
        rest = [i for i in self.batch[1:] if not judged[i]]
        if rest:
            return rest[0]
        j = judged.copy()
        j[pending] = True
        plan = self._ahead.get(_state(j, {**self.labels, pending: False}, self.batches))
        if plan is None or not plan.done() or plan.cancelled() or plan.exception():
            return None
        batch = plan.result()
        return batch[0] if batch else None

    def update(self, i: int, gain: float, pulled: bool) -> None:
        self.labels[i] = gain > 0


def _made(ahead: Future[list[int] | None] | None) -> list[int] | None:
    """The batch a plan made ahead holds, or None: the key then trains it itself (not
    started; the training process slow, failed or gone: said in the log). A thread's
    plan is waited for and its error raised, as the key's own would be."""
    if ahead is None:
        return None
    if not isinstance(ahead, worker.Remote):   # not started: the key is as quick
        return None if ahead.cancel() else ahead.result()
    try:   # queued or running in the other process: soon done, off this interpreter
        batch: list[int] | None = ahead.result(timeout=worker.PATIENCE)
        return batch
    except TimeoutError:
        worker.log.warning("cal: the training process took over %.1f s for a batch; "
                           "trained in this process", worker.PATIENCE)
        if ahead.worker is not None:   # not again for every later batch
            ahead.worker.abandon(f"kept a batch waiting over {worker.PATIENCE:.1f} s")
    except Exception as e:  # noqa: BLE001 - the key's own training says what is wrong
        worker.log.warning("cal: a batch from the training process failed (%s); "
                           "trained in this process", e)
    return None


def _state(judged: np.ndarray, labels: Mapping[int, bool],
           batches: int) -> tuple[int, bytes, tuple[tuple[int, bool], ...]]:
    """What a retraining depends on besides the topic's constants."""
    return batches, np.packbits(judged).tobytes(), tuple(sorted(labels.items()))


_QUEUE: list[queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]] = []


def _submit(fn: Callable[[], Any]) -> Future[Any]:
    """Run ``fn`` in the one background thread of the process (the assessor reads one
    document at a time; more threads would only contend on two cores). A daemon: a
    plan still queued or running never delays the program's exit (it only computes)."""
    if not _QUEUE:
        _QUEUE.append(queue.SimpleQueue())
        threading.Thread(target=_work, args=(_QUEUE[0],), name="relkit-cal",
                         daemon=True).start()
    fut: Future[Any] = Future()
    _QUEUE[0].put((fut, fn))
    return fut


def _work(q: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]) -> None:
    while True:
        fut, fn = q.get()
        if not fut.set_running_or_notify_cancel():
            continue  # cancelled while queued: the key trained it itself
        try:
            fut.set_result(fn())
        except BaseException as e:  # handed to the key, which raises it as its own
            fut.set_exception(e)


def policy(m: TopicMatrix, params: Mapping[str, Any], rng: random.Random) -> Cal:
    return Cal(m, dict(params), rng)
