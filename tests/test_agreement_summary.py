"""The agreement summary picks the right numbers, and a two-grade scale is shown once.

On Fleiss's (1971) published diagnoses: 30 patients, 6 psychiatrists, 5 diagnoses
(tests/agreement_data.py). The pair that disagrees most is checked against
scikit-learn's Cohen's kappa over all 15 pairs; the headline Fleiss' kappa against
the published 0.4302445 (R irr's kappam.fleiss). The binary case is the same data as
"neurosis (4) or not".
"""

from __future__ import annotations

import re
from itertools import combinations

import numpy as np
import pytest

from agreement_data import DIAGNOSES, long_frame
from relkit.corpora.types import RelevanceScale
from relkit.judging.agreement.analysis import Analysis, Options, analyse
from relkit.judging.agreement.frame import Ratings


def _analysis(binary: bool) -> Analysis:
    rows = (DIAGNOSES == 4).astype(int) if binary else DIAGNOSES
    scale = (RelevanceScale.from_values("neurosis", range(2)) if binary else
             RelevanceScale.from_values("dx", range(1, 6)))
    r = Ratings.from_frame(long_frame(rows), scale)  # type: ignore[arg-type]
    return analyse(r, 1 if binary else 4, opts=Options(replicates=0))


def test_headline_and_most_disagreeing_pair_match_published_and_sklearn() -> None:
    from sklearn.metrics import cohen_kappa_score

    from relkit.judging.agreement.summary import cards, headline, most_disagreeing

    a = _analysis(binary=False)
    h = headline(a)
    assert h.levels == ["graded", "binary"]
    row = dict(h.rows)
    assert row["Fleiss' kappa"][0].value == pytest.approx(0.4302445, abs=1e-7)  # type: ignore[union-attr]
    kappas = {(f"r{i + 1}", f"r{j + 1}"): cohen_kappa_score(DIAGNOSES[:, i], DIAGNOSES[:, j])
              for i, j in combinations(range(6), 2)}
    worst, floor = most_disagreeing(a.graded.pairs)
    assert worst is not None and floor == 0     # every pair has the same 30 items
    assert (worst.a, worst.b) == min(kappas, key=kappas.__getitem__)
    assert worst.stats["cohen_kappa"].value == pytest.approx(min(kappas.values()), abs=1e-12)
    who = next(c for c in cards(a) if c.title.startswith("Who disagrees"))
    assert who.lines[0].startswith(f"Least agreement: {worst.a} vs {worst.b}: kappa "
                                   f"{min(kappas.values()):.3f}")
    # overlap: the mean over the 15 pairs of |both| / |either| (neurosis = grade >= 4)
    rel = DIAGNOSES >= 4
    ov = [(rel[:, i] & rel[:, j]).sum() / (rel[:, i] | rel[:, j]).sum()
          for i, j in combinations(range(6), 2)]
    card = next(c for c in cards(a) if c.title.startswith("Overlap"))
    assert card.lines[0].startswith(f"mean {np.mean(ov):.3f} over 15 pairs, range "
                                    f"{min(ov):.3f}–{max(ov):.3f}")


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_two_grade_scale_shows_each_section_once(fmt: str) -> None:
    from relkit.judging.agreement.report import FORMATS

    out = FORMATS.lookup(fmt).render(_analysis(binary=True))
    assert "graded" not in out
    titles = (re.findall(r"<h2>(.*?)</h2>", out) if fmt == "html" else
              ["".join(t) for t in re.findall(r"^(?:== (.*) ==|## (.*))$", out, re.M)])
    assert titles and len(titles) == len(set(titles)), titles
    # the summary leads: in HTML its first card is the headline statistics
    assert titles[0] == ("Agreement" if fmt == "html" else "Summary"), titles
    if fmt == "html":
        ids = re.findall(r'\bid=["\']?([\w-]+)', out)
        assert len(ids) == len(set(ids)), ids
