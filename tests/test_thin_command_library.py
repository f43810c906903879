"""The library functions that thinned command bodies (issue 34, "Thin commands"): their
decisions, without the CLI.

Each command's output is held by its own tests and the CLI battery; these check the
decisions the work made when it moved out of the command: which option a usage error
names, which options go together, how a default name is chosen, what exit status a
run ends with.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from relkit.metrics.core.errors import FormatError
from relkit.metrics.core.options import OptionError


def _option(exc: pytest.ExceptionInfo[OptionError]) -> str | None:
    return exc.value.option


# -- the usage error without an option (click's "Invalid value: ...") --------------------

def test_an_option_error_may_name_no_option() -> None:
    assert str(OptionError(None, "give -o")) == "Invalid value: give -o"
    assert str(OptionError("--x", "bad")) == "Invalid value for --x: bad"


# -- relkit assign ------------------------------------------------------------------------

def test_assign_checks_name_the_option_at_fault() -> None:
    from relkit.judging.staffing import Staffing, check

    with pytest.raises(OptionError) as e:
        check(Staffing(assessors=["ann"], order="alphabetical"))
    assert _option(e) == "--order" and "'alphabetical'" in e.value.message
    with pytest.raises(OptionError) as e:
        check(Staffing())
    assert _option(e) == "ASSESSORS"
    with pytest.raises(OptionError) as e:
        check(Staffing(assessors=["ann", "bob"], leads=["bob", "ann"]))
    assert _option(e) == "--lead" and e.value.message.startswith("ann, bob: both")
    check(Staffing(leads=["lee"]))  # a lead alone is enough


def test_gold_pairs_are_read_once_each(tmp_path: Path) -> None:
    from relkit.judging.staffing import read_gold

    good = tmp_path / "gold.qrels"
    good.write_text("1 0 d1 2\n1 0 d2 0\n2 0 d1 1\n")
    assert read_gold(good) == {("1", "d1"): 2, ("1", "d2"): 0, ("2", "d1"): 1}
    twice = tmp_path / "twice.qrels"
    twice.write_text("1 0 d1 2\n1 0 d1 1\n")
    with pytest.raises(FormatError, match=r"twice.qrels:2: expected each gold pair once"):
        read_gold(twice)
    empty = tmp_path / "empty.qrels"
    empty.write_text("# nothing\n")
    with pytest.raises(FormatError, match="found none"):
        read_gold(empty)


def test_assign_says_adaptive_pools_give_a_quota() -> None:
    from relkit.judging.staffing import summary_line

    def summary(adaptive: bool, n: int) -> SimpleNamespace:
        return SimpleNamespace(assessors=n, assignments=4, items=10, overlap_pairs=2,
                               gold_items=1, adaptive=adaptive)

    assert summary_line(summary(False, 1)) == (
        "relkit: 4 assignments, 10 items for 1 assessor (2 pairs judged twice, 1 gold items)")
    assert "a quota of 10 judgments for 2 assessors (adaptive pool" in summary_line(
        summary(True, 2))


# -- relkit pool --------------------------------------------------------------------------

def test_from_is_cals_parameter_only() -> None:
    from relkit.judging.poolruns import cal_from

    params: dict[str, str] = {}
    cal_from("cal", "collection", params)
    assert params == {"from": "collection"}
    with pytest.raises(OptionError) as e:
        cal_from("bandit", "runs", {})
    assert _option(e) == "--from" and "cal strategy" in e.value.message
    with pytest.raises(OptionError, match="expected runs or collection; got 'docs'"):
        cal_from("cal", "docs", {})


def test_a_default_pool_name_is_not_taken() -> None:
    from relkit.judging.poolruns import free_name

    store = SimpleNamespace(pool_names=lambda: ["depth-10", "depth-10-2", "bandit-50-10"])
    assert free_name(store, "depth-10") == "depth-10-3"  # type: ignore[arg-type]
    assert free_name(store, "depth-20") == "depth-20"  # type: ignore[arg-type]


def test_a_pool_request_is_checked_before_any_run_is_read(tmp_path: Path) -> None:
    from relkit.judging.poolruns import PoolRequest, pool_runs

    def never() -> None:
        raise AssertionError("the store was opened")

    missing = [tmp_path / "no-such.run"]   # never read: the options fail first
    cases = [(PoolRequest(runs=missing, strategy="dpeth"), "--strategy"),
             (PoolRequest(runs=missing, docs=tmp_path / "d.jsonl"), "--docs"),
             (PoolRequest(runs=missing, budget_of=["1=5"], total=10), "--budget-of"),
             (PoolRequest(runs=missing, source_from="runs"), "--from")]
    for request, option in cases:
        with pytest.raises(OptionError) as e:
            pool_runs(request, never, print, None)  # type: ignore[arg-type]
        assert _option(e) == option, request


# -- relkit pool-sample -------------------------------------------------------------------

def test_pool_sample_options_go_together(tmp_path: Path) -> None:
    from relkit.pooling.sampling import SampleRequest, check

    pool, out = tmp_path / "pool.tsv", tmp_path / "s.tsv"
    check(SampleRequest(pool=pool, output=out))
    check(SampleRequest(pool=pool, prels=out, qrels=pool))
    check(SampleRequest(pool=pool, output=out, for_="ppi", budget=5, design="topics"))
    refused = {
        "give -o (the sample) or --prels (with --qrels)": SampleRequest(pool=pool),
        "--prels and --qrels go together": SampleRequest(pool=pool, prels=out),
        "--budget and --design go with --for ppi": SampleRequest(pool=pool, output=out,
                                                                 budget=3),
        "--qrels and --prels are for --for inferred": SampleRequest(
            pool=pool, output=out, for_="ppi", budget=5, qrels=pool),
        "give -o (the sample to judge)": SampleRequest(pool=pool, for_="ppi", budget=5),
        "--for ppi needs --budget (human labels to draw)": SampleRequest(
            pool=pool, output=out, for_="ppi"),
    }
    for message, request in refused.items():
        with pytest.raises(OptionError) as e:
            check(request)
        assert e.value.option is None and e.value.message == message
    with pytest.raises(OptionError) as e:
        check(SampleRequest(pool=pool, output=out, for_="xinf"))
    assert _option(e) == "'--for'"


# -- relkit judges-run --------------------------------------------------------------------

def test_prices_are_two_finite_non_negative_numbers() -> None:
    from relkit.judging.autojudge.job import parse_price

    assert parse_price(None) is None
    assert parse_price("0.15,0.6") == (0.15, 0.6)
    for bad in ("0.15", "1,2,3", "a,b", "-1,2", "inf,1", "nan,1"):
        with pytest.raises(OptionError) as e:
            parse_price(bad)
        assert _option(e) == "--price", bad


def test_judges_run_options_by_backend() -> None:
    from relkit.judging.autojudge.job import JudgesRun, check

    def refused(**kw: object) -> str | None:
        with pytest.raises(OptionError) as e:
            check(JudgesRun(**kw))  # type: ignore[arg-type]
        return e.value.option

    assert refused(backend="llm") == "--backend"
    assert refused(model="m") == "--endpoint"              # chat needs both
    assert refused(endpoint="http://h/v1") == "--model"
    assert refused(endpoint="ftp://h/v1", model="m") == "--endpoint"
    assert refused(backend="supervised", model="m") == "--model"
    assert refused(backend="supervised", assessor=" ") == "--assessor"
    assert refused(backend="supervised", key_env="A=B") == "--key-env"
    assert refused(backend="supervised", max_cost=1.0) == "--max-cost"
    assert check(JudgesRun(backend="supervised", price="1,2")) == ((1.0, 2.0), None)


def test_a_judges_run_exit_status() -> None:
    from relkit.judging.autojudge.job import Outcome

    def status(stopped: str | None, failed: list[object]) -> int:
        rep = SimpleNamespace(stopped=stopped, failed=failed)
        return Outcome(rep, 0, "p", "m", None, None).exit_code  # type: ignore[arg-type]

    assert status(None, []) == 0
    assert status("max-cost", []) == 0       # a budget reached: a clean stop
    assert status(None, [(("1", "d"), "timeout")]) == 1
    assert status("interrupted", [(("1", "d"), "timeout")]) == 130


def test_a_judges_run_report_lists_ten_unparsed_answers_and_counts_the_rest() -> None:
    from relkit.judging.autojudge.job import Outcome, report_lines

    answers = {("1", f"d{i:02d}"): SimpleNamespace(status="unparsed") for i in range(12)}
    rep = SimpleNamespace(cost=None, cached=0, requests=12, tokens_in=5, tokens_out=6,
                          answers=answers, stopped=None, failed=[], left=0)
    lines = report_lines(Outcome(rep, 12, "p", "m", None, None))  # type: ignore[arg-type]
    assert lines[1].startswith("relkit: 12 answers gave no grade on the scale")
    assert "1/d09 (unparsed) and 2 more (--answers FILE lists them all)" in lines[1]
    assert lines[-1] == "relkit: m: no new grades to import"


# -- relkit interleave simulate -----------------------------------------------------------

def test_simulate_grid_and_methods() -> None:
    from relkit.metrics.online.interleave.simjob import parse_grid, parse_methods

    assert parse_grid("100, 10,10,1") == [1, 10, 100]
    for bad in ("ten", "", "0,5"):
        with pytest.raises(OptionError) as e:
            parse_grid(bad)
        assert _option(e) == "--impressions"
    assert parse_methods("balanced, team-draft") == ["balanced", "team-draft"]
    with pytest.raises(OptionError, match="did you mean 'balanced'"):
        parse_methods("balancd")
    with pytest.raises(OptionError, match="at least one method"):
        parse_methods(" , ")


def test_simulated_runs_need_distinct_names() -> None:
    from relkit.metrics.online.interleave.simjob import SimRequest, run_labels

    q = Path("q")
    assert run_labels(SimRequest(runs=[Path("a.run"), Path("b.run")], qrels=q)) is None
    assert run_labels(SimRequest(runs=[Path("a"), Path("b")], qrels=q, names="x, y")) == [
        "x", "y"]
    cases = [(SimRequest(runs=[Path("a.run")], qrels=q), "RUNS"),
             (SimRequest(runs=[Path("x/a.run"), Path("y/a.run")], qrels=q), "RUNS"),
             (SimRequest(runs=[Path("a"), Path("b")], qrels=q, names="x"), "--names"),
             (SimRequest(runs=[Path("a"), Path("b")], qrels=q, names="x,x"), "--names")]
    for request, option in cases:
        with pytest.raises(OptionError) as e:
            run_labels(request)
        assert _option(e) == option, request


def test_a_missing_file_comes_before_any_bad_option(tmp_path: Path) -> None:
    from relkit.metrics.core.errors import InputError
    from relkit.metrics.online.interleave.simjob import SimRequest, simulate_runs

    with pytest.raises(InputError, match="no such file"):
        simulate_runs(SimRequest(runs=[tmp_path / "a", tmp_path / "b"], qrels=tmp_path / "q",
                                 methods="nope", preset="nope"))


# -- relkit clicks simulate ---------------------------------------------------------------

def test_clicks_simulate_needs_one_source_of_users(tmp_path: Path) -> None:
    from relkit.metrics.core.errors import InputError
    from relkit.metrics.online.clickmodels.simlog import simulate_log

    run = tmp_path / "a.run"
    run.write_text("1 Q0 d1 1 1.0 a\n")
    out = tmp_path / "log.parquet"
    with pytest.raises(InputError, match="no such file"):
        simulate_log([run, tmp_path / "b.run"], out, preset="nope")
    for kw, option in (({}, "--model"), ({"preset": "x", "qrels": run}, "--preset"),
                       ({"preset": "perfect"}, "--qrels")):
        with pytest.raises(OptionError) as e:
            simulate_log([run], out, **kw)  # type: ignore[arg-type]
        assert _option(e) == option, kw
    assert not out.exists()


# -- relkit import judgments, status ------------------------------------------------------

def test_import_checks_kind_assessor_and_files(tmp_path: Path) -> None:
    from relkit.judging.importfiles import ImportRequest, check

    f = tmp_path / "ann.qrels"
    f.write_text("1 0 d1 1\n")
    check(ImportRequest(files=[f], kind="automatic", assessor="umbrela"))
    for request, option in ((ImportRequest(files=[f], kind="robot"), "--kind"),
                            (ImportRequest(files=[f], assessor=" "), "--assessor"),
                            (ImportRequest(files=[f, tmp_path / "bob.qrels"]), "FILES")):
        with pytest.raises(OptionError) as e:
            check(request)
        assert _option(e) == option


def test_import_with_one_assessor_refuses_a_table_of_several(tmp_path: Path) -> None:
    from relkit.judging.importfiles import ImportRequest, read_files

    table = tmp_path / "crowd.csv"
    table.write_text("assessor,topic,doc,grade\nw1,1,d1,1\nw2,1,d1,0\n")
    assert {x.assessor for x in read_files(ImportRequest(files=[table], quiet=True))} == {
        "w1", "w2"}
    with pytest.raises(OptionError, match="names 2 assessors"):
        read_files(ImportRequest(files=[table], quiet=True, assessor="w"))


def test_status_formats() -> None:
    from relkit.judging.statusview import check_format

    for fmt in ("text", "tsv", "json"):
        check_format(fmt)
    with pytest.raises(OptionError) as e:
        check_format("csv")
    assert _option(e) == "--format" and e.value.message == "expected one of text, tsv, json"


# -- relkit compare ----------------------------------------------------------------------

def test_compare_checks_options_before_reading(tmp_path: Path) -> None:
    from relkit.metrics.compare.command import CompareRequest, check, system_names
    from relkit.metrics.compare.errors import CompareError

    q, a, b = tmp_path / "q", tmp_path / "a.run", tmp_path / "b.run"   # never read
    assert check(CompareRequest(qrels=q, runs=[a, b], fmt="csv")).name == "csv"
    for kw, option in (({"fmt": "xml"}, "--format"), ({"test": "z"}, "--test"),
                       ({"ci_method": "normal"}, "--ci-method"), ({"alpha": 1.0}, "--alpha"),
                       ({"ci": 0.0}, "--ci"), ({"measure": ["nDGC@10"]}, "-m")):
        with pytest.raises(OptionError) as e:
            check(CompareRequest(qrels=q, runs=[a, b], **kw))  # type: ignore[arg-type]
        assert _option(e) == option, kw
    with pytest.raises(OptionError, match="give at least two RUN files") as e:
        check(CompareRequest(qrels=q, runs=[a]))
    assert _option(e) is None
    with pytest.raises(OptionError, match="not two runs"):
        check(CompareRequest(qrels=q, runs=[Path("-"), Path("-")]))
    with pytest.raises(OptionError, match="not both"):
        check(CompareRequest(qrels=Path("-"), runs=[a, Path("-")]))
    assert system_names(CompareRequest(qrels=q, runs=[a, b])) == ["a", "b"]
    with pytest.raises(CompareError, match="the same run file is given twice"):
        system_names(CompareRequest(qrels=q, runs=[a, a]))


# -- relkit systems run, team init --------------------------------------------------------

def test_systems_run_checks_options_before_reading(tmp_path: Path) -> None:
    from relkit.corpora.systems.errors import SystemsError
    from relkit.corpora.systems.job import SystemRequest, run_system

    missing = tmp_path / "none"
    for kw, option in (({"system": "bm52"}, "--system"), ({"depth": 0}, "--depth"),
                       ({"tag": "two words"}, "--tag"), ({"field": "body"}, "--field"),
                       ({"stemmer": "lovins"}, "--stemmer")):
        with pytest.raises(OptionError) as e:
            run_system(SystemRequest(docs=missing, topics=missing, **kw))  # type: ignore[arg-type]
        assert _option(e) == option, kw
    with pytest.raises(SystemsError, match="not both"):
        run_system(SystemRequest(docs=missing, collection="sample"))
    with pytest.raises(SystemsError, match="no such file"):
        run_system(SystemRequest(docs=missing, topics=missing))


def test_team_init_report_names_every_kind_of_login() -> None:
    from relkit.judging.store.access.teaminit import closing_line, report_lines

    rep = SimpleNamespace(created=[("ann", "p_ann")], existing=["p_bob"],
                          unfit=[("x y", "assessor", "a space")], automatic=["umbrela"],
                          serve_logins=[], still_open=[], tables=7, prefix="p_")
    assert report_lines(rep) == [
        "relkit: created login p_ann for ann", "relkit: refreshed 1 existing login",
        "relkit: warning: no login for assessor 'x y': the name cannot be a PostgreSQL "
        "role (a space); the others got theirs",
        "relkit: no login for automatic assessors (umbrela): the owner imports their "
        "judgments"]
    assert closing_line(rep).startswith("relkit: row-level security on 7 tables (role "
                                        "prefix 'p_')")
