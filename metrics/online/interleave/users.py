"""Simulated users for ``relkit interleave simulate``: clicks on shown lists, per topic.

The lists of the experiment are matrices of document codes (the vocabulary of
:class:`~relkit.metrics.online.interleave.rankings.Rankings`), one row per impression,
with the impression's topic index. A user is either a preset of Hofmann et al. driven
by the qrels' grades (:func:`preset_users`) or a fitted click model
(:func:`model_users`); both draw clicks with the public functions of
:mod:`relkit.metrics.online.clickmodels.simulate`, so the experiment's users are the
users of ``relkit clicks simulate``. A ``(topic, document)`` cell is looked up in a
sorted key array (``topic * V + code``): no Python loop over impressions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.data import Qrels
    from relkit.metrics.online.clickmodels.base import ClickModel
    from relkit.metrics.online.interleave.rankings import Rankings


@dataclass
class CellTable:
    """A value per ``(topic, document code)``: sorted ``keys`` and their ``values``;
    every other cell takes ``missing``."""

    n_vocab: int
    keys: np.ndarray
    values: np.ndarray
    missing: float | int

    def lookup(self, topics: np.ndarray, docs: np.ndarray) -> np.ndarray:
        """The value of each cell ``(topics[i], docs[i, k])`` (``docs < 0``: missing)."""
        key = topics[:, None].astype(np.int64) * self.n_vocab + docs
        if len(self.keys) == 0:
            return np.full(docs.shape, self.missing, dtype=self.values.dtype)
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        hit = (self.keys[at] == key) & (docs >= 0)
        return np.where(hit, self.values[at], self.missing)


def cell_table(rankings: Rankings, query_ids: pd.Series, doc_ids: pd.Series,
               values: np.ndarray, missing: float | int) -> CellTable:
    """Key ``values`` given per ``(query id, doc id)`` by the rankings' topics and codes;
    pairs whose topic or document the rankings never show are dropped."""
    import pandas as pd

    t = pd.Index(rankings.queries.to_pandas()).get_indexer(query_ids.astype(str))
    d = pd.Index(rankings.vocab.to_pandas()).get_indexer(doc_ids.astype(str))
    ok = (t >= 0) & (d >= 0)
    V = max(len(rankings.vocab), 1)
    keys = t[ok].astype(np.int64) * V + d[ok]
    order = np.argsort(keys, kind="stable")
    return CellTable(V, keys[order], np.asarray(values)[ok][order], missing)


class Users:
    """Clicks on shown lists: ``clicks(topics, docs, rng)`` -> bool ``docs.shape``."""

    description = ""

    def clicks(self, topics: np.ndarray, docs: np.ndarray, rng: np.random.Generator
               ) -> np.ndarray:
        raise NotImplementedError


class PresetUsers(Users):
    """A cascade user of Hofmann, Whiteson & de Rijke (2013) over the qrels' grades
    (:data:`~relkit.metrics.online.clickmodels.simulate.PRESETS`); unjudged: grade 0."""

    def __init__(self, preset: str, grades: CellTable, max_grade: int) -> None:
        from relkit.metrics.online.clickmodels.simulate import preset_probabilities

        levels = np.arange(max(max_grade, 0) + 1)
        self.click_p, self.stop_p = preset_probabilities(preset, levels, max_grade)
        self.grades = grades
        self.description = f"preset {preset}"

    def clicks(self, topics: np.ndarray, docs: np.ndarray, rng: np.random.Generator
               ) -> np.ndarray:
        from relkit.metrics.online.clickmodels.simulate import simulate_dbn

        g = np.clip(self.grades.lookup(topics, docs), 0, len(self.click_p) - 1)
        shown = docs >= 0
        return simulate_dbn(self.click_p[g], self.stop_p[g], 1.0, shown, rng)


class ModelUsers(Users):
    """Users drawn from a fitted click model; a pair it never saw takes its defaults."""

    def __init__(self, model: ClickModel, codes: CellTable) -> None:
        self.model = model
        self.codes = codes
        self.description = f"model {model.name}"

    def clicks(self, topics: np.ndarray, docs: np.ndarray, rng: np.random.Generator
               ) -> np.ndarray:
        from relkit.metrics.online.clickmodels.simulate import simulate_clicks

        code = self.codes.lookup(topics, docs)   # unknown pair: len(queries), the default
        code = np.where(docs >= 0, code, -1)
        return np.asarray(simulate_clicks(self.model, code, rng)) & (docs >= 0)


def preset_users(preset: str, qrels: Qrels, rankings: Rankings) -> PresetUsers:
    """The preset user over ``qrels``' grades (negative grades count as 0)."""
    frame = qrels.frame
    grades = frame["relevance"].to_numpy(dtype=np.int64)
    top = int(grades.max()) if len(grades) else 1
    table = cell_table(rankings, frame["query_id"], frame["doc_id"],
                       np.clip(grades, 0, None), 0)
    return PresetUsers(preset, table, max(top, 1))


def model_users(model: ClickModel, rankings: Rankings) -> ModelUsers:
    """Users of a fitted click model, its pairs keyed by the rankings' codes."""
    import pandas as pd

    table = cell_table(rankings, pd.Series(model.queries), pd.Series(model.docs),
                       np.arange(len(model.queries), dtype=np.int64), len(model.queries))
    return ModelUsers(model, table)
