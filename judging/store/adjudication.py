"""What a lead settles: the cases, each with every assessor's judgment in full.

A *case* is a pair (topic, document) the lead should look at: the assessors
graded it differently (a disagreement), or one of them flagged it or wrote a
note on it (the review queue; a skip's reason is a note), or the lead has
already given it a final grade. Each case carries every assessor's grade, note,
flag and dwell time, so the lead decides with everything the assessors left.

Only a registered lead (``relkit assign --lead NAME``) may see this: it shows
every assessor's grades, which an assessor must never see
(:func:`check_lead`). The final grade and its reason are written with
:func:`relkit.judging.store.decisions.adjudicate`, with its history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from sqlalchemy import select
from sqlmodel import Session, col

from relkit.judging.store.assign import Store
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import (
    AdjudicationRow,
    AssessorRow,
    DocumentRow,
    JudgmentRow,
    TopicRow,
)
from relkit.pooling.pool import natural as _natural

Kind = Literal["all", "disagreements", "flagged", "noted", "review"]
KINDS: tuple[str, ...] = get_args(Kind)
KIND_NAMES = {"all": "all cases", "disagreements": "disagreements", "flagged": "flagged",
              "noted": "with a note", "review": "review queue (flagged or noted)"}


@dataclass(frozen=True)
class Opinion:
    """One assessor's current judgment of a case."""

    assessor: str
    grade: int | None      # None: skipped or put off
    status: str
    note: str
    flagged: bool
    dwell_ms: int


@dataclass(frozen=True)
class Case:
    """A pair for the lead: every assessor's opinion and the final grade, if any."""

    topic: str
    doc: str
    opinions: tuple[Opinion, ...]
    final: int | None
    reason: str            # the lead's reason for the final grade
    lead: str | None

    @property
    def disagreement(self) -> bool:
        return len({o.grade for o in self.opinions if o.grade is not None}) > 1

    @property
    def flagged(self) -> bool:
        return any(o.flagged for o in self.opinions)

    @property
    def noted(self) -> bool:
        return any(o.note for o in self.opinions)

    @property
    def decided(self) -> bool:
        return self.final is not None

    @property
    def assessors(self) -> frozenset[str]:
        return frozenset(o.assessor for o in self.opinions)


@dataclass(frozen=True)
class Filter:
    """Which cases the lead's list shows; the default shows every case."""

    kind: Kind = "all"
    undecided: bool = False
    topic: str | None = None
    pair: tuple[str, str] | None = None  # cases both of these assessors judged

    def keeps(self, c: Case) -> bool:
        kind = {"all": True, "disagreements": c.disagreement, "flagged": c.flagged,
                "noted": c.noted, "review": c.flagged or c.noted}[self.kind]
        return (kind and not (self.undecided and c.decided)
                and (self.topic is None or c.topic == self.topic)
                and (self.pair is None or set(self.pair) <= c.assessors))

    def describe(self) -> str:
        parts = [KIND_NAMES[self.kind]]
        if self.undecided:
            parts.append("undecided")
        if self.topic is not None:
            parts.append(f"topic {self.topic}")
        if self.pair is not None:
            parts.append(" + ".join(self.pair))
        return ", ".join(parts)


def cases(store: Store, include_automatic: bool = False) -> list[Case]:
    """Every pair with a disagreement, a flag, a note or a final grade; by topic, then doc.

    Automatic assessors' judgments are not opinions here unless ``include_automatic``:
    a machine's grade alone does not make a disagreement for the lead to settle.
    """
    opinions: dict[tuple[str, str], list[Opinion]] = defaultdict(list)
    finals: dict[tuple[str, str], tuple[int, str, str]] = {}
    with store.read() as s:
        c = store.collection_row(s)
        for t, d, a, grade, status, note, flagged, dwell in s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(AssessorRow.name),
                       col(JudgmentRow.grade),
                       col(JudgmentRow.status), col(JudgmentRow.note), col(JudgmentRow.flagged),
                       col(JudgmentRow.dwell_ms))
                .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id))
                .join(AssessorRow, col(AssessorRow.id) == col(JudgmentRow.assessor_id))
                .where(col(JudgmentRow.collection_id) == c.id,
                       *([] if include_automatic else [col(AssessorRow.kind) == "human"]))):
            opinions[(t, d)].append(Opinion(a, grade, status, note or "", bool(flagged),
                                            int(dwell or 0)))
        for t, d, g, note, lead in s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(AdjudicationRow.grade),
                       col(AdjudicationRow.note), col(AssessorRow.name))
                .join(TopicRow, col(TopicRow.id) == col(AdjudicationRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(AdjudicationRow.document_id))
                .join(AssessorRow, col(AssessorRow.id) == col(AdjudicationRow.lead_id))
                .where(col(AdjudicationRow.collection_id) == c.id)):
            finals[(t, d)] = (g, note or "", lead)
    out = []
    for key in set(opinions) | set(finals):
        final = finals.get(key)
        case = Case(key[0], key[1], tuple(sorted(opinions.get(key, []),
                                                 key=lambda o: o.assessor)),
                    final[0] if final else None, final[1] if final else "",
                    final[2] if final else None)
        if case.decided or case.disagreement or case.flagged or case.noted:
            out.append(case)
    out.sort(key=lambda x: (_natural(x.topic), x.doc))
    return out


def assessor_pairs(found: Iterable[Case]) -> list[tuple[str, str]]:
    """The pairs of assessors who judged at least one case together, sorted."""
    pairs: set[tuple[str, str]] = set()
    for c in found:
        names = sorted(c.assessors)
        pairs.update((a, b) for i, a in enumerate(names) for b in names[i + 1:])
    return sorted(pairs)


def check_lead(store: Store, name: str) -> None:
    """Raise :class:`StoreError` (one line) unless ``name`` is registered as a lead."""
    with store.read() as s:
        row = s.execute(select(col(AssessorRow.role), col(AssessorRow.kind))
                        .where(col(AssessorRow.name) == name)).first()
    role, kind = row if row is not None else (None, None)
    if role == "lead":
        from relkit.judging.store.access.identity import check_acts_as

        # A lead's screen as another person: the login (PostgreSQL) or $RELKIT_USER decides.
        check_acts_as(store, name, f"the lead view of {name}")
        return
    if kind == "automatic":
        raise StoreError(f"{name} is an automatic assessor, not a lead: a lead is a person "
                         "who settles what others judged")
    if role is not None:
        raise StoreError(f"{name} is an assessor, not a lead: the lead's screen shows every "
                         f"assessor's grades (judge with --assessor {name})")
    leads = store.assessors(role="lead")
    raise StoreError(f"no lead named {name!r} in this database; "
                     + (f"the leads are {', '.join(leads)}" if leads else
                        "register one with `relkit assign --lead NAME`"))


def _roles(s: Session, names: Sequence[str]) -> dict[str, str]:
    return dict(s.execute(select(col(AssessorRow.name), col(AssessorRow.role))
                          .where(col(AssessorRow.name).in_(names))).all())


def check_leads_free(store: Store, names: Sequence[str]) -> None:
    """Raise :class:`StoreError` unless every name can be registered as a lead.

    A name must not be empty nor already an assessor's: one person does not
    both judge and settle the same pairs.
    """
    for n in names:
        if not n.strip():
            raise StoreError("a lead's name cannot be empty")
    with store.read() as s:
        roles = _roles(s, names)
    machines = [n for n in names if n in _automatic(store)]
    if machines:
        raise StoreError(f"{', '.join(machines)}: an automatic assessor here; a lead is a "
                         "person who settles what others judged (nothing was changed)")
    judging = [n for n in names if roles.get(n) == "assessor"]
    if judging:
        raise StoreError(f"{', '.join(judging)}: already an assessor here; a lead must be "
                         "someone else (nothing was changed)")


def _automatic(store: Store) -> set[str]:
    return set(store.assessors(kind="automatic"))


def register_leads(store: Store, names: Sequence[str]) -> list[str]:
    """Register ``names`` as leads (those already leads are kept); return the new ones."""
    check_leads_free(store, names)
    with store.write() as s, s.begin():
        new = [n for n in dict.fromkeys(names) if n not in _roles(s, names)]
        store.ensure_assessors(s, new, role="lead")
    return new
