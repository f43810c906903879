"""``relkit interleave analyze``: join a click log to the interleaved lists and compare.

The log's shown results are joined to the lists file on ``(query_id, rank)``: the lists
say which team contributed each position (and, for probabilistic interleaving, the
drawing probabilities). A log row whose document is not the one the lists put at that
position is an error naming the log's row: the log was not produced from these lists.
Per pair of runs the result is one row: impressions with clicks, wins, losses, ties,
Delta, a two-sided sign test on wins vs losses (``scipy.stats.binomtest``; fractional
counts of probabilistic interleaving rounded to the nearest integer), and a bootstrap
interval of Delta over users (impressions when the log has no ``user_id``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.online.interleave import credit
from relkit.metrics.online.interleave.lists import read_lists, team_letter

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.online.source import LogSource

HEADER = ["run_a", "run_b", "impressions", "wins_a", "wins_b", "ties", "delta",
          "p_value", "ci_low", "ci_high"]


@dataclass
class Comparison:
    """One row of the result (see :data:`HEADER`)."""

    run_a: str
    run_b: str
    impressions: int
    wins_a: float
    wins_b: float
    ties: float
    delta: float
    p_value: float
    ci_low: float
    ci_high: float

    def row(self) -> list[str | int | float | None]:
        return [self.run_a, self.run_b, self.impressions, self.wins_a, self.wins_b,
                self.ties, self.delta, self.p_value, self.ci_low, self.ci_high]


def index_of(letter: str) -> int:
    """The run index of a team letter (``A`` -> 0, ``R27`` -> 26); -1 if not one."""
    if len(letter) == 1 and "A" <= letter <= "Z":
        return ord(letter) - ord("A")
    if letter.startswith("R") and letter[1:].isdigit():
        return int(letter[1:]) - 1
    return -1


def method_of(lists: pd.DataFrame) -> str:
    """The interleaving method a lists file was made with, from its columns."""
    if "credit" in lists.columns:
        return "optimized"
    if "p_A" in lists.columns:
        return "probabilistic"
    if "rank_A" in lists.columns:
        return "balanced"
    return "team"


def load_log(source: LogSource) -> pd.DataFrame:
    """The log's shown results: impression, user, query, rank, doc, clicked, row."""
    source.check()
    user = "user_id" if "user_id" in source.fields else "impression_id"
    sql = (f"SELECT impression_id AS imp, {user} AS user_id, query_id, rank, doc_id, "
           f"clicked, _row FROM {source.view} ORDER BY impression_id, rank")
    frame: pd.DataFrame = source.con.execute(sql).df()
    return frame


def join(log: pd.DataFrame, lists: pd.DataFrame, log_name: str, lists_name: str
         ) -> pd.DataFrame:
    """The log's rows with their list row's columns; mismatches are errors."""
    merged = log.merge(lists, on=["query_id", "rank"], how="left", suffixes=("", "_list"),
                       indicator=True)
    missing = merged["_merge"] != "both"
    if missing.any():
        r = merged[missing].iloc[0]
        raise FormatError(log_name, int(r["_row"]), f"a (query_id, rank) of {lists_name}",
                          f"query {r['query_id']!r} rank {r['rank']}")
    wrong = merged["doc_id"].astype(str) != merged["doc_id_list"].astype(str)
    if wrong.any():
        r = merged[wrong].iloc[0]
        raise FormatError(log_name, int(r["_row"]),
                          f"document {r['doc_id_list']!r} at query {r['query_id']!r} "
                          f"rank {r['rank']} (as in {lists_name})", repr(str(r["doc_id"])))
    return merged.sort_values(["imp", "rank"], kind="stable").reset_index(drop=True)


def analyze(source: LogSource, lists_path: str, *, seed: int = 0, samples: int = 1000,
            names: list[str] | None = None) -> list[Comparison]:
    """Compare the runs of an interleaving experiment from its click log.

    Parameters
    ----------
    source
        The opened click log (:func:`relkit.metrics.online.source.open_log`).
    lists_path
        The lists file ``relkit interleave make`` wrote.
    seed, samples
        The bootstrap's generator seed and number of resamples.
    names
        Run names for the table (default: the team letters).
    """
    from scipy.stats import binomtest

    lists = read_lists(lists_path)
    if lists.empty:
        raise InputError(f"{lists_path}: no interleaved lists")
    method = method_of(lists)
    frame = join(load_log(source), lists, source.path, lists_path)
    letters = sorted(set(lists["team"]), key=lambda t: (len(t), t))
    n_probs = sum(1 for c in lists.columns if str(c).startswith("p_"))
    # a run appears as a team letter once it contributed a document (p_ columns: always)
    n_runs = max(2, n_probs, max((index_of(t) for t in letters), default=0) + 1)
    index = {team_letter(i): i for i in range(n_runs)}
    imp_codes, imp = np.unique(frame["imp"].astype(str).to_numpy(), return_inverse=True)
    n_imp = len(imp_codes)
    clicked = frame["clicked"].to_numpy().astype(bool)
    if method == "probabilistic":
        probs = np.stack([frame[f"p_{team_letter(r)}"].to_numpy(dtype=np.float64)
                          for r in range(n_runs)])
        out = credit.probabilistic_outcomes(imp, clicked, probs, n_imp)
    elif method == "balanced":
        out = credit.balanced_outcome(imp, frame["rank"].to_numpy(), clicked,
                                      frame["rank_A"].to_numpy(), frame["rank_B"].to_numpy(),
                                      n_imp)
    elif method == "optimized":
        out = credit.credit_outcomes(imp, clicked, frame["credit"].to_numpy(np.float64),
                                     n_imp)
    else:
        team = frame["team"].map(index).fillna(-1).to_numpy(dtype=np.int64)
        out = credit.team_outcomes(imp, team, clicked, n_imp, n_runs)
    users_of_imp = np.empty(n_imp, dtype=object)
    users_of_imp[imp] = frame["user_id"].astype(str).to_numpy()
    users = users_of_imp[out.imp]
    label = names or [team_letter(i) for i in range(n_runs)]
    if len(label) < n_runs:
        raise InputError(f"--names: expected a name for each of the {n_runs} teams; "
                         f"got {len(label)}")
    result = []
    for p, (i, j) in enumerate(out.pairs):
        w, lo, t = out.win[p].sum(), out.loss[p].sum(), out.tie[p].sum()
        k, n = int(round(w)), int(round(w)) + int(round(lo))
        pval = binomtest(k, n).pvalue if n > 0 else float("nan")
        low, high = credit.bootstrap_delta(users, out.win[p], out.loss[p], out.tie[p],
                                           np.random.default_rng(seed), samples)
        result.append(Comparison(label[i], label[j], len(out.imp), float(w), float(lo),
                                 float(t), credit.delta(w, lo, t), float(pval), low, high))
    return result
