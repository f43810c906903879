"""Seeded synthetic A/B click logs and user tables for the `relkit ab` tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def user_sums(n_users: int, seed: int, *, effect: float = 0.0, base: float = 0.4,
              spread: float = 0.15, mean_queries: float = 5.0, share: float = 0.5
              ) -> dict[str, np.ndarray]:
    """Per-user sums of a clustered rate metric: x clicks in y queries, + pre-period.

    Each user has their own click propensity (Beta around ``base``), so queries of one
    user are correlated; the treatment multiplies the propensity by ``1 + effect``.
    The pre-period (xc, yc) shares the propensity: CUPED has something to remove.
    """
    rng = np.random.default_rng(seed)
    treat = rng.random(n_users) < share
    k = base * (1 - spread) / spread
    prop = rng.beta(k, k * (1 - base) / base, n_users)
    y = 1 + rng.poisson(mean_queries - 1, n_users)
    p = np.clip(prop * np.where(treat, 1 + effect, 1.0), 0, 1)
    x = rng.binomial(y, p)
    yc = 1 + rng.poisson(mean_queries - 1, n_users)
    xc = rng.binomial(yc, prop)
    return {"treat": treat, "x": x.astype(float), "y": y.astype(float),
            "xc": xc.astype(float), "yc": yc.astype(float)}


def click_log(n_users: int, seed: int, *, effect: float = 0.0, queries: int = 4,
              ranks: int = 10, t0: float = 1_700_000_000.0, days: float = 14.0
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A long-form impression log and its assignment table (seeded).

    Users alternate control/treatment at random; each issues 1..2*queries queries
    at uniform times over ``days``; clicks fall with rank (1/rank) times the user's
    propensity; a click has a click time and a dwell time.
    """
    rng = np.random.default_rng(seed)
    users = [f"u{i:05d}" for i in range(n_users)]
    variant = np.where(rng.random(n_users) < 0.5, "control", "treatment")
    prop = rng.beta(4, 6, n_users)
    nq = rng.integers(1, 2 * queries, n_users)
    uidx = np.repeat(np.arange(n_users), nq)
    n_imp = len(uidx)
    imp_ts = t0 + rng.random(n_imp) * days * 86400
    first = t0 + rng.random(n_users) * 3600
    imp_ts = np.maximum(imp_ts, first[uidx])
    rows_u = np.repeat(uidx, ranks)
    rank = np.tile(np.arange(1, ranks + 1), n_imp)
    lift = np.where(variant[rows_u] == "treatment", 1 + effect, 1.0)
    p = np.clip(prop[rows_u] / rank * lift, 0, 1)
    clicked = (rng.random(len(rows_u)) < p).astype(int)
    ts = np.repeat(imp_ts, ranks)
    click_ts = np.where(clicked == 1, ts + rng.exponential(8, len(ts)) + rank, np.nan)
    dwell = np.where(clicked == 1, rng.exponential(40, len(ts)), np.nan)
    imp_id = np.repeat(np.arange(n_imp), ranks)
    log = pd.DataFrame({
        "impression_id": [f"i{i}" for i in imp_id],
        "query_id": [f"q{i % 97}" for i in imp_id],
        "rank": rank, "doc_id": [f"d{(i * 7 + r) % 1000}" for i, r in zip(imp_id, rank,
                                                                        strict=True)],
        "clicked": clicked, "user_id": [users[u] for u in rows_u],
        "variant": variant[rows_u], "session_id": [f"s{u}-{int(t // 3600)}" for u, t in
                                                  zip(rows_u, ts, strict=True)],
        "ts": ts, "click_ts": click_ts, "dwell_s": dwell})
    assign = pd.DataFrame({"unit_id": users, "variant": variant, "first_exposure_ts": first})
    return log, assign


def write(df: pd.DataFrame, path: Path) -> Path:
    """Write a frame as CSV or Parquet by the path's suffix."""
    if path.suffix == ".parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)
    return path
