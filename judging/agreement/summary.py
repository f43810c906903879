"""What a lead reads first: the headline statistics, overlap, effect, who disagrees.

Picked once from an :class:`Analysis` (no new statistics: every number is one
the detailed sections show), then rendered by each format: a screen of cards
in HTML, a block of lines in text and Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from relkit.judging.agreement.analysis import Analysis, Level, Pair
from relkit.judging.agreement.result import Stat
from relkit.judging.agreement.sections import cell, levels, num

# The pair that "disagrees most" is picked among pairs with at least this many common
# items when any has that many: crowd data has thousands of 2-item pairs whose kappa of
# -1 says nothing about the assessors.
MIN_PAIR_ITEMS = 20
WEAKEST_TOPICS = 5


@dataclass
class Card:
    """One box of the summary: a title, lines of text, and the details it links to."""

    title: str
    lines: list[str]
    links: list[tuple[str, str]] = field(default_factory=list)   # (anchor key, label)


@dataclass
class Headline:
    """The headline statistics: one row per statistic, one column per level."""

    levels: list[str]
    rows: list[tuple[str, list[Stat | None]]]


def _alpha_name(lv: Level) -> str:
    return ("krippendorff_alpha_nominal" if len(lv.grades) <= 2
            else "krippendorff_alpha_ordinal")


def _pair_kappa_label(a: Analysis) -> str:
    peers = len([x for x in a.assessors if x != a.gold])
    return "Cohen's kappa" if peers == 2 else "mean pairwise Cohen's kappa"


def headline(a: Analysis) -> Headline:
    """Percent agreement, kappa, alpha and AC1 on each level shown."""
    lvs = levels(a)
    peers = len([x for x in a.assessors if x != a.gold])
    names: list[tuple[str, str | None]] = [
        ("percent agreement", "percent_agreement"),
        (_pair_kappa_label(a), "mean_pairwise_cohen_kappa")]
    if peers > 2:
        names.append(("Fleiss' kappa", "fleiss_kappa"))
    names += [("Krippendorff's alpha", None), ("Gwet's AC1", "gwet_ac1")]
    icc = lvs[0].overall.get("icc_2_1")
    if icc is not None and icc.value is not None:
        # only when every assessor judged common items (crowd data: undefined, not shown)
        names.append(("ICC(2,1), absolute agreement", "icc_2_1"))
    rows = []
    for label, key in names:
        stats = [lv.overall.get(key or _alpha_name(lv)) for lv in lvs]
        if key == "mean_pairwise_cohen_kappa" and peers == 2:
            # one pair: its own kappa, with the analytic interval the pairs table shows
            stats = [lv.pairs[0].stats.get("cohen_kappa") if len(lv.pairs) == 1 else s
                     for lv, s in zip(lvs, stats, strict=True)]
        if key is None:
            label += " (" + ("nominal" if len(lvs) == 1 else "ordinal / nominal") + ")"
        rows.append((label, stats))
    return Headline([lv.name for lv in lvs], rows)


def _kappa(p: Pair) -> float | None:
    s = p.stats.get("cohen_kappa")
    return None if s is None else s.value


def item_floor(sizes: list[int]) -> int:
    """:data:`MIN_PAIR_ITEMS` when it leaves some pairs out and some in, else 0."""
    return MIN_PAIR_ITEMS if any(n >= MIN_PAIR_ITEMS for n in sizes) and any(
        n < MIN_PAIR_ITEMS for n in sizes) else 0


def _among(floor: int) -> str:
    return f" (among pairs with >= {floor} common items)" if floor else ""


def most_disagreeing(pairs: list[Pair]) -> tuple[Pair | None, int]:
    """The defined pair with the lowest Cohen's kappa, and the item floor it was chosen by
    (0 when no pair was left out by it)."""
    floor = item_floor([int(p.table.sum()) for p in pairs])
    ok = [p for p in pairs if _kappa(p) is not None and p.table.sum() >= floor]
    if not ok:
        return None, floor
    return min(ok, key=lambda p: (_kappa(p), -int(p.table.sum()))), floor


def _pair_line(p: Pair) -> str:
    s = p.stats["cohen_kappa"]
    return f"{p.a} vs {p.b}: kappa {cell(s)} on {int(p.table.sum()):,} items"


def _who(a: Analysis, lv: Level) -> Card:
    lines = []
    worst, floor = most_disagreeing(lv.pairs)
    floors = {floor}
    if worst is not None:
        lines.append(("Least agreement: " if len(lv.pairs) > 1 else "") + _pair_line(worst))
        best = max((p for p in lv.pairs if _kappa(p) is not None
                    and p.table.sum() >= floor), key=lambda p: _kappa(p) or 0.0)
        if best is not worst:
            lines.append("Most agreement: " + _pair_line(best))
    elif lv.pairs:
        lines.append("No assessor pair has a defined kappa (see the pairs table).")
    for what, pairs in (("gold", lv.gold), ("the majority of the others", lv.majority)):
        far, floor = most_disagreeing(pairs)
        floors.add(floor)
        if far is not None:
            lines.append(f"Furthest from {what}: {far.a}, kappa "
                         f"{cell(far.stats['cohen_kappa'])} on {int(far.table.sum()):,} items")
    if max(floors):
        lines.append(f"(Pairs with fewer than {max(floors)} common items left out.)")
    if not lines:     # (no pair, no gold, no majority: nobody judged an item in common)
        lines.append("No pair of assessors judged a common item.")
    links = [(f"{k}-{lv.name}", t) for k, t, ps in
             (("pairs", "all pairs", lv.pairs), ("gold", "against gold", lv.gold),
              ("majority", "against the majority", lv.majority)) if ps]
    return Card(f"Who disagrees with whom ({lv.name})", lines,
                [("kappa-matrix", "kappa matrix"), *links])


def _overlap(a: Analysis) -> Card:
    floor = item_floor([int(o["items"]) for o in a.overlap])
    ov = [o for o in a.overlap if o["overlap"] is not None and o["items"] >= floor]
    rel = f"relevant: grade >= {a.threshold}"
    if not a.overlap:
        return Card("Overlap of relevant sets", ["No pair of assessors judged a common item."])
    if not ov:
        return Card("Overlap of relevant sets", [f"Undefined: no assessor found anything "
                                                 f"relevant ({rel})."], [("overlap", "table")])
    if len(a.overlap) == 1:
        o = ov[0]
        lines = [f"{num(o['overlap'])}: {o['intersection']:,} items relevant to both of "
                 f"{o['union']:,} relevant to either ({rel})",
                 f"{o['a']} found {o['relevant_a']:,} relevant, {o['b']} {o['relevant_b']:,}, "
                 f"of {o['items']:,} common items"]
    else:
        vals = [float(o["overlap"]) for o in ov]
        low = min(ov, key=lambda o: float(o["overlap"]))
        lines = [f"mean {num(sum(vals) / len(vals))} over {len(ov):,} pairs{_among(floor)}, "
                 f"range {num(min(vals))}–{num(max(vals))} ({rel})",
                 f"lowest: {low['a']} vs {low['b']}, {num(low['overlap'])} "
                 f"({low['intersection']:,} of {low['union']:,})"]
    return Card("Overlap of relevant sets", lines, [("overlap", "table")])


def _effect(a: Analysis) -> Card:
    e = a.effect
    if not e:
        return Card("Effect on conclusions", [
            "Not computed: give the runs (--runs) to see whether the systems would be "
            "ranked differently under each assessor's judgments."])
    done = [p for p in e["pairs"] if p.get("kendall_tau") is not None]
    head = f"{e['measure']} of {len(e['systems'])} runs, {e['test']}, alpha {e['alpha']}"
    if not done:
        return Card("Effect on conclusions", [head, "Undefined for every pair: "
                                              + str(e["pairs"][0].get("reason", ""))],
                    [("effect", "table")])
    worst = min(done, key=lambda p: float(p["kendall_tau"]))
    who = f" ({worst['a']} vs {worst['b']})" if len(e["pairs"]) > 1 else ""
    low = "lowest " if len(done) > 1 else ""
    lines = [head,
             f"Kendall's tau between the system orderings: {low}{num(worst['kendall_tau'])}"
             f"{who}; tau_AP {num(worst.get('tau_ap'))}",
             f"Significance conclusions that change: {worst['flips']} of "
             f"{worst['system_pairs']} system pairs ({worst['reversals']} reversed; "
             f"significant: {worst['significant_a']} under {worst['a']}, "
             f"{worst['significant_b']} under {worst['b']})"]
    return Card("Effect on conclusions", lines, [("effect", "table")])


def _topics(lv: Level) -> Card:
    vals = [(t, d["fleiss_kappa"].value) for t, d in lv.per_topic.items()
            if "fleiss_kappa" in d and d["fleiss_kappa"].value is not None]
    undefined = len(lv.per_topic) - len(vals)
    if not vals:
        return Card(f"Topics ({lv.name})", ["No topic has a defined Fleiss' kappa."],
                    [(f"topics-{lv.name}", "per-topic table")])
    worst = sorted(vals, key=lambda tv: (tv[1], tv[0]))[:WEAKEST_TOPICS]
    lines = ["Lowest Fleiss' kappa: " + ", ".join(f"{t} ({num(v, '.2f')})" for t, v in worst),
             f"{sum(v < 0.4 for _, v in vals):,} of {len(vals):,} topics below 0.40"
             + (f"; {undefined:,} undefined (one grade only, or one assessor)"
                if undefined else "")]
    return Card(f"Topics to look at ({lv.name})", lines,
                [("topic-chart", "per-topic chart"), (f"topics-{lv.name}", "per-topic table")])


def cards(a: Analysis) -> list[Card]:
    """The summary after the headline statistics, in the order a lead reads it."""
    first = levels(a)[0]
    return [_overlap(a), _effect(a), _who(a, first), _topics(first)]
