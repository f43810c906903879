"""Engines behind one door: the registry, third-party engines by entry point, the
chain click models fitted from any engine's sums, and no string imports left."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from helpers import ROOT
from relkit.metrics.core.engines import ENGINES, GROUP, Engine, EngineError
from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator

QRELS = "".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 6) for d in range(8))
RUN = "".join(f"{t} Q0 d{d} {r} {10 - r} fake\n" for t in range(1, 6)
              for r, d in enumerate((3, 1, 4, 7, 5, 9), 1))

# A third-party engine, as a package would ship it: evaluate through the evaluator's
# public per-topic code, counting its calls so the test sees that it ran.
PLUGIN = '''
from relkit.metrics.data import Run

CALLS = []


class FakeEngine:
    name = "fake"

    def read_qrels(self, source, master):
        from relkit.metrics.data import Qrels
        return Qrels.coerce(source)

    def evaluate(self, evaluator, runs, zscores=None):
        out = []
        for run in runs:
            run = Run.coerce(run)
            CALLS.append(str(run.source))
            topics, _codes, missing, values = evaluator.per_topic(run)
            out.append((str(run.source),
                        evaluator.finish(run.name, topics, missing, values, zscores)))
        return out

    def em_sums(self, model, sessions, theta, into):
        raise NotImplementedError

    def read_click_log(self, path, *, mapping=None, master=None):
        raise NotImplementedError


class NotAnEngine:
    name = "broken"


class RaisesInInit(FakeEngine):
    def __init__(self):
        raise RuntimeError("no cluster configured")


class RaisesInName(FakeEngine):
    @property
    def name(self):
        raise KeyError("name")
'''


def _dist(tmp: Path, entries: dict[str, str]) -> None:
    """A module and a dist-info with ``entries`` in the group relkit.engines, in ``tmp``."""
    (tmp / "relkit_fake_engine.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp / "relkit_fake_engine-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: relkit-fake-engine\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fake engine's distribution on sys.path; the registry as it was afterwards."""
    _dist(tmp_path, {"fake": "relkit_fake_engine:FakeEngine",
                     "broken": "relkit_fake_engine:NotAnEngine",
                     "missing": "relkit_no_such_module:Engine",
                     "badinit": "relkit_fake_engine:RaisesInInit",
                     "badname": "relkit_fake_engine:RaisesInName"})
    monkeypatch.syspath_prepend(str(tmp_path))
    ENGINES.load()
    items, keys = dict(ENGINES._items), dict(ENGINES._keys)
    try:
        yield tmp_path
    finally:
        ENGINES._items, ENGINES._keys = items, keys
        sys.modules.pop("relkit_fake_engine", None)


def test_built_in_engines_in_order() -> None:
    assert ENGINES.names() == ["local", "duckdb", "spark"]
    for name in ENGINES.names():
        assert isinstance(ENGINES[name], Engine)


def test_unknown_engine_is_one_error_with_a_suggestion() -> None:
    with pytest.raises(EngineError, match=r"unknown engine 'sprak'; did you mean 'spark'\?"):
        ENGINES.lookup("sprak")
    with pytest.raises(MeasureError, match="^The 'engine' option must be one of local, "
                                           "duckdb, spark; got 'sprak'$"):
        Evaluator({"1": {"d": 1}}, engine="sprak")  # type: ignore[arg-type]


def test_the_evaluators_unknown_engine_lists_the_installed_plugins(plugin: Path) -> None:
    with pytest.raises(MeasureError, match="^The 'engine' option must be one of local, "
                                           "duckdb, spark, badinit, badname, broken, fake, "
                                           "missing; got 'nope'$"):
        Evaluator({"1": {"d": 1}}, engine="nope")  # type: ignore[arg-type]


def test_third_party_engine_through_an_entry_point(plugin: Path) -> None:
    (plugin / "q.qrels").write_text(QRELS)
    (plugin / "r.run").write_text(RUN)
    ENGINES.lookup("local")
    # built-in names never load the plugins
    assert "relkit_fake_engine" not in sys.modules
    assert ENGINES.installed()[-5:] == ["badinit", "badname", "broken", "fake", "missing"]
    measures = ["map", "ndcg_cut.5", "P.5", "num_ret", "runid"]
    fake = Evaluator(plugin / "q.qrels", measures, engine="fake")  # type: ignore[arg-type]
    got = fake.compute_many([plugin / "r.run"])[0]
    import relkit_fake_engine  # type: ignore[import-not-found]

    assert [str(plugin / "r.run")] == relkit_fake_engine.CALLS
    want = Evaluator(plugin / "q.qrels", measures).compute(plugin / "r.run")
    assert got.topics == want.topics and got.summary == want.summary
    for a, b in zip(got.values, want.values, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    assert ENGINES.lookup("fake") is fake.door


def test_a_broken_plugin_is_one_line(plugin: Path) -> None:
    with pytest.raises(EngineError, match=r"^engine 'broken' \(entry point "
                                          r"'relkit_fake_engine:NotAnEngine'\) is not an "
                                          r"Engine \(see docs/engines.md\)$"):
        ENGINES.lookup("broken")
    with pytest.raises(EngineError, match=r"^engine 'missing' .* could not be loaded: "
                                          r"ModuleNotFoundError"):
        ENGINES.lookup("missing")


def test_a_broken_plugin_is_one_line_through_the_evaluator(plugin: Path) -> None:
    """The plugin's own load error, not "must be one of local, spark"."""
    with pytest.raises(EngineError, match=r"^engine 'broken' \(entry point "
                                          r"'relkit_fake_engine:NotAnEngine'\) is not an "
                                          r"Engine \(see docs/engines.md\)$"):
        Evaluator({"1": {"d": 1}}, engine="broken")  # type: ignore[arg-type]
    with pytest.raises(EngineError, match=r"^engine 'missing' .* could not be loaded: "
                                          r"ModuleNotFoundError"):
        Evaluator({"1": {"d": 1}}, engine="missing")  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "cls", "why"), [
    ("badinit", "RaisesInInit", "RuntimeError: no cluster configured"),
    ("badname", "RaisesInName", "KeyError: 'name'"),
])
def test_a_plugin_whose_constructor_or_name_raises_is_one_line(
        plugin: Path, name: str, cls: str, why: str) -> None:
    with pytest.raises(EngineError, match=rf"^engine '{name}' \(entry point "
                                          rf"'relkit_fake_engine:{cls}'\) could not be "
                                          rf"loaded: {re.escape(why)}$"):
        ENGINES.lookup(name)


def test_chain_models_fit_from_any_engines_sums() -> None:
    """An engine supplies sums only: adding the blocks in another grouping (as Spark's
    partitions do) gives the local fit up to rounding, through the model's own M-step."""
    from relkit.metrics.online.clickmodels.chain import distinct_pages
    from relkit.metrics.online.clickmodels.registry import MODELS
    from relkit.metrics.online.clickmodels.simulate import random_pages, synthetic
    from relkit.metrics.online.clickmodels.sums import Blocks, ChainModel, add_into

    rng = np.random.default_rng(3)
    pair = random_pages([6, 9, 7], 1500, 6, rng)
    data = synthetic([6, 9, 7], pair, (rng.random(pair.shape) < 0.3) & (pair >= 0))
    calls: list[object] = []

    def grouped(model: ChainModel, sessions: Blocks, theta: object, into: dict) -> dict:
        calls.append(theta)
        total: dict = {}
        for pg in sessions.pages:   # a "partition" total first, then into the seed
            add_into(total, model.fixed_sums(pg, sessions.n_pairs, sessions.max_rank)
                     if theta is None else
                     model.block_sums(pg, theta, sessions.n_pairs, sessions.max_rank))
        return add_into(into, total)

    for name in ("dbn", "dcm", "ccm"):
        local = MODELS[name]().fit(data, iterations=6, seed=1)
        other = MODELS[name]()
        assert isinstance(other, ChainModel)
        calls.clear()
        other.fit_on(grouped, Blocks(distinct_pages(data, 100), data.n_pairs, data.max_rank),
                     data.n_pairs, data.max_rank, 6, np.random.default_rng(1))
        assert calls[0] is None and len(calls) == 1 + 7   # fixed counts, then 7 E-steps
        np.testing.assert_allclose(other.trace, local.trace, rtol=1e-12)
        for k, v in local.params.items():
            np.testing.assert_allclose(other.params[k], v, rtol=1e-10, atol=1e-12)


def test_no_string_imports_of_relkit_modules() -> None:
    """Engines are found through the registry: no ``import_module("relkit...")``."""
    found = subprocess.run(
        ["grep", "-rn", "--include=*.py", "import_module", "metrics", "pooling", "judging",
         "corpora"], cwd=ROOT, capture_output=True, text=True).stdout
    bad = [line for line in found.splitlines()
           if re.search(r"import_module\(\s*f?[\"']relkit", line)]
    assert bad == []


def test_docs_say_what_the_commands_call() -> None:
    """docs/engines.md's "What the commands use today": every function it names exists,
    and, as it says, no code outside the engines calls ``em_sums`` or
    ``read_click_log`` on an engine (route a command through them: update the doc)."""
    import ast
    import importlib

    text = (ROOT / "docs" / "engines.md").read_text()
    start = text.index("### What the commands use today")
    section = text[start:text.index("Code never imports an engine", start)]
    named = set(re.findall(r"`(relkit(?:\.\w+)+)`", section))
    assert len(named) >= 4, named
    for dotted in sorted(named):
        module, _, attr = dotted.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), dotted
    engines = {"metrics/core/engines.py", "metrics/engines/local.py",
               "metrics/engines/duckdb.py", "metrics/spark/spark_engine.py"}
    callers = []
    for layer in ("metrics", "pooling", "corpora", "judging"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            if str(path.relative_to(ROOT)) in engines:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in ("em_sums", "read_click_log")):
                    callers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert callers == []


def test_chain_models_take_no_constructor_arguments() -> None:
    """Spark's em_sums rebuilds ``type(model)()`` in its tasks (docs/engines.md)."""
    from relkit.metrics.online.clickmodels.registry import MODELS
    from relkit.metrics.online.clickmodels.sums import ChainModel

    chains = [m for m in MODELS.values() if issubclass(m, ChainModel)]
    assert {m.__name__ for m in chains} == {"DBN", "DCM", "CCM"}
    for cls in chains:
        assert type(cls())() is not None
