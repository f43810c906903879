"""Degenerate judgments give "undefined" statistics in every report format, never a crash.

The README promises it ("Degenerate inputs give "status": "undefined" with a reason"). Two
inputs a newcomer met escaped as tracebacks: two assessors with no item in common (the
summary's "who disagrees" card had no line to show) and judgments that all gave one
grade with the scale inferred from them (PABAK's k/(k-1) at k = 1). The property walks
every report format of :data:`~relkit.judging.agreement.report.FORMATS` over small
generated judgments, the scale inferred as `relkit agree` infers it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.judging.agreement.analysis import Options, analyse
from relkit.judging.agreement.frame import AgreementError, Ratings, infer_scale
from relkit.judging.agreement.report import FORMATS


@st.composite
def judgments(draw: st.DrawFn) -> pd.DataFrame:
    """2-3 assessors on 1-5 items of 1-2 topics, any of them missing, grades from a
    small set (one grade only, often)."""
    grades = draw(st.sampled_from([[1], [0], [0, 1], [0, 2], [0, 1, 2, 3]]))
    rows = []
    for item in range(draw(st.integers(1, 5))):
        topic = f"t{item % draw(st.integers(1, 2))}"
        for who in ("ann", "bob", "cy")[:draw(st.integers(2, 3))]:
            if draw(st.booleans()) or item == 0:
                rows.append((who, topic, f"d{item:02d}", draw(st.sampled_from(grades))))
    return pd.DataFrame(rows, columns=["assessor", "topic", "doc", "grade"])


@settings(max_examples=examples(80), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(judgments())
def test_every_format_reports_degenerate_judgments(frame: pd.DataFrame) -> None:
    scale = infer_scale(frame["grade"])
    try:
        a = analyse(Ratings.from_frame(frame, scale), scale.values[-1],
                    opts=Options(replicates=0))
    except AgreementError:
        return       # a clean, one-line refusal (one assessor left...): the CLI says it
    for fmt in FORMATS:
        assert FORMATS.lookup(fmt).render(a)


@pytest.mark.filterwarnings("error")     # numpy's RuntimeWarning reached stderr
@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize(("a", "b"), [
    ("1 0 D1 1\n1 0 D2 0\n", "2 0 D1 1\n2 0 D2 0\n"),      # no item in common
    ("1 0 D1 1\n1 0 D2 1\n", "1 0 D1 1\n1 0 D2 1\n"),      # one grade, scale inferred
], ids=["no-common-item", "one-grade"])
def test_the_newcomers_two_cases_through_the_cli(tmp_path, a: str, b: str,  # type: ignore[no-untyped-def]
                                                 fmt: str) -> None:
    (tmp_path / "p.qrels").write_text(a)
    (tmp_path / "q.qrels").write_text(b)
    code, out, err = run_cli(["agree", str(tmp_path / "p.qrels"), str(tmp_path / "q.qrels"),
                              "--format", fmt, "--replicates", "0"])
    assert code == 0, err
    assert "Traceback" not in err and out
    if fmt == "json" and a == b:
        import json

        pabak = json.loads(out)["graded"]["pairs"][0]["stats"]["pabak"]
        assert pabak["status"] == "undefined" and "one grade" in pabak["reason"], pabak
    if fmt == "text" and a != b:
        assert "No pair of assessors judged a common item." in out, out


def test_pabak_is_undefined_on_a_one_grade_scale() -> None:
    from relkit.judging.agreement.pair_coefficients import _pabak_se, pabak

    t = np.array([[5.0]])       # one grade, five items, both assessors gave it
    assert np.isnan(pabak(t, np.array([1]))) and np.isnan(_pabak_se(t, np.array([1])))
