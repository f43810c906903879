"""The front door: ``import relkit`` gives the names a user needs, lazily, documented.

Every name in ``relkit.__all__`` is walked (so the next one added is covered): it
resolves to the object its module defines, its docstring has an Examples section
with a runnable example (tests/test_doctests.py runs them), and the type checkers'
``TYPE_CHECKING`` block names the same modules. The thin functions are checked against
an oracle each (pytrec_eval, the ``relkit pool`` and ``relkit agree`` commands), the
results' reprs are short and their notebook tables escape ids, and docs/notebook.py
runs from start to end.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import relkit
from helpers import ROOT, pytrec_dicts, run_cli

SAMPLE = ROOT / "corpora" / "sample"
RUNS = sorted((SAMPLE / "runs").glob("*.txt"))
EXPORTED = [name for name in relkit.__all__ if name != "__version__"]


@pytest.mark.parametrize("name", EXPORTED)
def test_every_exported_name_resolves_and_has_an_example(name: str) -> None:
    obj = getattr(relkit, name)
    module = importlib.import_module(relkit._LAZY[name])
    assert obj is getattr(module, name)
    doc = inspect.cleandoc(obj.__doc__ or "")
    assert "\nExamples\n--------\n" in doc and ">>> " in doc, f"{name}: no example"
    # the example runs where tests/test_doctests.py runs examples
    from test_doctests import WITH_EXAMPLES

    assert obj.__module__ in WITH_EXAMPLES, f"{obj.__module__} is not in WITH_EXAMPLES"


def test_the_names_a_user_needs_are_exported() -> None:
    assert set(EXPORTED) == {"Qrels", "Run", "Evaluator", "evaluate", "parse_measure",
                             "compare", "open_store", "pool", "agree"}
    assert set(EXPORTED) <= set(dir(relkit))
    with pytest.raises(AttributeError, match="no attribute 'Evaluatr'"):
        relkit.Evaluatr  # noqa: B018


def test_type_checkers_see_the_same_names_as_the_lazy_table() -> None:
    source = (ROOT / "judging" / "_relkit" / "__init__.py").read_text(encoding="utf-8")
    seen: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                seen.update({alias.name: imp.module for alias in imp.names})
    assert seen == relkit._LAZY
    assert relkit.__all__ == ["__version__", *relkit._LAZY]
    # and the root's import contract lets exactly these through (pyproject.toml)
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    root = next(c for c in contracts["contracts"] if c.get("source_modules") == ["relkit"])
    assert set(root["ignore_imports"]) == {f"relkit -> {m}" for m in relkit._LAZY.values()}


def test_import_relkit_loads_no_layer_and_no_heavy_library() -> None:
    code = "import sys, relkit; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    ours = {m for m in loaded if m.startswith("relkit.")}
    heavy = {m for m in loaded if m.split(".")[0] in {
        "numpy", "pandas", "pyarrow", "scipy", "sqlmodel", "sqlalchemy", "textual", "typer",
        "matplotlib", "pydantic", "alembic", "rich"}}
    assert not ours and not heavy, (sorted(ours), sorted(heavy))


def _sample() -> tuple[relkit.Qrels, dict[str, relkit.Run]]:
    return (relkit.Qrels.read(SAMPLE / "qrels.txt"),
            {p.stem: relkit.Run.read(p) for p in RUNS})


def test_evaluate_gives_pytrec_evals_numbers() -> None:
    import pytrec_eval

    qrels, runs = _sample()
    res = relkit.evaluate(qrels, runs["bm25"], ["map", "ndcg_cut.10", "P.10"])
    qd, rd = pytrec_dicts(qrels, runs["bm25"])
    oracle = pytrec_eval.RelevanceEvaluator(qd, {"map", "ndcg_cut_10", "P_10"}).evaluate(rd)
    for name, key in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10")):
        want = sum(v[key] for v in oracle.values()) / len(oracle)
        assert res.to_dict()[name] == pytest.approx(want, abs=1e-12)


def test_reprs_are_short_and_say_what_matters() -> None:
    qrels, runs = _sample()
    cmp = relkit.compare(qrels, runs, baseline="bm25")
    # before: 5,224 characters for this comparison, 4,867 for this result
    assert len(repr(cmp)) < 300 and "4 systems" in repr(cmp) and "baseline bm25" in repr(cmp)
    res = relkit.evaluate(qrels, runs["bm25"], ["all_trec"])
    assert len(repr(res)) < 200 and repr(res).startswith("<Result 'bm25': 6 topics")
    p = relkit.pool(runs, depth=10)
    assert repr(p) == f"<Pool: {len(p)} documents over 6 topics>" and len(p) > 100


def test_counts_show_whole_as_trec_eval_prints_them() -> None:
    """num_q, num_ret, num_rel, num_rel_ret: ``%ld`` in trec_eval's output, so ``6``
    (not ``6.0000``) in a result's repr and notebook table; AP keeps 4 decimals."""
    import pytrec_eval

    qrels, runs = _sample()
    counts = {"num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel",
              "num_rel_ret": "NumRelRet"}
    res = relkit.evaluate(qrels, runs["bm25"], ["map", *counts])
    qd, rd = pytrec_dicts(qrels, runs["bm25"])
    oracle = pytrec_eval.RelevanceEvaluator(qd, set(counts) | {"map"}).evaluate(rd)
    want = {k: int(sum(v[k] for v in oracle.values())) for k in counts}
    want["num_q"] = len(oracle)
    ap = sum(v["map"] for v in oracle.values()) / len(oracle)
    shown = repr(res)
    for k, name in counts.items():
        assert f"{name}={want[k]} " in shown, shown
    table = res._repr_html_()
    cell = '<td>{}</td><td style="text-align:right">{}</td>'
    for k, name in counts.items():
        assert cell.format(name, want[k]) in table, table
    assert cell.format("AP", f"{ap:.4f}") in table, table


HOSTILE = "<script>alert(1)</script>"


def test_notebook_tables_escape_every_id() -> None:
    qrels = relkit.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}})
    a = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}
    b = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d9": 1.0}}
    cmp = relkit.compare(qrels, {HOSTILE: a, "b": b}, ["AP"])
    res = relkit.evaluate(qrels, relkit.Run.from_dict(a, run_id=HOSTILE), ["AP"])
    for shown in (cmp._repr_html_(), res._repr_html_()):
        assert "<script>" not in shown and "&lt;script&gt;" in shown


def test_agreement_table_escapes_assessor_names() -> None:
    import pandas as pd

    rows = [(who, t, d, g) for who in (HOSTILE, "bob")
            for t, d, g in (("1", "a", 1), ("1", "b", 0), ("2", "a", 1))]
    a = relkit.agree(pd.DataFrame(rows, columns=["assessor", "topic", "doc", "grade"]),
                     replicates=0)
    assert "<script>" not in a._repr_html_() and "&lt;script&gt;" in a._repr_html_()
    assert len(repr(a)) < 300


def test_plots_return_matplotlib_axes() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.axes import Axes

    from relkit.metrics.core.errors import MeasureError

    qrels, runs = _sample()
    res = relkit.evaluate(qrels, runs["bm25"], ["AP", "nDCG@10"])
    ax = res.plot("ndcg_cut.10")         # any spelling of a measure the result has
    assert isinstance(ax, Axes) and ax.get_ylabel() == "nDCG@10"
    assert [b.get_height() for b in ax.patches] == pytest.approx(list(res.values[1]))
    with pytest.raises(MeasureError, match="has no per-topic values of 'P@5'"):
        res.plot("P@5")
    cmp = relkit.compare(qrels, runs, ["AP"], ci=0.95)
    ax = cmp.plot()
    assert isinstance(ax, Axes) and len(ax.patches) == 4
    assert sorted(b.get_height() for b in ax.patches) == pytest.approx(sorted(cmp.means[0]))


def test_pool_is_the_pool_relkit_pool_writes(tmp_path: Path) -> None:
    out = tmp_path / "pool.tsv"
    code, _, err = run_cli(["pool", *map(str, RUNS), "--depth", "10", "-o", str(out)])
    assert code == 0, err
    mine = tmp_path / "mine.tsv"
    relkit.pool({p.stem: p for p in RUNS}, depth=10).write(mine)
    assert mine.read_bytes() == out.read_bytes()


def _two_assessors(tmp_path: Path) -> list[str]:
    """The sample's qrels as 'nist' and a copy where every grade-2 document is 1, 'strict'."""
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    (tmp_path / "nist.qrels").write_text("\n".join(lines) + "\n")
    strict = [" ".join([*ln.split()[:3], "1" if ln.split()[3] == "2" else ln.split()[3]])
              for ln in lines]
    (tmp_path / "strict.qrels").write_text("\n".join(strict) + "\n")
    return [str(tmp_path / "nist.qrels"), str(tmp_path / "strict.qrels")]


def test_agree_is_what_relkit_agree_reports(tmp_path: Path) -> None:
    files = _two_assessors(tmp_path)
    code, out, err = run_cli(["agree", *files, "--scale", "trec-dl", "--format", "json",
                              "--replicates", "50", "--runs", *map(str, RUNS[:3]), "--"])
    assert code == 0, err
    a = relkit.agree(files, scale="trec-dl", replicates=50,
                     runs={p.stem: p for p in RUNS[:3]})
    assert json.loads(json.dumps(a.to_dict())) == json.loads(out)


def test_agree_reads_a_store_opened_by_open_store(tmp_path: Path) -> None:
    from relkit.corpora.types import Topic, get_scale
    from relkit.judging.judgment_files import read_judgment_files
    from relkit.judging.store.imports import import_judgments

    files = _two_assessors(tmp_path)
    db = tmp_path / "project.db"
    with relkit.open_store(db) as store:
        topics = sorted({ln.split()[0] for ln in Path(files[0]).read_text().splitlines()})
        store.create_collection("sample", get_scale("trec-dl"), [Topic(t) for t in topics])
        import_judgments(store, read_judgment_files(files), add_missing=True)
        from_store = relkit.agree(db=store, replicates=0)
    from_files = relkit.agree(files, scale="trec-dl", replicates=0)
    assert from_store.to_dict()["graded"] == from_files.to_dict()["graded"]
    assert from_store.assessors == ("nist", "strict")


def test_the_notebook_runs(tmp_path: Path) -> None:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "notebook.py")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "<Comparison of 4 systems (bm25, ql, random, tfidf)" in out
    assert "<Pool: 75 documents over 6 topics>" in out
    assert "<Analysis: 2 assessors (ann, bob)" in out
    assert list(tmp_path.iterdir()) == []        # the database was in a temporary folder


def test_the_readmes_from_python_section_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib

    matplotlib.use("Agg")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## From Python\n"):readme.index("## Evaluating runs\n")]
    code = section[section.index("```python\n") + 10:section.index("```\n\n")]
    monkeypatch.chdir(ROOT)                      # its paths are the repository's sample
    lines = code.splitlines()
    said = [(lines[i - 1], line[2:]) for i, line in enumerate(lines) if line.startswith("# <")]
    said += [(line.split("  #")[0], line.split("# ")[1]) for line in lines
             if "# <" in line and not line.startswith("#")]
    assert len(said) == 2
    scope: dict[str, object] = {}
    exec(code, scope)
    for expression, shown in said:
        assert repr(eval(expression, scope)) == shown


def test_plot_without_matplotlib_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from relkit.metrics.core.errors import RelkitError

    qrels, runs = _sample()
    res = relkit.evaluate(qrels, runs["bm25"], ["AP"])
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)    # import fails
    with pytest.raises(RelkitError, match="plot\\(\\) needs matplotlib: pip install matplotlib"):
        res.plot()
