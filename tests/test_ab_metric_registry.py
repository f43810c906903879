"""A/B metrics on the shared Registry: a user's metric, defined here and registered,
runs through ``ab analyze``'s library function (numbers against tea-tasting); records
are built by keyword."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from ab_helpers import click_log, write
from helpers import run_cli
from relkit.metrics.core.options import OptionError
from relkit.metrics.core.registry import Registry
from relkit.metrics.online.ab import users
from relkit.metrics.online.ab.errors import ABError
from relkit.metrics.online.ab.users import Metric


@dataclass(frozen=True)
class DeepClickRate:
    """Share of queries with a click below rank 3: not one of relkit's metrics, and not
    its MetricDef class either, only the Metric protocol's attributes."""

    name: str = "deep_click_rate"
    description: str = "share of queries with a click at rank 4 or lower"
    value: str = "max(CASE WHEN rank > 3 AND clicked > 0 THEN 1 ELSE 0 END)"
    denominator: str = "1"
    needs: tuple[str, ...] = ()
    binary: bool = True
    unit: str = "impression"


@pytest.fixture
def metrics(monkeypatch: pytest.MonkeyPatch) -> Registry[Metric]:
    """relkit's metrics in a registry of the test's own, so the user's metric does not
    outlive the test."""
    reg: Registry[Metric] = Registry("metric", ABError, ignore_case=True)
    reg.register(*users.METRICS.values())
    monkeypatch.setattr(users, "METRICS", reg)
    return reg


def test_the_metrics_are_a_registry() -> None:
    assert isinstance(users.METRICS, Registry)
    assert list(users.METRICS)[:3] == ["ctr@1", "first_page_ctr", "abandonment"]
    assert users.get_metric(" CTR@1 ").name == "ctr@1"    # as before: stripped, any case
    with pytest.raises(ABError, match=r"unknown metric 'nope'; known: ctr@1, "):
        users.get_metric("nope")


def test_every_metric_declares_its_unit() -> None:
    """The unit is each entry's own declaration (a value per impression or per user),
    one of the known units, which are what ``--unit`` takes; not a flag only relkit's
    per-user count sets."""
    from relkit.metrics.online.ab.users import UNITS, per_user

    assert set(UNITS) == {"user", "impression"}
    assert len(users.METRICS) >= 6
    for name, metric in users.METRICS.items():
        assert metric.unit in UNITS, (name, metric.unit)
        assert per_user(metric) == (metric.unit == "user")
    assert [n for n, m in users.METRICS.items() if m.unit == "user"] == ["sessions_per_user"]
    # A user's metric declares its unit the same way (the protocol's attribute).
    assert DeepClickRate().unit in UNITS and not per_user(DeepClickRate())


def test_a_metric_defined_outside_relkit_runs_in_ab_analyze(
        tmp_path: Path, metrics: Registry[Metric]) -> None:
    tt = pytest.importorskip("tea_tasting")
    from relkit.metrics.online.ab.run import AnalyzeOptions, analyze_log

    metrics.register(DeepClickRate())
    log, assign = click_log(400, 11, effect=0.2)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    res = analyze_log(lp, ap, AnalyzeOptions(metrics=["deep_click_rate", "ctr@1"]))
    assert [r.metric for r in res.rows] == ["deep_click_rate", "ctr@1"]
    row = res.rows[0]
    assert row.test == "Welch t, delta method"
    # The oracle: per-user sums by pandas, the ratio of means by tea-tasting.
    per_imp = (log.assign(deep=(log["rank"] > 3) & (log.clicked > 0))
               .groupby(["user_id", "impression_id"]).deep.max().astype(float))
    per_user = per_imp.groupby("user_id").agg(x="sum", y="size")
    table = assign.set_index("unit_id").join(per_user).fillna(0.0).reset_index()
    table["variant"] = (table.variant == "treatment").astype(int)
    ref = tt.Experiment(m=tt.RatioOfMeans("x", "y")).analyze(table)["m"]
    e = row.effect
    for ours, theirs in [(e.control, ref.control), (e.treatment, ref.treatment),
                         (e.delta_low, ref.effect_size_ci_lower),
                         (e.delta_high, ref.effect_size_ci_upper), (row.p, ref.pvalue)]:
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    # the CLI finds it too (in this process), and the table says the same
    code, out, err = run_cli(["ab", "analyze", str(lp), "--assign", str(ap), "-m",
                              "deep_click_rate", "--format", "json"])
    assert code == 0, err
    assert json.loads(out)[0]["p"] == pytest.approx(row.p, rel=1e-12)


def test_a_metric_needing_a_column_the_log_lacks_is_named(
        tmp_path: Path, metrics: Registry[Metric]) -> None:
    from relkit.metrics.online.ab.run import AnalyzeOptions, analyze_log

    metrics.register(DeepClickRate(name="scroll_rate", needs=("scroll_px",)))
    log, assign = click_log(40, 1)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    with pytest.raises(ABError, match="metric scroll_rate needs the column.s. scroll_px"):
        analyze_log(lp, ap, AnalyzeOptions(metrics=["scroll_rate"]))


def test_analyze_log_raises_for_an_option_it_cannot_take(tmp_path: Path) -> None:
    # the library raises what the CLI prints as exit 2, before reading any file
    from relkit.metrics.online.ab.run import AnalyzeOptions, analyze_log

    missing = tmp_path / "missing.parquet"
    with pytest.raises(OptionError, match="Invalid value for --unit: impression: the arms"):
        analyze_log(missing, missing, AnalyzeOptions(unit="impression"))
    with pytest.raises(OptionError, match="--cuped-column: expected METRIC=COLUMN"):
        analyze_log(missing, missing, AnalyzeOptions(cuped_columns=["bad"]))


def test_effects_are_built_by_keyword() -> None:
    from relkit.metrics.online.ab.analysis import MetricRow
    from relkit.metrics.online.ab.effect import Effect
    from relkit.metrics.online.ab.srm import SRMResult

    values = dict(n_control=3, n_treatment=4, control=0.1, treatment=0.2, delta=0.1,
                  delta_low=0.0, delta_high=0.2, rel=1.0, rel_low=0.5, rel_high=1.5,
                  p=0.04, se=0.05, df=5.0, statistic=2.0)
    e = Effect(**values)  # type: ignore[arg-type]
    assert e.variance_reduction is None and e.delta_high == 0.2
    with pytest.raises(TypeError):
        Effect(*values.values())  # type: ignore[misc]
    with pytest.raises(TypeError):
        MetricRow("m", "c", "t", e, "Welch t", 0.04)  # type: ignore[misc]
    with pytest.raises(TypeError):
        SRMResult(("a", "b"), (1, 2), (1.5, 1.5), 0.3, 1, 0.6)  # type: ignore[misc]


@dataclass(frozen=True)
class LegacyPerUser:
    """A user's metric written to the protocol before ``unit``: a ``per_user`` flag."""

    name: str = "legacy_sessions"
    description: str = "a per-user count declared the old way"
    value: str = "1"
    denominator: str = "1"
    needs: tuple[str, ...] = ()
    binary: bool = False
    per_user: bool = True


def test_a_metric_with_the_old_per_user_flag_keeps_its_meaning() -> None:
    """Adding ``unit`` to the protocol must not break a user's metric that declared
    ``per_user`` (an AttributeError before the fallback)."""
    assert users.per_user(LegacyPerUser())
    assert not users.per_user(LegacyPerUser(per_user=False))


def test_metricdef_keeps_the_per_user_keyword_and_refuses_an_unknown_unit() -> None:
    """``MetricDef(per_user=True)`` (docs/ab.md's way before ``unit``) still declares a
    per-user count; a mistyped unit is an error, not a quiet per-impression metric;
    ``UNITS`` is importable from ``analysis`` as before."""
    from relkit.metrics.online.ab.analysis import UNITS
    from relkit.metrics.online.ab.users import MetricDef

    assert set(UNITS) == {"user", "impression"}
    old = MetricDef(name="s", description="d", value="", denominator="", per_user=True)
    assert old.unit == "user" and old.per_user and users.per_user(old)
    new = MetricDef(name="c", description="d", value="1", denominator="1")
    assert new.unit == "impression" and new.per_user is False
    with pytest.raises(ABError, match="unit must be one of user, impression; got 'users'"):
        MetricDef(name="t", description="d", value="1", denominator="1", unit="users")
    with pytest.raises(ABError, match="contradicts"):
        MetricDef(name="t", description="d", value="1", denominator="1", unit="impression",
                  per_user=True)
    with pytest.raises(ABError, match="got 'users'"):
        users.per_user(DeepClickRate(unit="users"))
