"""What the text, Markdown and HTML agreement reports show: a head and sections.

Each format renders the same :class:`Section` tables, built once by
:func:`sections` (:mod:`relkit.judging.agreement.report` picks the format).
"""

from __future__ import annotations

from dataclasses import dataclass

from relkit.judging.agreement.analysis import Analysis, Level, Pair
from relkit.judging.agreement.result import Stat

MAX_PAIR_ROWS = 60

SHORT = {"percent_agreement": "agree", "cohen_kappa": "kappa", "cohen_kappa_linear": "kappa_lin",
         "cohen_kappa_quadratic": "kappa_quad", "scott_pi": "pi", "pabak": "PABAK",
         "prevalence_index": "PI", "bias_index": "BI", "positive_agreement": "p_pos",
         "negative_agreement": "p_neg"}


@dataclass
class Section:
    """One table of the report; ``key`` is its anchor in the HTML report (unique)."""

    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    key: str = ""


def levels(a: Analysis) -> list[Level]:
    """The views the report shows: graded and binarised, or only binary on a two-grade scale.

    On a two-grade scale the graded view is the binary one again (same tables, same
    numbers, only the weighted kappas that equal the unweighted one added): shown once.
    """
    return [a.binary] if len(a.graded.grades) <= 2 else [a.graded, a.binary]


def num(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None else format(x + 0.0, spec).replace("-0.000", "0.000")


def cell(s: Stat) -> str:
    """A value with its interval (bootstrap preferred for display) or 'undefined'."""
    if s.value is None:
        return "undefined"
    iv = s.analytic or s.bootstrap
    return num(s.value) + (f" [{num(iv.low)}, {num(iv.high)}]" if iv else "")


def _overall(lv: Level) -> Section:
    rows = []
    for name, s in lv.overall.items():
        rows.append([name, num(s.value), str(s.n), num(s.pa), num(s.pe),
                     f"{s.analytic.low:.3f}–{s.analytic.high:.3f}" if s.analytic else "-",
                     f"{s.bootstrap.low:.3f}–{s.bootstrap.high:.3f}" if s.bootstrap else "-",
                     s.band or "-", s.reason or ""])
    return Section(f"All assessors ({lv.name})",
                   ["statistic", "value", "n", "P_a", "P_e", "analytic CI", "bootstrap CI",
                    "Landis-Koch", "note"], rows,
                   "n: items judged by two or more assessors (pairs, for the mean pairwise "
                   "kappa; for ICC, items judged by every assessor); P_a, P_e: observed and "
                   "chance agreement, value = (P_a - P_e)/(1 - P_e)",
                   f"overall-{lv.name}")


def _pairs(key: str, title: str, pairs: list[Pair], note: str = "") -> Section | None:
    if not pairs:
        return None
    names = list(pairs[0].stats)
    rows = [[p.a, p.b, str(int(p.table.sum()))] + [cell(p.stats[k]) for k in names]
            for p in pairs[:MAX_PAIR_ROWS]]
    if len(pairs) > MAX_PAIR_ROWS:
        note = (note + " " if note else "") + (f"first {MAX_PAIR_ROWS} of {len(pairs)} pairs; "
                                              "--format json has all")
    return Section(title, ["a", "b", "n"] + [SHORT.get(k, k) for k in names], rows,
                   note or "value [95% CI: analytic where one exists, else bootstrap]", key)


TOPIC_COLUMNS = ("percent_agreement", "fleiss_kappa", "krippendorff_alpha_ordinal", "gwet_ac1",
                 "mean_pairwise_cohen_kappa")
TOPIC_SHORT = {"percent_agreement": "agree", "fleiss_kappa": "Fleiss kappa [CI]",
               "krippendorff_alpha_ordinal": "alpha_ord", "gwet_ac1": "AC1",
               "mean_pairwise_cohen_kappa": "mean pair kappa", "pairs": "pairs"}


def _topics(lv: Level) -> Section | None:
    if not lv.per_topic:
        return None
    rows = []
    for t, d in lv.per_topic.items():
        row = [t, str(d["fleiss_kappa"].n)]
        for k in TOPIC_COLUMNS:
            s = d.get(k)
            row.append("-" if s is None else cell(s) if k == "fleiss_kappa" else num(s.value))
        row.append(str(len(lv.topic_pairs.get(t, []))))
        rows.append(row)
    return Section(f"Per topic ({lv.name})", ["topic", "n"] + [TOPIC_SHORT[k] for k in
                                                                TOPIC_COLUMNS] + ["pairs"],
                   rows, "n: items judged by two or more assessors; pairs: assessor pairs with "
                   "a common item; '-': undefined (see JSON for why). --format json has every "
                   "statistic per topic and per assessor pair per topic, with intervals",
                   f"topics-{lv.name}")


def sections(a: Analysis) -> list[Section]:
    out: list[Section] = []
    for lv in levels(a):
        out.append(_overall(lv))
        for s in (_pairs(f"pairs-{lv.name}", f"Assessor pairs ({lv.name})", lv.pairs),
                  _pairs(f"gold-{lv.name}", f"Against gold {a.gold!r} ({lv.name})", lv.gold),
                  _pairs(f"majority-{lv.name}", f"Against the majority of the others "
                         f"({lv.name})", lv.majority,
                         "majority: most frequent grade of the others, ties to the lower"),
                  _topics(lv)):
            if s is not None:
                out.append(s)
    if a.overlap:
        out.append(Section("Overlap of relevant sets (Voorhees 2000)",
                           ["a", "b", "items", "rel_a", "rel_b", "both", "either", "overlap"],
                           [[o["a"], o["b"], str(o["items"]), str(o["relevant_a"]),
                             str(o["relevant_b"]), str(o["intersection"]), str(o["union"]),
                             num(o["overlap"])] for o in a.overlap[:MAX_PAIR_ROWS]],
                           f"relevant: grade >= {a.threshold}; overlap = both / either",
                           "overlap"))
    if a.effect:
        e = a.effect
        out.append(Section(
            f"Effect on conclusions ({e['measure']}, {len(e['systems'])} runs)",
            ["a", "b", "topics", "tau", "tau_ap", "sig_a", "sig_b", "flips", "reversals"],
            [[p["a"], p["b"], str(p["topics"]), num(p.get("kendall_tau")), num(p.get("tau_ap")),
              str(p.get("significant_a", "-")), str(p.get("significant_b", "-")),
              str(p.get("flips", "-")), str(p.get("reversals", "-"))] for p in e["pairs"]],
            f"{e['test']} at alpha {e['alpha']}; flips: system pairs whose conclusion changes",
            "effect"))
    return out


def head(a: Analysis) -> list[str]:
    """The lines above the tables: counts, scale, interval settings, notes."""
    o = a.options
    return [f"Assessor agreement: {len(a.assessors)} assessors, {a.items:,} items, "
            f"{a.judgments:,} judgments, {a.topics} topics",
            f"Scale {a.scale!r} (grades {' '.join(map(str, a.graded.grades))}), binarised at "
            f"grade >= {a.threshold}" + (f"; gold: {a.gold!r}" if a.gold else ""),
            f"{o.level:.0%} intervals (analytic: {'t(n - 1)' if o.interval == 't' else 'normal'}"
            f"); bootstrap: {o.replicates} replicates over items, "
            f"seed {o.seed}. Landis & Koch bands are labels, not tests."
            ] + [f"Note: {n}" for n in a.notes]
