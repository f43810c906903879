"""Golden conformance: every expected output in ../shared/conformance/trec_eval,
reproduced byte for byte by the matching ``relkit eval`` call.

One generated test per (command, expected file, trec_eval version). Where
relkit deliberately differs from trec_eval (documented in docs/trec_eval.md)
the test asserts relkit's documented behaviour instead, never skips.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from helpers import CONFORMANCE, needs_shared, run_cli

pytestmark = needs_shared

UPSTREAM = [
    ("out.test", "qrels.test results.test"),
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
    ("out.test.meas_params", "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 "
     "-m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
     "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"),
    ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test"),
]


@pytest.mark.parametrize(("expected", "args"), UPSTREAM, ids=[f"{e}:{a.split()[-2]}"
                                                               for e, a in UPSTREAM])
def test_upstream(expected: str, args: str) -> None:
    code, out, err = run_cli("eval " + args, cwd=CONFORMANCE)
    assert code == 0, err
    assert out == (CONFORMANCE / expected).read_text()


def _cases() -> list[tuple[str, str, str]]:
    rows = []
    if not CONFORMANCE.is_dir():
        return rows
    for raw in (CONFORMANCE / "extra" / "CASES.tsv").read_text().splitlines():
        if raw.startswith("#") or not raw.strip():
            continue
        cid, versions, args = raw.split("\t")
        for v in versions.split(","):
            rows.append((cid, v, args))
    return rows


# Cases where relkit does something other than the trec_eval binary, on purpose.
# c07 (v10): trec_eval 10 aborts on a qrels topic missing from the run; we ignore
#   the topic as its own help text documents (and as 9.0.8 does).
# e03: a blank qrels line is skipped, not fatal. e06: every '#' line is a comment
#   (trec_eval 10 mis-parses the second of two consecutive comment lines).
# c10: trec_eval's rbp reads uninitialised min/max (undefined behaviour); for q10
#   (grades 0/1, no gain outside [0, 1]) we apply the documented rule: no
#   normalisation, so RBP(p=0.5) of '101' is 0.5 * (1 + 0.25) = 0.6250.
DIVERGES = {("c07_missing_no_c", "v10"), ("c10_v10_measures", "v10"), ("e03_blank_qrels", "v10"),
            ("e03_blank_qrels", "v908"), ("e06_two_comments", "v10"),
            ("e06_two_comments", "v908")}


@pytest.mark.parametrize(("cid", "version", "args"), _cases(),
                         ids=[f"{c}.{v}" for c, v, _ in _cases()])
def test_extra(cid: str, version: str, args: str) -> None:
    extra = CONFORMANCE / "extra"
    compat = "10" if version == "v10" else "9"
    code, out, err = run_cli(f"eval --compat {compat} {args}", cwd=extra)
    want_rc = int((extra / f"{cid}.{version}.rc").read_text())
    out_file = extra / f"{cid}.{version}.out"
    expected = out_file.read_text() if out_file.exists() else ""
    if (cid, version) in DIVERGES:
        _check_divergence(cid, version, code, out, err)
        return
    if want_rc != 0:
        # Our own error text: one line naming the file and line, exit 1.
        assert code == 1 and out == ""
        assert err.startswith("relkit: error: ") and err.count("\n") == 1
        source = args.split()[-1] if cid.endswith("_run") else args.split()[-2]
        assert source in err and ":" in err
        return
    assert code == 0, err
    assert out == expected


def _check_divergence(cid: str, version: str, code: int, out: str, err: str) -> None:
    extra = CONFORMANCE / "extra"
    assert code == 0, err
    if cid == "c07_missing_no_c":
        # per-topic lines as trec_eval 10 printed them before aborting, then the
        # summary over the topics present: the official lines of c02's summary.
        per_query = (extra / "c07_missing_no_c.v10.out").read_text()
        official = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                    "Rprec", "bpref", "recip_rank"}
        summary = [ln + "\n" for ln in (extra / "c02_all_trec.v10.out").read_text().splitlines()
                   if ln.split("\t")[1] == "all" and (
                       ln.split()[0] in official or ln.startswith(("iprec", "P_")))]
        assert out == per_query + "".join(summary)
    elif cid == "c10_v10_measures":
        want = (extra / "c10_v10_measures.v10.out").read_text().splitlines(keepends=True)
        got = out.splitlines(keepends=True)
        differ = [(w, g) for w, g in zip(want, got, strict=True) if w != g]
        assert [g for _, g in differ] == ["rbp_p=0.5             \tq10\t0.6250\n",
                                          "rbp_p=0.5             \tall\t0.2620\n"]
    else:
        # e03 / e06: evaluated exactly like the same qrels without the blank
        # or comment lines.
        args = dict(line.split("\t")[::2] for line in
                    (extra / "CASES.tsv").read_text().splitlines()
                    if line.startswith(cid))[cid].split()
        qrels_name = args[-2]
        cleaned = [ln for ln in (extra / qrels_name).read_text().splitlines()
                   if ln.strip() and not ln.lstrip().startswith("#")]
        tmp = Path(tempfile.mkdtemp()) / "clean.qrels"
        tmp.write_text("\n".join(cleaned) + "\n")
        code2, want, err2 = run_cli(["eval", *args[:-2], str(tmp), args[-1]], cwd=extra)
        assert code2 == 0, err2
        assert out == want and out.startswith("map ")


@pytest.mark.parametrize(("expected", "args"), [
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
])
def test_chunked_evaluation_is_identical(expected: str, args: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Large runs are evaluated a few topics at a time; force tiny chunks here.
    import relkit.metrics.evaluator

    monkeypatch.setattr(relkit.metrics.evaluator, "CHUNK_ROWS", 700)
    code, out, err = run_cli("eval " + args, cwd=CONFORMANCE)
    assert code == 0, err
    assert out == (CONFORMANCE / expected).read_text()
