"""Every ``relkit eval -R`` mode writes every ``--format``, to stdout and to ``-o``.

The modes come from the registry (:data:`relkit.metrics.eval.modes.MODES`) and the
formats from the CLI's (:data:`relkit.metrics.eval.cli.FORMATS`): a mode added to the
registry without a case here fails :func:`test_every_mode_has_a_case`, so the next one
is walked too. Before the fix, ``-R prels``, ``prefs``, ``qrels_prefs`` and ``qrels_jg``
printed trec_eval's text whatever ``--format`` said, and to stdout whatever ``-o`` said.

What is checked: the file written with ``-o`` holds what stdout shows; the tidy table
(``run_id, query_id, measure, trec_name, value``) has the trec text's numbers, line
for line (4 decimals; counts as integers); parquet without ``-o`` is a usage error.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from helpers import CONFORMANCE, needs_shared, run_cli
from relkit.metrics.eval.cli import FORMATS
from relkit.metrics.eval.modes import MODES

SUBTOPICS = "1 s1 a 1\n1 s2 a 1\n1 s1 b 1\n1 s3 c 1\n1 s1 d 0\n2 s1 a 1\n"
SUB_RUN = "1 Q0 b 1 4 r\n1 Q0 a 2 3 r\n1 Q0 d 3 2 r\n1 Q0 c 4 1 r\n2 Q0 a 1 1 r\n"
PRELS = "1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 2\n1 0 d 2 -1\n2 0 a 1 0\n2 0 b 2 1\n2 0 c 2 -1\n"


def _case(mode: str, d: Path) -> list[str]:
    """``-R mode``'s judgments and run (and measures), as arguments."""
    if mode == "subtopics":
        (d / "sub").write_text(SUBTOPICS)
        (d / "run").write_text(SUB_RUN)
        return ["-m", "alpha_nDCG@2", "-m", "P_IA@2", str(d / "sub"), str(d / "run")]
    if mode == "prels":
        (d / "prels").write_text(PRELS)
        (d / "run").write_text(SUB_RUN)
        return [str(d / "prels"), str(d / "run")]
    judgments = {"qrels": "qrels.test", "prefs": "prefs.test", "qrels_prefs": "qrels.test",
                 "qrels_jg": "qrels.123"}[mode]
    run = "prefs.results.test" if mode == "prefs" else "results.test"
    measures = {"qrels": ["-m", "map", "-m", "P.5", "-m", "num_ret"],
                "qrels_jg": ["-m", "qrels_jg"]}.get(mode, ["-m", "all_prefs"])
    return [*measures, str(CONFORMANCE / judgments), str(CONFORMANCE / run)]


CASES = ["qrels", "prefs", "qrels_prefs", "qrels_jg", "prels", "subtopics"]


def test_every_mode_has_a_case() -> None:
    assert sorted(MODES) == sorted(CASES)


def _trec_values(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        if name.strip() != "runid":
            out[(name.strip(), qid)] = value.strip()
    return out


def _tidy(fmt: str, text: str | None, path: Path | None) -> list[dict[str, object]]:
    if fmt == "parquet":
        import pandas as pd

        assert path is not None
        return pd.read_parquet(path).to_dict(orient="records")  # type: ignore[no-any-return]
    assert text is not None
    if fmt == "json":
        return json.loads(text)  # type: ignore[no-any-return]
    return list(csv.DictReader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ","))


@needs_shared
@pytest.mark.parametrize("mode", CASES)
def test_every_format_in_every_mode(mode: str, tmp_path: Path) -> None:
    args = ["eval", "-R", mode, "-q", *_case(mode, tmp_path)]
    code, trec, err = run_cli(args)
    assert code == 0 and trec, err
    want = _trec_values(trec)
    assert any(q == "all" for _, q in want) and any(q != "all" for _, q in want)
    for fmt in FORMATS:
        target = tmp_path / f"out.{fmt}"
        code, out, err = run_cli([*args, "--format", fmt, "-o", str(target)])
        assert (code, out) == (0, ""), (fmt, err)
        if fmt == "parquet":
            code, shown, err = run_cli([*args, "--format", fmt])
            assert code == 2 and shown == "" and len(err.splitlines()) == 1, err
            assert "parquet needs -o" in err
            shown = None
        else:
            code, shown, err = run_cli([*args, "--format", fmt])
            assert code == 0, (fmt, err)
            assert target.read_text() == shown, fmt        # -o holds what stdout shows
        if fmt == "trec":
            assert shown == trec
            continue
        rows = _tidy(fmt, shown, target)
        assert rows and set(rows[0]) >= {"run_id", "query_id", "measure", "trec_name",
                                         "value"}, fmt
        got = {(str(r["trec_name"]), str(r["query_id"])): float(r["value"])  # type: ignore[arg-type]
               for r in rows}
        assert set(got) == set(want), fmt
        for key, text in want.items():
            value = got[key]
            assert (str(int(value)) == text if "." not in text
                    else f"{value:6.4f}".strip() == text), (fmt, key, value, text)


@needs_shared
@pytest.mark.parametrize("mode", CASES)
def test_names_and_the_shared_tag_warning_in_every_mode(mode: str, tmp_path: Path) -> None:
    """Two runs with one tag: warned about, and --names / --name-from-file label them
    (before the fix -R other than qrels refused the options and never warned)."""
    args = _case(mode, tmp_path)
    twin = tmp_path / "twin.run"
    twin.write_text(Path(args[-1]).read_text())
    base = ["eval", "-R", mode, "-q", *args, str(twin), "--format", "csv"]
    code, out, err = run_cli(base)
    assert code == 0, err
    assert "have the same run id" in err and len(err.splitlines()) == 1, err
    assert len({r["run_id"] for r in _tidy("csv", out, None)}) == 1
    code, quiet, err = run_cli([*base, "--quiet"])
    assert (code, quiet, err) == (0, out, "")
    for named, want in ((["--names", "one,two"], ["one", "two"]),
                        (["--name-from-file"], [Path(args[-1]).stem, "twin"])):
        code, out, err = run_cli([*base, *named])
        assert code == 0 and err == "", err
        rows = _tidy("csv", out, None)
        assert sorted({str(r["run_id"]) for r in rows}) == sorted(want), named
        halves = [[(r["query_id"], r["measure"], r["value"]) for r in rows
                   if r["run_id"] == name] for name in want]
        assert halves[0] == halves[1] and halves[0]      # the same run, named twice
        code, text, err = run_cli([*base[:-2], *named])   # trec: each block's runid line
        assert code == 0, err
        runids = [line.split()[2] for line in text.splitlines() if line.startswith("runid")]
        assert list(dict.fromkeys(runids)) == want, text


@needs_shared
@pytest.mark.parametrize("mode", [m for m in CASES if m != "prels"])
@pytest.mark.parametrize("smoothing", ["sample_eval", "trec_eval"])
def test_smoothing_outside_prels_is_a_usage_error(mode: str, smoothing: str,
                                                  tmp_path: Path) -> None:
    """Before the fix ``--smoothing sample_eval`` (the default's name) went through."""
    code, out, err = run_cli(["eval", "-R", mode, "--smoothing", smoothing,
                              *_case(mode, tmp_path)])
    assert (code, out) == (2, "") and len(err.splitlines()) == 1, err
    assert "'--smoothing'" in err and f"-R {mode}" in err
