"""Each use of another library's private names steps aside when the name is gone.

relkit borrows private names of Textual, textual-serve, Typer and PySpark (the list:
docs/maintaining.md, "Borrowed internals"). Here each name is taken away (or, where the
library itself still needs it to run, relkit's list of the names it needs gets one
that does not exist), and the test checks the one warning naming the library and the
workaround, and that relkit still does its job without the workaround. ``make canary``
runs these against the libraries' newest releases.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.metrics.core import borrowed
from tui_helpers import Clock, drive, read_and_press, screen

pytestmark = pytest.mark.private_api
Warn = borrowed.BorrowedInternalWarning


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(borrowed, "_given_up", set())
    with warnings.catch_warnings():
        warnings.simplefilter("always", Warn)   # count every one, not once per place
        yield


def one_warning(seen: pytest.WarningsRecorder, library: str, workaround: str) -> None:
    ours = [w for w in seen if issubclass(w.category, Warn)]
    assert len(ours) == 1, [str(w.message) for w in ours]
    text = str(ours[0].message)
    version = __import__("importlib.metadata").metadata.version(library)
    assert text.startswith(f"relkit: {library} {version} has no ") and workaround in text, text


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "s.db")
    docs = [Document(f"d{i}", f"Title {i}", f"solar panel {i}") for i in range(6)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def judge_with_modals(store: Store) -> None:
    """Open a topic, open and close the help twice (the footer composes its keys each
    time), grade two."""
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        for key in ("question_mark", "escape") * 2:
            await pilot.press(key)
            await pilot.pause()
        await read_and_press(pilot, clock, "2", "1")
        assert "saved: 1" in str(screen(app).query_one("#state").render())

    drive(store, steps, size=(100, 40))


# -- Textual ---------------------------------------------------------------------------
@pytest.mark.slow   # (a judging app run: ~10 s on a busy 2-core machine)
def test_the_styles_cache_plug_steps_aside(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from relkit.judging.tui import leaks

    monkeypatch.setitem(sys.modules, "textual._styles_cache", None)   # the module moved
    with pytest.warns(Warn) as seen:
        leaks.plug()
        leaks.plug()
    one_warning(seen, "textual", leaks.CACHE_PLUG)
    with warnings.catch_warnings():   # (the app plugs too: said once a process) and the
        warnings.simplefilter("error", Warn)   # footer's plug, which works, says nothing
        judge_with_modals(project(tmp_path))


def test_the_styles_cache_plug_steps_aside_when_the_cache_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual._styles_cache import StylesCache

    from relkit.judging.tui import leaks

    monkeypatch.delattr(StylesCache, "get_inner_outer")   # (its cache is Textual's own)
    with pytest.warns(Warn) as seen:
        leaks.plug()
    one_warning(seen, "textual", leaks.CACHE_PLUG)
    assert "get_inner_outer" not in StylesCache.__dict__   # nothing put in its place


@pytest.mark.slow
def test_the_footer_plug_steps_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from relkit.judging.tui import leaks

    monkeypatch.setattr(leaks, "WATCHERS", "__watchers_moved")   # Textual keeps them elsewhere
    with pytest.warns(Warn) as seen:
        judge_with_modals(project(tmp_path))
    one_warning(seen, "textual", leaks.FOOTER_PLUG)


def test_the_modal_styles_warm_up_steps_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.app import App
    from textual.dom import DOMNode

    from relkit.judging.tui.modals import register_styles

    app: App[object] = App()
    before = dict(app.stylesheet.source)
    monkeypatch.delattr(DOMNode, "_get_default_css")
    with pytest.warns(Warn) as seen:
        register_styles(app)
    one_warning(seen, "textual", "parsing the modals' styles ahead")
    assert app.stylesheet.source == before   # left to Textual, which parses them on mount


def test_rowlist_is_an_option_list_when_textual_moved_its_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from textual.app import App, ComposeResult

    from relkit.judging.tui import rowlist

    monkeypatch.setattr(rowlist, "NEEDS", (*rowlist.NEEDS, "_update_lines_moved"))
    rowlist.lazy_ok.cache_clear()
    made: list[int] = []

    def maker(i: int) -> Any:
        return lambda: made.append(i) or f"row {i}"

    class Rows(App[None]):
        def compose(self) -> ComposeResult:
            yield rowlist.RowList(*[rowlist.LazyOption(maker(i), id=f"r{i}")
                                    for i in range(300)])

    async def main() -> tuple[int, str | None]:
        async with Rows().run_test(size=(40, 10)) as pilot:
            rows = pilot.app.query_one(rowlist.RowList)
            rows.focus()
            await pilot.press("down", "down", "end")
            await pilot.pause()
            return rows.highlighted or 0, rows.get_option_at_index(299).prompt

    try:
        with pytest.warns(Warn) as seen:
            highlighted, last = asyncio.run(main())
        one_warning(seen, "textual", rowlist.WORKAROUND)
        assert len(made) == 300          # every row built at once, as OptionList does
        assert highlighted == 299 and last == "row 299"
    finally:
        monkeypatch.undo()
        rowlist.lazy_ok.cache_clear()


def test_keys_mirror_textuals_longest_escape_sequence() -> None:
    # judging/serve/keys.py counts keys as Textual's parser splits them: its bound on an
    # escape sequence is a copy of Textual's private constant.
    from textual import _xterm_parser

    from relkit.judging.serve.keys import MAX_SEQUENCE

    assert _xterm_parser._MAX_SEQUENCE_SEARCH_THRESHOLD == MAX_SEQUENCE


# -- Typer -----------------------------------------------------------------------------
def test_the_plain_coercion_steps_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import typer.core as core

    from helpers import ROOT, run_cli
    from relkit.metrics.eval import typer_coercion

    own = getattr(core.build_runtime_param, "full", core.build_runtime_param)
    monkeypatch.setattr(core, "build_runtime_param", own)   # as before relkit's CLI
    monkeypatch.setitem(sys.modules, "typer._coercion", None)   # the module moved
    with pytest.warns(Warn) as seen:
        typer_coercion._plain_typer_coercion()
    one_warning(seen, "typer", "converting plain values without pydantic")
    assert core.build_runtime_param is own   # typer's own conversion, untouched
    sample = ROOT / "corpora" / "sample"
    code, out, err = run_cli(["eval", "-m", "P@5", str(sample / "qrels.txt"),
                              str(sample / "runs" / "bm25.txt")])
    assert (code, err) == (0, "") and out.split()[:2] == ["P_5", "all"]


# -- textual-serve ---------------------------------------------------------------------
@pytest.mark.parametrize("owner, name", [("AppService", "_open_app_process"),
                                         ("AppService", "_build_environment"),
                                         ("Server", "_make_app")])
def test_serve_refuses_in_one_line_without_textual_serves_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, owner: str, name: str) -> None:
    # No safe fallback: textual-serve's own process start would run the app for nobody
    # in particular. So `relkit serve` refuses at start, in one line, exit 1.
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    from helpers import run_cli
    from relkit.judging.serve.warm import missing_internals

    assert missing_internals() is None
    monkeypatch.delattr({"AppService": AppService, "Server": Server}[owner], name)
    assert missing_internals() == f"{owner}.{name}"
    code, out, err = run_cli(["serve", "--db", str(tmp_path / "none.db")])
    assert code == 1 and out == "", err
    assert err.count("\n") == 1 and f"has no {owner}.{name}" in err, err
    assert not (tmp_path / "none.db").exists()


# -- PySpark ---------------------------------------------------------------------------
def test_run_globs_step_aside_without_sparks_jvm_handles() -> None:
    from relkit.metrics.spark.inputs import GLOBS, RunInput, expand

    session: Any = SimpleNamespace(sparkContext=SimpleNamespace())   # no _jvm, no _jsc
    with pytest.warns(Warn) as seen:
        got = expand(session, ["runs/a.txt", "hdfs://x/runs/b.parquet"])
    one_warning(seen, "pyspark", GLOBS)
    assert got == [RunInput("runs/a.txt", "runs/a.txt"),
                   RunInput("hdfs://x/runs/b.parquet", "hdfs://x/runs/b.parquet")]


def test_the_quiet_jvm_start_steps_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    pyspark = pytest.importorskip("pyspark")
    from relkit.metrics.spark import session

    started: list[object] = []
    monkeypatch.setattr("pyspark.java_gateway.launch_gateway",
                        lambda *a, **k: started.append(a))
    monkeypatch.delattr(pyspark.SparkContext, "_ensure_initialized")
    with pytest.warns(Warn) as seen:
        session._launch_quietly("local[1]", "t", {})
    one_warning(seen, "pyspark", session.QUIET_JVM)
    assert started == []   # left to SparkSession.builder, which starts its JVM itself


def test_a_new_spark_context_is_assumed_without_the_private_flag(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from relkit.metrics.spark import session

    class Context:
        pass

    with pytest.warns(Warn) as seen:
        assert session._no_context(Context) is True   # its master is checked: safe
    one_warning(seen, "pyspark", "skipping the master's check")
    Context._active_spark_context = object()  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("error", Warn)
        assert session._no_context(Context) is False
