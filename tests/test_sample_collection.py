"""The shipped sample collection (corpora/sample): complete, consistent, as documented.

Oracles: the loaders' own counts against the manifest and the README; the README's
score table against pytrec_eval (trec_eval 9.0.8 inside) as well as ``relkit eval``;
the shipped runs against a fresh run of ``make_runs.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from helpers import ROOT, run_cli
from relkit.corpora.collection import Collection
from relkit.corpora.loaders import get_loader, read_docs, read_topics, sniff
from relkit.corpora.types import get_scale
from relkit.metrics.data import Qrels, Run

SAMPLE = ROOT / "corpora" / "sample"
MANIFEST = tomllib.loads((SAMPLE / "collection.toml").read_text(encoding="utf-8"))
README = (SAMPLE / "README.md").read_text(encoding="utf-8")


def _docs() -> list:  # noqa: ANN401
    return list(read_docs(SAMPLE / MANIFEST["docs"]["path"], MANIFEST["docs"]["format"]))


def _topics() -> list:  # noqa: ANN401
    return read_topics(SAMPLE / MANIFEST["topics"]["path"], MANIFEST["topics"]["format"])


def _qrels() -> Qrels:
    return Qrels.read(SAMPLE / MANIFEST["qrels"]["path"])


def test_manifest_names_existing_files_known_formats_and_scale() -> None:
    assert MANIFEST["name"] == "sample" and MANIFEST["licence"] == "CC-BY-4.0"
    assert get_loader(MANIFEST["docs"]["format"], "docs").name == "jsonl-docs"
    assert get_loader(MANIFEST["topics"]["format"], "topics").name == "trec-topics"
    get_scale(MANIFEST["scale"])
    for key in ("docs", "topics", "qrels"):
        assert (SAMPLE / MANIFEST[key]["path"]).is_file(), key
    # The package's own reader takes the manifest as it is.
    col = Collection.load(SAMPLE)
    assert (col.name, col.scale.name, col.licence) == ("sample", "trec-dl", "CC-BY-4.0")
    assert [p.name for p in col.run_paths()] == [Path(r).name for r in MANIFEST["runs"]]
    assert sorted(MANIFEST["runs"]) == sorted(
        p.relative_to(SAMPLE).as_posix() for p in (SAMPLE / "runs").glob("*.txt"))
    # The formats are also what the files look like (sniffing agrees with the manifest).
    assert sniff(SAMPLE / MANIFEST["docs"]["path"], "docs").name == MANIFEST["docs"]["format"]
    topics = MANIFEST["topics"]
    assert sniff(SAMPLE / topics["path"], "topics").name == topics["format"]


def test_loaders_read_the_counts_the_manifest_and_readme_state() -> None:
    docs, topics, qrels = _docs(), _topics(), _qrels()
    counts = MANIFEST["counts"]
    assert (len(docs), len(topics), len(qrels)) == (counts["docs"], counts["topics"],
                                                    counts["judgments"]) == (265, 6, 471)
    assert len({d.id for d in docs}) == len(docs)
    assert [d.id for d in docs] == [f"D{i:03d}" for i in range(1, 266)]
    assert [t.id for t in topics] == ["101", "102", "103", "104", "105", "106"]
    headline = (f"**{counts['docs']} documents, {counts['topics']} topics with TREC-style "
                f"narratives, {counts['judgments']} graded judgments (0–3) and "
                f"{len(MANIFEST['runs'])} runs**")
    assert headline in " ".join(README.split())


def test_a_known_document_and_topic() -> None:
    doc = next(d for d in _docs() if d.title == "Chimney balloons: do they work?")
    assert doc.text.startswith("An open chimney in an unused fireplace is like an open window")
    t = _topics()[1]
    assert (t.id, t.title) == ("102", "heat pump below freezing")
    assert t.description is not None and t.description.startswith("Do air-source heat pumps")
    assert t.narrative is not None and t.narrative.startswith("Relevant documents report")


def test_topics_have_every_field_and_real_narratives() -> None:
    for t in _topics():
        assert t.title and 2 <= len(t.title.split()) <= 6
        assert t.description and t.description.endswith("?")
        assert t.narrative and 2 <= t.narrative.count(". ") + 1 <= 5
        assert "not relevant" in t.narrative and "partially relevant" in t.narrative


def test_qrels_refer_to_existing_docs_and_topics_once_each() -> None:
    f = _qrels().frame
    assert set(f["doc_id"]) <= {d.id for d in _docs()}
    assert set(f["query_id"]) == {t.id for t in _topics()}
    assert not f.duplicated(["query_id", "doc_id"]).any()
    assert set(f["iteration"]) == {"0"}
    assert set(f["relevance"]) <= set(get_scale(MANIFEST["scale"]).values)


def test_every_topic_has_relevant_documents_at_every_grade() -> None:
    f = _qrels().frame
    for topic, g in f.groupby("query_id"):
        per = Counter(g["relevance"])
        assert all(per[grade] >= 2 for grade in (0, 1, 2, 3)), (topic, per)
        assert per[2] + per[3] >= 10, (topic, per)


def test_readme_topic_table_is_the_qrels() -> None:
    f = _qrels().frame
    rows = {m.group(1): [int(x) for x in m.group(2).split("|")]
            for m in re.finditer(r"^\| (\d{3}|all) \|[^|]*\|([\d |]+)\|$", README, re.M)}
    assert len(rows) == 7
    for topic, (judged, *grades) in rows.items():
        g = f if topic == "all" else f[f["query_id"] == topic]
        per = Counter(g["relevance"])
        assert [judged, *grades] == [len(g), per[0], per[1], per[2], per[3]], topic


def test_text_is_clean_plain_prose() -> None:
    raw = (SAMPLE / MANIFEST["docs"]["path"]).read_bytes()
    raw += (SAMPLE / MANIFEST["topics"]["path"]).read_bytes()
    raw.decode("ascii")  # README promises plain ASCII
    assert b"\r" not in raw
    for d in _docs():
        for s in (d.title or "", d.text):
            assert not re.search(r"[\x00-\x1f\x7f]|<[^>]*>|&\w+;|\s{2,}", s), d.id
        assert d.title and 40 <= len(d.text.split()) <= 120, d.id
    for line in (SAMPLE / MANIFEST["docs"]["path"]).read_text(encoding="ascii").splitlines():
        assert set(json.loads(line)) == {"_id", "title", "text"}
    for t in _topics():
        for s in (t.title, t.description, t.narrative):
            assert s and not re.search(r"[\x00-\x1f\x7f<>]", s), t.id


@pytest.mark.parametrize("path", MANIFEST["runs"])
def test_runs_are_valid_trec_runs_in_evaluation_order(path: str) -> None:
    run = Run.read(SAMPLE / path)
    f = run.frame
    assert run.name == Path(path).stem and set(f["run_id"]) == {Path(path).stem}
    assert set(f["query_id"]) == {t.id for t in _topics()}
    assert set(f["doc_id"]) <= {d.id for d in _docs()}
    assert not f.duplicated(["query_id", "doc_id"]).any()
    for _, g in f.groupby("query_id", sort=False):
        assert 1 <= len(g) <= 100
        assert list(g["rank"].astype(int)) == list(range(1, len(g) + 1))
        # trec_eval's own order: score descending, then docno descending.
        key = list(zip(g["score"], g["doc_id"], strict=True))
        assert key == sorted(key, reverse=True)


def _table() -> dict[str, list[float]]:
    rows = re.findall(r"^\| `(\w+)` \|[^|]*\|[^|]*\|([\d. |]+)\|$", README, re.M)
    return {name: [float(x) for x in vals.split("|")] for name, vals in rows}


def test_runs_evaluate_as_the_readme_says_and_random_is_last() -> None:
    table = _table()
    assert sorted(table) == sorted(Path(p).stem for p in MANIFEST["runs"])
    runs = [str(SAMPLE / p) for p in MANIFEST["runs"]]
    qrels = str(SAMPLE / MANIFEST["qrels"]["path"])
    got: dict[tuple[str, str], float] = {}
    for extra in ([], ["-l2"]):
        measures = ["-m", "map"] if extra else ["-m", "map", "-m", "nDCG@10", "-m", "P@10"]
        code, out, err = run_cli(["eval", *extra, *measures, "--format", "json", qrels, *runs])
        assert code == 0, err
        for r in json.loads(out):
            got[r["run_id"], r["trec_name"] + "".join(extra)] = round(r["value"], 4)
    columns = ("map", "ndcg_cut_10", "P_10", "map-l2")
    for name, vals in table.items():
        assert [got[name, c] for c in columns] == vals, name
    for column in range(4):
        real = [v[column] for n, v in table.items() if n != "random"]
        assert min(real) > 2 * table["random"][column]


def test_readme_table_against_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged: dict[str, dict[str, int]] = {}
    for t, d, g in _qrels().frame[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        judged.setdefault(t, {})[d] = int(g)
    names = ("map", "ndcg_cut_10", "P_10")
    for name, vals in _table().items():
        run: dict[str, dict[str, float]] = {}
        for t, d, s in Run.read(SAMPLE / "runs" / f"{name}.txt").frame[
                ["query_id", "doc_id", "score"]].itertuples(index=False):
            run.setdefault(t, {})[d] = float(s)
        per = pytrec_eval.RelevanceEvaluator(judged, {"map", "ndcg_cut", "P"}).evaluate(run)
        means = [sum(q[m] for q in per.values()) / len(per) for m in names]
        strict = pytrec_eval.RelevanceEvaluator(judged, {"map"}, relevance_level=2)
        means.append(sum(q["map"] for q in strict.evaluate(run).values()) / len(per))
        assert means == pytest.approx(vals, abs=5e-5), name


@pytest.mark.slow
def test_make_runs_reproduces_the_shipped_runs(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SAMPLE / "make_runs.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for path in MANIFEST["runs"]:
        shipped = (SAMPLE / path).read_text().splitlines()
        fresh = (tmp_path / Path(path).name).read_text().splitlines()
        assert len(fresh) == len(shipped), path
        for a, b in zip(shipped, fresh, strict=True):
            (*ka, sa, ta), (*kb, sb, tb) = a.split(), b.split()
            assert (ka, ta) == (kb, tb) and float(sa) == pytest.approx(float(sb), abs=2e-6)


def test_make_runs_is_not_part_of_the_package() -> None:
    assert not (SAMPLE / "__init__.py").exists()
    for py in (ROOT / "corpora").rglob("*.py"):
        if py.name != "make_runs.py":
            assert "make_runs" not in py.read_text(encoding="utf-8"), py


def test_pyproject_ships_every_file_of_the_collection() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # setuptools expands package-data globs with glob() relative to the package directory.
    shipped = {p.relative_to(ROOT / "corpora").as_posix()
               for g in conf["tool"]["setuptools"]["package-data"]["relkit.corpora"]
               for p in (ROOT / "corpora").glob(g)}
    files = ["collection.toml", "README.md", MANIFEST["docs"]["path"],
             MANIFEST["topics"]["path"], MANIFEST["qrels"]["path"], *MANIFEST["runs"]]
    assert {f"sample/{f}" for f in files} <= shipped
    assert "sample/make_runs.py" not in shipped


def test_quick_start_project_from_the_sample(tmp_path: Path) -> None:
    """init + pool into a database: the pool is the union of each run's top 10."""
    db = str(tmp_path / "p.db")
    code, _, err = run_cli(["init", "--topics", str(SAMPLE / MANIFEST["topics"]["path"]),
                            "--docs", str(SAMPLE / MANIFEST["docs"]["path"]),
                            "--scale", MANIFEST["scale"],
                            "--db", db])
    assert code == 0 and "indexed 265 documents" in err and "with 6 topics" in err, err
    runs = [str(SAMPLE / p) for p in MANIFEST["runs"]]
    code, _, err = run_cli(["pool", *runs, "--depth", "10", "--into", db])
    assert code == 0, err
    top10 = set()
    for r in runs:
        f = Run.read(r).frame
        top10 |= {(t, d) for t, d, k in f[["query_id", "doc_id", "rank"]].itertuples(index=False)
                  if int(k) <= 10}
    docs = {d for _, d in top10}
    assert f"pooled {len(top10)} documents over 6 topics from 4 runs" in err
    assert f"{len(docs)} documents copied in" in err


def test_the_sample_is_a_known_collection_by_name(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`corpora list` omitted it and `--collection sample` failed once relkit was installed."""
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))   # nothing fetched
    code, out, _ = run_cli(["corpora", "list", "--format", "json"])
    (row,) = [r for r in json.loads(out) if r["name"] == "sample"]
    assert code == 0 and row["fetched"] and row["sources"] == ["shipped"]
    assert (row["docs"], row["topics"], row["qrels"]) == (
        MANIFEST["counts"]["docs"], MANIFEST["counts"]["topics"], MANIFEST["counts"]["judgments"])
    code, out, err = run_cli(["corpora", "info", "sample", "--format", "json"])
    assert code == 0, err
    info = json.loads(out)
    assert (info["docs"], info["topics"], info["qrels"]) == (265, 6, 471)
    run = tmp_path / "ql.txt"
    code, _, err = run_cli(["systems", "run", "--collection", "sample", "-s", "ql", "-o",
                            str(run)], cwd=tmp_path)               # no sample folder here
    assert code == 0, err
    assert set(Run.read(run).frame["query_id"]) == {"101", "102", "103", "104", "105", "106"}
    code, out, err = run_cli(["corpora", "fetch", "sample"])
    assert code == 0 and Path(out.strip()) == SAMPLE.resolve() and "nothing to download" in err
    assert not (tmp_path / "cache" / "collections").exists()      # nothing downloaded


def test_the_known_sample_layout_is_the_shipped_manifest(tmp_path: Path) -> None:
    from relkit.corpora.collection import open_collection
    from relkit.corpora.known import KNOWN

    kc = KNOWN["sample"]
    assert kc.shipped == SAMPLE.resolve() and kc.licence == MANIFEST["licence"]
    for key in ("name", "scale", "runs", "docs", "topics", "qrels"):
        assert kc.manifest[key] == MANIFEST[key], key
    assert open_collection("sample").root == SAMPLE.resolve()
    # --layout sample reads a copy without its manifest
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(SAMPLE, copy, ignore=shutil.ignore_patterns("collection.toml"))
    c = open_collection(copy, layout="sample")
    assert len(c.read_qrels()) == 471 and len(c.read_runs()) == 4
