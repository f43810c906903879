"""The per-user sums of `relkit ab`'s metrics on a hand-computed inline log."""

from __future__ import annotations

import re

import pytest

from relkit.metrics.online.ab.errors import ABError
from relkit.metrics.online.ab.users import METRICS, Names, get_metric, user_table

duckdb = pytest.importorskip("duckdb")

# user, impression, rank, clicked, page, ts, click_ts, dwell_s, session
LOG = [
    # u1, imp a: click at rank 1 (dwell 40: good), first click 5 s after
    ("u1", "a", 1, 1, 1, 100.0, 105.0, 40.0, "s1"),
    ("u1", "a", 2, 0, 1, 100.0, None, None, "s1"),
    # u1, imp b: no click (abandoned)
    ("u1", "b", 1, 0, 1, 200.0, None, None, "s1"),
    ("u1", "b", 2, 0, 1, 200.0, None, None, "s1"),
    # u1, imp c: page 2 only, click at rank 1 of page 2 (not first-page), dwell 10
    ("u1", "c", 1, 1, 2, 300.0, 312.0, 10.0, "s2"),
    # u2, imp d: click at rank 3 (dwell 31: good), 2 s after; and rank 2 at 4 s
    ("u2", "d", 1, 0, 1, 50.0, None, None, "s3"),
    ("u2", "d", 2, 1, 1, 50.0, 54.0, 5.0, "s3"),
    ("u2", "d", 3, 1, 1, 50.0, 52.0, 31.0, "s3"),
]
ASSIGN = [("u1", "control"), ("u2", "treatment"), ("u3", "treatment")]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute("CREATE TABLE log (user_id VARCHAR, impression_id VARCHAR, rank BIGINT, "
              "clicked BIGINT, page BIGINT, ts DOUBLE, click_ts DOUBLE, dwell_s DOUBLE, "
              "session_id VARCHAR)")
    c.executemany("INSERT INTO log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", LOG)
    c.execute("CREATE TABLE assign (unit_id VARCHAR, variant VARCHAR)")
    c.executemany("INSERT INTO assign VALUES (?, ?)", ASSIGN)
    return c


def test_per_user_sums_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    t = user_table(con, "log", "assign", [get_metric(m) for m in METRICS])
    assert t.users == ["u1", "u2", "u3"]
    assert t.variant == ["control", "treatment", "treatment"]
    want = {  # (u1, u2, u3): numerator, denominator
        "ctr@1": ([2, 0, 0], [3, 1, 0]),            # a and c clicked at rank 1
        "first_page_ctr": ([1, 1, 0], [3, 1, 0]),   # c's click is on page 2
        "abandonment": ([1, 0, 0], [3, 1, 0]),      # b
        "good_click_rate": ([1, 1, 0], [3, 1, 0]),  # a (40 s), d (31 s); c only 10 s
        "time_to_first_click": ([5 + 12, 2, 0], [2, 1, 0]),  # a 5 s, c 12 s; d min(4, 2)
        "sessions_per_user": ([2, 1, 0], [1, 1, 1]),
    }
    for m, (num, den) in want.items():
        assert t.num[m].tolist() == num, m
        assert t.den[m].tolist() == den, m
    # the per-impression squares (naive per-impression variance): 5^2 + 12^2, 2^2
    assert t.sq["time_to_first_click"].tolist() == [169, 4, 0]


def test_good_dwell_is_configurable(con: duckdb.DuckDBPyConnection) -> None:
    t = user_table(con, "log", "assign", [get_metric("good_click_rate")], good_dwell=5)
    assert t.num["good_click_rate"].tolist() == [2, 1, 0]   # c (10 s) counts now


def test_until_keeps_the_impressions_and_users_seen_by_then(
        con: duckdb.DuckDBPyConnection) -> None:
    t = user_table(con, "log", "assign", [get_metric("ctr@1")], until="150")
    assert t.users == ["u1", "u2"]        # no first_exposure_ts: users with an impression
    assert t.den["ctr@1"].tolist() == [1, 1]


def test_units_must_agree_with_the_assignment(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM assign WHERE unit_id = 'u2'")
    names = Names("clicks.csv", "assign.csv")
    with pytest.raises(ABError, match="^clicks.csv: user 'u2' is not in assign.csv$"):
        user_table(con, "log", "assign", [get_metric("ctr@1")], files=names)
    con.execute("INSERT INTO assign VALUES ('u2', 'treatment')")
    con.execute("ALTER TABLE log ADD COLUMN variant VARCHAR")
    con.execute("UPDATE log SET variant = CASE WHEN user_id = 'u1' THEN 'control' "
                "ELSE 'control' END")
    with pytest.raises(ABError, match="^clicks.csv: user 'u2' is logged under variant "
                       "'control' but assign.csv assigns 'treatment'$"):
        user_table(con, "log", "assign", [get_metric("ctr@1")], files=names)


@pytest.mark.parametrize(("edit", "why"), [
    # u2's impression d renamed a: the id numbers page views per user
    ("UPDATE log SET impression_id = 'a' WHERE impression_id = 'd'", "users 'u1' and 'u2'"),
    # u1's impression c (session s2) renamed a (session s1): numbered per session
    ("UPDATE log SET impression_id = 'a' WHERE impression_id = 'c'",
     "sessions 's1' and 's2'"),
    # ...and without the session column, two page views of one user: rank 1 twice
    ("UPDATE log SET impression_id = 'a', session_id = 's1' WHERE impression_id = 'c'",
     "two page views (rank 1 twice)"),
])
def test_an_impression_id_of_two_page_views_is_refused(con: duckdb.DuckDBPyConnection,
                                                       edit: str, why: str) -> None:
    # Grouped by the id alone, the page views merged: u1 and u2 became one user with
    # wrong sums, and the analysis went on with exit 0.
    con.execute(edit)
    want = f"^clicks.csv: impression_id 'a' is used by {re.escape(why)}"
    with pytest.raises(ABError, match=want):
        user_table(con, "log", "assign", [get_metric("ctr@1")],
                   files=Names("clicks.csv", "assign.csv"))


def test_a_metric_without_its_columns_is_named(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("ALTER TABLE log DROP COLUMN dwell_s")
    with pytest.raises(ABError, match="good_click_rate needs the column.*dwell_s"):
        user_table(con, "log", "assign", [get_metric("good_click_rate")])
    with pytest.raises(ABError, match="unknown metric 'ctr@5'"):
        get_metric("ctr@5")
