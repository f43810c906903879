"""``relkit status``'s report: progress per topic and assessor, as text, TSV or JSON.

:func:`status_report` reads the store once and words what it holds: the assessors'
and topics' progress (:func:`relkit.judging.store.reports.status`), then, only when
the database has them, the adaptive topics a stopping rule halted, the preference
pairs answered and each cal topic's review. An assessor (``$RELKIT_USER``, a team
login) sees their own progress only. The command prints the report; this module
never prints.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Literal, get_args

from relkit.metrics.core.options import OptionError

Fmt = Literal["text", "tsv", "json"]


def check_format(fmt: str) -> None:
    """Raise :class:`OptionError` unless ``fmt`` is one of :data:`Fmt`."""
    if fmt not in get_args(Fmt):
        raise OptionError("--format", f"expected one of {', '.join(get_args(Fmt))}")


def status_report(store: Any, fmt: str) -> str:
    """The status of the project in ``store`` as ``fmt`` (text, tsv or json), without a
    final newline; what the person ``store`` acts for may see."""
    from relkit.judging.store.access.identity import who
    from relkit.judging.store.reports import status as get_status

    me = who(store)
    only = me.name if me.assessor else None
    # An assessor sees their own progress only: their row, and their topics counting
    # their own items and grades, not everyone's (on PostgreSQL the database hides the
    # others' rows anyway); no automatic judges' grades.
    st = get_status(store, only=only)
    if me.assessor:
        st = type(st)(topics=st.topics, assessors=st.assessors, automatic=[])
    text = _status_text(st, fmt)
    halted = [x for x in _stops(store) if only is None or x.assessor == only]
    text = _with_stops(text, halted, fmt)
    text = _with_preferences(text, _preferences(store, only), fmt)
    return _with_cal(store, text, fmt, only)


def _with_stops(text: str, halted: list[Any], fmt: str) -> str:
    """``text`` plus the adaptive topics whose stopping rule said stop (short of their
    budget); unchanged without any."""
    if halted and fmt == "json":
        return text[:-2] + ',\n  "stopped": ' + json.dumps(
            [asdict(x) for x in halted]) + "\n}"
    if not halted:
        return text
    rows = [["stopped", "assessor", "pool", "rule", "judged", "budget"],
            *[[x.topic, x.assessor, x.pool, x.rule, str(x.judged), str(x.budget)]
              for x in halted]]
    if fmt == "tsv":
        return text + "\n\n" + "\n".join("\t".join(r) for r in rows)
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return text + "\n\n" + "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width,
                                                                          strict=True))
                                     .rstrip() for r in rows)


def _with_preferences(text: str, prefs: list[dict[str, Any]], fmt: str) -> str:
    """``text`` plus the pairs answered per topic (relkit judge --pairs), against all the
    pool's pairs: what all-pairs asks; top-k and adaptive stop earlier (the strategy is
    the screen's choice, not stored). Unchanged without any."""
    if prefs and fmt == "json":
        return text[:-2] + ',\n  "preferences": ' + json.dumps(prefs) + "\n}"
    if not prefs:
        return text
    rows = [["preferences", "assessor", "answered", "all_pairs"],
            *[[p["topic"], p["assessor"], str(p["answered"]), str(p["all_pairs"])]
              for p in prefs]]
    return text + "\n\n" + _table(rows, fmt)


def _table(rows: list[list[str]], fmt: str) -> str:
    if fmt == "tsv":
        return "\n".join("\t".join(r) for r in rows)
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)).rstrip()
                     for r in rows)


def _preferences(store: Any, only: str | None) -> list[dict[str, Any]]:
    """Preference progress per topic and assessor, only if the database holds any
    preference (so the status of a project without them stays as it was)."""
    from sqlalchemy import select
    from sqlmodel import col

    from relkit.judging.store.tables import PreferenceRow

    with store.read() as s:
        if s.execute(select(col(PreferenceRow.id)).limit(1)).first() is None:
            return []
    from relkit.judging.store.preferences import topic_progress
    from relkit.pooling.pool import natural

    got = [{"topic": t, "assessor": who, "answered": n, "all_pairs": total}
           for (who, t), (n, total) in topic_progress(store).items()
           if (only is None or who == only) and (n or total)]
    return sorted(got, key=lambda p: (natural(p["topic"]), p["assessor"]))


def _with_cal(store: Any, text: str, fmt: str, only: str | None) -> str:
    """``text`` plus, when a pool is ``cal``, each cal topic's review (judged, relevant
    found, the stopping rule's state and recall estimate); unchanged otherwise."""
    if not _has_cal(store):
        return text
    from relkit.judging.store.calstatus import cal_standing

    cal = [x for x in cal_standing(store) if only is None or x.assessor == only]
    if not cal:
        return text
    if fmt == "json":
        return text[:-2] + ',\n  "cal": ' + json.dumps([asdict(x) for x in cal]) + "\n}"
    rows = [["cal topic", "assessor", "pool", "judged", "relevant", "rule", "recall_est",
             "state"],
            *[[x.topic, x.assessor, x.pool, str(x.judged), str(x.relevant), x.rule or "-",
               "-" if x.recall is None else f"{x.recall:.2f}", x.state] for x in cal]]
    return text + "\n\n" + _table(rows, fmt)


def _has_cal(store: Any) -> bool:
    """Any cal pool? (Read from the pools' parameters: only then the strategies load.)"""
    from sqlalchemy import select

    from relkit.judging.store.tables import PoolRow

    with store.read() as s:
        params = s.execute(select(PoolRow).with_only_columns(  # type: ignore[call-overload]
            PoolRow.params_json)).scalars()
        return any('"strategy": "cal"' in (p or "") for p in params)


def _stops(store: Any) -> list[Any]:
    """The stopping rules' verdicts, if any pool has a rule (only then the strategies load)."""
    from sqlalchemy import select

    from relkit.judging.store.tables import PoolRow

    with store.read() as s:
        params = s.execute(select(PoolRow).with_only_columns(  # type: ignore[call-overload]
            PoolRow.params_json)).scalars()
        if not any('"stop"' in (p or "") for p in params):
            return []
    from relkit.judging.store.adaptive import stops

    return stops(store)


def _status_text(st: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"topics": [asdict(t) for t in st.topics],
                           "assessors": [asdict(a) for a in st.assessors],
                           "automatic": [asdict(a) for a in st.automatic]}, indent=2)
    sep = "\t" if fmt == "tsv" else "  "

    def num(x: float | None, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    # done + skipped + pending = items; "later" items are part of pending.
    rows = [["assessor", "topics", "items", "done", "skipped", "pending", "later", "per_hour",
             "median_dwell_s"]]
    rows += [[a.assessor, str(a.topics), str(a.items), str(a.done), str(a.skipped),
              str(a.pending), str(a.later), num(a.per_hour, ".1f"),
              num(a.median_dwell_s, ".1f")] for a in st.assessors]
    rows += [[]]
    rows += [["topic", "assessors", "items", "done", "skipped", "grades"]]
    rows += [[t.topic, str(t.assessors), str(t.items), str(t.done), str(t.skipped),
              " ".join(f"{g}:{n}" for g, n in sorted(t.grade_counts.items())) or "-"]
             for t in st.topics]
    if st.automatic:  # apart from the people: imported, not judged (relkit judges)
        rows += [[], ["automatic", "topics", "judgments", "grades"]]
        rows += [[a.assessor, str(a.topics), str(a.judgments),
                  " ".join(f"{g}:{n}" for g, n in a.grade_counts.items()) or "-"]
                 for a in st.automatic]
    if fmt == "tsv":
        return "\n".join(sep.join(r) for r in rows)
    blocks: list[list[list[str]]] = [[]]
    for r in rows:
        if r:
            blocks[-1].append(r)
        else:
            blocks.append([])
    out = []
    for block in blocks:
        widths = [max(len(r[i]) for r in block if i < len(r)) for i in range(len(block[0]))]
        out += [sep.join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
                for r in block]
        out.append("")
    return "\n".join(out).rstrip()
