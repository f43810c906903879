"""Diversity measures over subtopic qrels, with ndeval's conventions.

ndeval (the TREC Web track's evaluation program, version 4.5, which pyndeval wraps)
computes every measure from one quantity, the *novelty-discounted gain* of the
document at rank i (1-based):

.. math:: g_i = \\sum_{s \\in S} r_{i,s} (1-\\alpha)^{c_{i,s}}

where :math:`r_{i,s}` is 1 when the document is relevant to subtopic s (grade >= the
relevance level) and :math:`c_{i,s}` is how many documents above rank i are relevant
to s. S is the topic's subtopics with at least one relevant document (its size |S|);
a topic with none scores 0 on every measure. The families here are registered in
:data:`REGISTRY` under ir_measures' names (its pyndeval provider); ndeval's own
spellings (``alpha-nDCG@20``, ``strec@10``, ``MAP-IA``) are aliases.

A measure is a frozen :class:`DiversityMeasure`; ``str`` gives ir_measures' spelling
(``alpha_nDCG@20``, ``alpha_nDCG(alpha=0.3)@20``, ``NRBP(beta=0.8)``) and
:func:`parse_diversity` reads it back to an equal object.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.params import bad_param
from relkit.metrics.core.registry import Registry, did_you_mean
from relkit.metrics.measures.diversity_names import NAME as _NAME
from relkit.metrics.measures.diversity_names import is_diversity as is_diversity  # (here too)

ALPHA = 0.5   # ndeval's default redundancy intolerance
BETA = 0.5    # ndeval's default patience (NRBP)


def alpha_ndcg() -> None:
    r"""alpha-nDCG@k (Clarke et al., SIGIR 2008), normalised by a greedy ideal ranking.

    .. math:: \alpha\text{-nDCG@}k = \frac{\sum_{i \le k} g_i / \log_2(i+1)}
                                           {\sum_{i \le k} g^*_i / \log_2(i+1)}

    :math:`g^*` is the gain of the ideal ranking, built greedily as ndeval does: at each
    rank the judged document with the largest gain given the ranks above it, ties to the
    greatest docno (byte order). Parameters: ``alpha`` (default 0.5), the cutoff k.
    0 on an empty ranking and on a topic with no relevant document.

    Reference: C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan,
    S. Büttcher, I. MacKinnon, "Novelty and diversity in information retrieval
    evaluation", SIGIR 2008.
    """


def alpha_dcg() -> None:
    r"""alpha-DCG@k with ndeval's collection-independent normalisation.

    .. math:: \frac{\sum_{i \le k} g_i / \log_2(i+1)}
                   {\sum_{i \le k} |S| (1-\alpha)^{i-1} / \log_2(i+1)}

    (the "ideal ideal": every document relevant to every subtopic). ndeval divides only
    from rank 2 on, so alpha_DCG@1 is the raw gain :math:`g_1`. 0 on an empty ranking
    and with no relevant document. Reference: Clarke et al. (SIGIR 2008); ndeval.c.
    """


def err_ia() -> None:
    r"""ERR-IA@k, intent-aware expected reciprocal rank as ndeval computes it.

    .. math:: \text{ERR-IA@}k = \frac{\sum_{i \le k} g_i / i}
                                     {\sum_{i \le k} |S| (1-\alpha)^{i-1} / i}

    ndeval's form of Chapelle et al.'s ERR-IA with binary grades: the stopping
    probability is :math:`1-\alpha = 0.5` per relevant subtopic, averaged over the
    subtopics, normalised by the "ideal ideal" ranking (collection-independent). As in
    ndeval, ERR_IA@1 is not divided (:math:`g_1`). 0 on an empty ranking and with no
    relevant document.

    Reference: O. Chapelle, S. Ji, C. Liao, E. Velipasaoglu, L. Lai, S.-L. Wu,
    "Intent-based diversification of web search results: metrics and algorithms",
    Information Retrieval 14(6), 2011; O. Chapelle et al., CIKM 2009 (ERR).
    """


def nerr_ia() -> None:
    r"""nERR-IA@k: ERR-IA@k over the ERR-IA@k of the greedy ideal ranking (as for
    alpha-nDCG). 0 on an empty ranking and with no relevant document.
    Reference: Chapelle et al. (2011); ndeval.c."""


def nrbp() -> None:
    r"""Novelty- and rank-biased precision (Clarke, Kolla & Vechtomova, ICTIR 2009).

    .. math:: \text{NRBP} = \frac{1 - (1-\alpha)\beta}{|S|} \sum_i \beta^{i-1} g_i

    over the whole ranking (no cutoff; ``-M`` cuts the run first). Parameters ``alpha``
    and ``beta`` (both 0.5 by default). 0 on an empty ranking and with no relevant
    document. Reference: C. L. A. Clarke, M. Kolla, O. Vechtomova, "An effectiveness
    measure for ambiguous and underspecified queries", ICTIR 2009.
    """


def nnrbp() -> None:
    r"""nNRBP: NRBP over the NRBP of the greedy ideal ranking (all judged documents).
    0 with no relevant document (pyndeval gives NaN there: 0/0). Reference: Clarke,
    Kolla & Vechtomova (ICTIR 2009); ndeval.c."""


def p_ia() -> None:
    r"""Intent-aware precision P-IA@k (Agrawal et al., WSDM 2009).

    .. math:: \text{P-IA@}k = \frac{1}{|S|} \sum_{s \in S} \frac{1}{k}
              \sum_{i \le k} r_{i,s}

    A ranking shorter than k counts as padded with non-relevant documents. 0 on an
    empty ranking and with no relevant document. Reference: R. Agrawal, S. Gollapudi,
    A. Halverson, S. Ieong, "Diversifying search results", WSDM 2009.
    """


def st_recall() -> None:
    r"""Subtopic recall S-recall@k (ndeval's ``strec``): the share of the topic's
    subtopics covered by the top k.

    .. math:: \text{S-recall@}k = \frac{|\{s \in S : \exists i \le k,\ r_{i,s} = 1\}|}{|S|}

    0 on an empty ranking and with no relevant document. Reference: C. Zhai, W. Cohen,
    J. Lafferty, "Beyond independent relevance: methods and evaluation metrics for
    subtopic retrieval", SIGIR 2003.
    """


def ap_ia() -> None:
    r"""Intent-aware average precision (ndeval's ``MAP-IA``): the mean over subtopics of
    AP computed against that subtopic's relevant documents, over the whole ranking.

    .. math:: \text{AP-IA} = \frac{1}{|S|} \sum_{s \in S} \frac{1}{R_s}
              \sum_{i : r_{i,s} = 1} \frac{|\{j \le i : r_{j,s} = 1\}|}{i}

    0 on an empty ranking and with no relevant document. Reference: Agrawal et al.
    (WSDM 2009); ndeval.c.
    """


@dataclass(frozen=True)
class DiversityFamily:
    """One diversity measure family: its name and which parameters it takes."""

    name: str                    # ir_measures' name
    ndeval: str                  # ndeval's column name
    cutoff: bool                 # takes @k (and needs it)
    params: tuple[str, ...]      # of "alpha", "beta" (rel is always accepted)
    description: str
    doc: str = field(default="", compare=False)


REGISTRY: Registry[DiversityFamily] = Registry("diversity measure", MeasureError,
                                               list_known=False)


def _family(name: str, ndeval: str, cutoff: bool, params: tuple[str, ...],
            description: str, doc: object) -> DiversityFamily:
    return DiversityFamily(name, ndeval, cutoff, params, description,
                           getattr(doc, "__doc__", "") or "")


REGISTRY.register(
    _family("alpha_nDCG", "alpha-nDCG", True, ("alpha",),
            "alpha-nDCG@k, greedy ideal (Clarke et al. 2008)", alpha_ndcg),
    _family("alpha_DCG", "alpha-DCG", True, ("alpha",),
            "alpha-DCG@k over ndeval's ideal-ideal", alpha_dcg),
    _family("ERR_IA", "ERR-IA", True, (), "Intent-aware ERR@k (ndeval's form)", err_ia),
    _family("nERR_IA", "nERR-IA", True, (), "ERR-IA@k over the ideal ranking's", nerr_ia),
    _family("NRBP", "NRBP", False, ("alpha", "beta"),
            "Novelty- and rank-biased precision (Clarke et al. 2009)", nrbp),
    _family("nNRBP", "nNRBP", False, ("alpha", "beta"),
            "NRBP over the ideal ranking's", nnrbp),
    _family("AP_IA", "MAP-IA", False, (), "Intent-aware average precision", ap_ia),
    _family("P_IA", "P-IA", True, (), "Intent-aware precision@k", p_ia),
    _family("StRecall", "strec", True, (), "Subtopic recall@k (ndeval's strec)", st_recall),
)

# ndeval's spellings, and ir_measures' name for MAP-IA.
ALIASES = {fam.ndeval: fam.name for fam in REGISTRY.values()}
ALIASES["MAP_IA"] = "AP_IA"


@dataclass(frozen=True)
class DiversityMeasure:
    """One diversity measure with its parameters; ``str`` round-trips.

    Attributes
    ----------
    family : ir_measures' family name (``alpha_nDCG``).
    cutoff : k for the families that take one, else None.
    alpha, beta : ndeval's redundancy intolerance and patience (0.5 by default).
    rel : lowest grade that counts as relevant; None: the evaluation's (1).

    Examples
    --------
    >>> from relkit.metrics.measures.diversity import parse_diversity
    >>> m = parse_diversity("alpha_nDCG(alpha=0.3)@20")
    >>> m.cutoff, m.alpha, str(m)
    (20, 0.3, 'alpha_nDCG(alpha=0.3)@20')
    >>> str(parse_diversity("strec@10")), str(parse_diversity("NRBP(beta=0.8)"))
    ('StRecall@10', 'NRBP(beta=0.8)')
    """

    family: str
    cutoff: int | None = None
    alpha: float = ALPHA
    beta: float = BETA
    rel: int | None = None

    def __str__(self) -> str:
        parts = []
        if self.alpha != ALPHA:
            parts.append(f"alpha={_num(self.alpha)}")
        if self.beta != BETA:
            parts.append(f"beta={_num(self.beta)}")
        if self.rel is not None:
            parts.append(f"rel={self.rel}")
        params = f"({','.join(parts)})" if parts else ""
        at = f"@{self.cutoff}" if self.cutoff is not None else ""
        return f"{self.family}{params}{at}"

    @property
    def output(self) -> str:
        """The name in trec_eval-style output lines (``str`` of the measure)."""
        return str(self)


def _num(x: float) -> str:
    return repr(x) if not float(x).is_integer() else str(int(x))


def parse_diversity(name: str) -> DiversityMeasure:
    """Parse one diversity measure name (ir_measures' or ndeval's spelling).

    Parameters
    ----------
    name : str
        ``alpha_nDCG@20``, ``alpha-nDCG@20``, ``ERR_IA@10``, ``NRBP``,
        ``NRBP(alpha=0.5,beta=0.8)``, ``P_IA(rel=2)@10``, ``StRecall@20``, ``strec@20``,
        ``AP_IA`` / ``MAP-IA``.

    Returns
    -------
    DiversityMeasure

    Raises
    ------
    MeasureError
        For an unknown name (close ones suggested), a missing or bad cutoff, or a
        parameter the family does not take or with a bad value.
    """
    text = name.strip()
    m = _NAME.fullmatch(text)
    head = ALIASES.get(m["head"], m["head"]) if m else text
    if m is None or head not in REGISTRY:
        known = [*REGISTRY, *ALIASES]
        raise MeasureError(f"unknown diversity measure {text!r}"
                           + did_you_mean((m["head"] if m else text), known))
    fam = REGISTRY[head]
    cutoff: int | None = None
    if fam.cutoff:
        if m["k"] is None:
            raise MeasureError(f"{fam.name} needs a cutoff: {fam.name}@20 (ndeval reports "
                               "@5, @10 and @20)")
        if not re.fullmatch(r"\d+", m["k"]) or int(m["k"]) < 1:
            raise bad_param(fam.name, "cutoff", "an int >= 1", m["k"])
        cutoff = int(m["k"])
    elif m["k"] is not None:
        raise bad_param(fam.name, "cutoff", "absent (it covers the whole ranking)", m["k"])
    values: dict[str, float | int] = {}
    for part in (m["params"] or "").split(","):
        if not part.strip():
            continue
        key, sep, val = (s.strip() for s in part.partition("="))
        if not sep or key not in (*fam.params, "rel"):
            takes = ", ".join(f"{p}=" for p in (*fam.params, "rel"))
            raise MeasureError(f"{fam.name} takes the parameters {takes}; got {part!r}")
        if key == "rel":
            if not re.fullmatch(r"[+-]?\d+", val):
                raise bad_param(fam.name, "rel", "an int", val)
            values[key] = int(val)
            continue
        try:
            x = float(val)
        except ValueError:
            x = math.nan
        if not 0.0 <= x <= 1.0:   # ndeval's range for -alpha and -beta
            raise bad_param(fam.name, key, "a number in [0, 1]", val)
        values[key] = x
    return DiversityMeasure(fam.name, cutoff, float(values.get("alpha", ALPHA)),
                            float(values.get("beta", BETA)),
                            int(values["rel"]) if "rel" in values else None)


# ndeval's default output: its 21 columns in its order.
NDEVAL_DEFAULT = ("ERR_IA@5", "ERR_IA@10", "ERR_IA@20", "nERR_IA@5", "nERR_IA@10",
                  "nERR_IA@20", "alpha_DCG@5", "alpha_DCG@10", "alpha_DCG@20",
                  "alpha_nDCG@5", "alpha_nDCG@10", "alpha_nDCG@20", "NRBP", "nNRBP",
                  "AP_IA", "P_IA@5", "P_IA@10", "P_IA@20", "StRecall@5", "StRecall@10",
                  "StRecall@20")


_CONVENTIONS = """\
Subtopic qrels (the TREC Web track's diversity qrels, what ndeval reads) have four
fields per line, `topic subtopic docno grade`; a document judged for several subtopics
has a line for each. Evaluate them with `relkit eval -R subtopics` (default: ndeval's 21
columns) or `DiversityEvaluator(qrels, measures).compute(run)` in Python:

    relkit eval -R subtopics -m alpha_nDCG@20 -m ERR_IA@20 -m NRBP diversity.qrels run.txt

Plain qrels have four fields too (`qid iter docno grade`); a subtopic file passed as
plain qrels is refused when a document is judged twice for a topic under different
second fields (one line naming the file, the line and `-R subtopics`), and a diversity
measure asked of plain qrels names `-R subtopics` too.

The numbers are ndeval's (ndeval.c 4.5 as pyndeval 0.0.8 wraps it), equal bit for bit
on every measure and topic: `tests/test_diversity.py` compares 300 generated cases (ties,
topics without relevant documents, run topics without judgments, unjudged run
documents, alpha/beta of 0.5/0.5, 0.3/0.8, 1.0/0.5, 0.0/0.9) and Cranfield's 225 topics
and six real runs with subtopics derived by a fixed rule (a judged document is in
subtopic `c<grade>`, and with grade <= 3 also in `m<docno mod 3>`), plus a hand-worked
example. The conventions, each found against pyndeval:

- **Relevance**: a grade >= the level (`-l`, 1 by default; a measure's `rel=`) makes the
  document relevant to that subtopic; grades are binary above it. Lower grades,
  negatives included, are not relevant (pyndeval's rule; ndeval itself refuses negative
  grades). A document judged for some subtopics only is not relevant to the others.
- **Subtopics counted**: |S| is the topic's subtopics with at least one relevant
  document; a subtopic judged only non-relevant is ignored.
- **Topics**: a topic is evaluated when it is in both the run and the qrels; a run topic
  without judgments is ignored, a qrels topic without run lines too unless `-c` (then it
  scores 0). A topic whose judgments are all non-relevant scores 0 on every measure and
  counts in the mean (pyndeval gives NaN for its nNRBP, 0/0; relkit 0).
- **Run documents** not in the qrels are not relevant and take their rank. A document
  twice in a topic of the run is an error (ndeval's too); so is a (topic, subtopic,
  document) twice in the qrels (ndeval would count it twice in MAP-IA's totals).
- **Ties**: the run is ranked as everywhere in relkit, by score, then docno descending
  (trec_eval's order, ndeval's `-traditional`); the rank column is ignored. ndeval's
  default sorts by the rank column, and pyndeval by score then docno *ascending*: the
  tests hand pyndeval the run in relkit's order.
- **Ideal ranking** (alpha-nDCG, nERR-IA, nNRBP): ndeval's greedy one over the judged
  documents, at each rank the largest gain given the ranks above, ties to the greatest
  docno. Greedy is not always optimal (the problem is NP-hard), so alpha-nDCG can exceed
  1 on rare qrels, as in ndeval.
- **Normalisation**: alpha-DCG and ERR-IA divide by the "ideal ideal" ranking
  (|S| (1-alpha)^(i-1) at rank i), except at k = 1, where ndeval does not divide:
  alpha_DCG@1 and ERR_IA@1 are the raw gain of rank 1 (up to |S|). ERR-IA is ndeval's
  form (alpha-DCG with 1/i in place of the log discount); ir_measures gives it no alpha,
  so its alpha is 0.5.
- **Depth**: ndeval computes cutoffs up to 20 (pyndeval refuses more); relkit takes any
  k with the same formula. NRBP, nNRBP and AP-IA cover the whole ranking; `-M` cuts the
  run first, as ndeval's `-M`.
- **Order of addition**: a document's gains are added in the subtopics' order of first
  appearance in the file, as pyndeval numbers them; running gains and discounts are
  kept by repeated multiplication and C's `log`, as in ndeval (the difference would be
  in the last bit, and only for alpha other than 0.5).
- **Ids** are strings; ndeval's C program wants integer topics and subtopics and strips
  a `wt09-` style prefix from run topics, which relkit does not.
"""


def diversity_markdown() -> list[str]:
    """The diversity section of docs/measures.md: the families, the conventions, and
    each family's formula and reference (see :mod:`relkit.metrics.measures.reference`)."""
    out = ["# Diversity measures (subtopic qrels)", "",
           "| ir_measures name | ndeval name | parameters (default) | what |",
           "| --- | --- | --- | --- |"]
    for fam in REGISTRY.values():
        params = ", ".join([*(f"{p}=0.5" for p in fam.params), "rel=1"])
        name = f"{fam.name}@k" if fam.cutoff else fam.name
        ndeval = f"{fam.ndeval}@k" if fam.cutoff else fam.ndeval
        out.append(f"| `{name}` | `{ndeval}` | {params} | {fam.description} |")
    out += ["", _CONVENTIONS]
    import inspect

    for fam in REGISTRY.values():
        out += [f"## {fam.name}", "", inspect.cleandoc(fam.doc), ""]
    return out
