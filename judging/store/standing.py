"""Where a project stands: per topic, per assessor and per automatic judge (``relkit status``).

The researcher's and the lead's view (every assessor); an assessor's own login sees
their own rows only (row-level security, or the CLI's check on SQLite).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from sqlalchemy import case, func, select
from sqlmodel import col

from relkit.judging.store.assign import Store
from relkit.judging.store.tables import (
    AssessorRow,
    AssignmentItemRow,
    AssignmentRow,
    JudgmentRow,
    TopicRow,
)
from relkit.pooling.pool import natural as _natural


@dataclass(frozen=True)
class TopicProgress:
    topic: str
    assessors: int
    items: int
    done: int
    grade_counts: dict[int, int]
    skipped: int = 0  # set aside (not done, not pending)


@dataclass(frozen=True)
class AssessorProgress:
    assessor: str
    topics: int
    items: int
    done: int
    skipped: int            # set aside: not shown again, reached from the revise list
    per_hour: float | None
    median_dwell_s: float | None
    later: int = 0          # put off to the end of the topic (part of pending)
    pending: int = 0        # still to judge: items - done - skipped



@dataclass(frozen=True)
class AutomaticProgress:
    """An automatic assessor (an LLM judge): what it was imported with, by grade."""

    assessor: str
    topics: int
    judgments: int
    grade_counts: dict[int, int]


@dataclass(frozen=True)
class Status:
    topics: list[TopicProgress]
    assessors: list[AssessorProgress]
    # Apart from the people: their judgments are not in `topics` or `assessors`.
    automatic: list[AutomaticProgress] = field(default_factory=list)



def status(store: Store, only: str | None = None) -> Status:
    """Progress per topic and per assessor (``only``: of that one person alone, whose
    topics then count their own items, judgments and grades).

    Every item is done (graded), skipped (set aside) or pending (to judge, the
    judge-later ones included): ``done + skipped + pending == items``.
    ``per_hour`` is judgments per hour of active judging (the sum of dwell
    times, idle excluded); ``median_dwell_s`` the median dwell per judgment.
    Automatic assessors are counted apart (``automatic``): their grades are not
    in the topics' grade counts, nor they among the assessors.
    """
    whose = [col(AssessorRow.name) == only] if only is not None else []
    with store.read() as s:
        items = s.execute(
            select(col(TopicRow.key), col(AssessorRow.name), func.count(),
                   func.sum(case((col(AssignmentItemRow.done).is_(True), 1), else_=0)))
            .join(AssignmentRow, col(AssignmentRow.id) == col(AssignmentItemRow.assignment_id))
            .join(TopicRow, col(TopicRow.id) == col(AssignmentRow.topic_id))
            .join(AssessorRow, col(AssessorRow.id) == col(AssignmentRow.assessor_id))
            .where(*whose).group_by(col(TopicRow.key), col(AssessorRow.name))).all()
        # An adaptive pool's assignment has a quota and only the items picked so
        # far: its size is the quota (an assessor with nothing picked yet counts too).
        quotas = s.execute(
            select(col(TopicRow.key), col(AssessorRow.name), col(AssignmentRow.quota))
            .join(TopicRow, col(TopicRow.id) == col(AssignmentRow.topic_id))
            .join(AssessorRow, col(AssessorRow.id) == col(AssignmentRow.assessor_id))
            .where(col(AssignmentRow.quota).is_not(None), *whose)).all()
        judged = s.execute(
            select(col(TopicRow.key), col(AssessorRow.name), col(JudgmentRow.status),
                   col(JudgmentRow.grade),
                   col(JudgmentRow.dwell_ms), col(AssessorRow.kind))
            .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
            .join(AssessorRow,
                  col(AssessorRow.id) == col(JudgmentRow.assessor_id)).where(*whose)).all()
    t_items: dict[str, int] = Counter()
    t_done: dict[str, int] = Counter()
    t_people: dict[str, set[str]] = defaultdict(set)
    a_items: dict[str, int] = Counter()
    a_done: dict[str, int] = Counter()
    a_topics: dict[str, set[str]] = defaultdict(set)
    sized = {(topic, name): [n, int(done or 0)] for topic, name, n, done in items}
    for topic, name, quota in quotas:
        n_done = sized.setdefault((topic, name), [0, 0])
        n_done[0] = max(n_done[0], int(quota))
    for (topic, name), (n, done) in sized.items():
        t_items[topic] += n
        t_done[topic] += int(done or 0)
        t_people[topic].add(name)
        a_items[name] += n
        a_done[name] += int(done or 0)
        a_topics[name].add(topic)
    grades: dict[str, Counter[int]] = defaultdict(Counter)
    dwell: dict[str, list[int]] = defaultdict(list)
    skipped: dict[str, int] = Counter()
    later: dict[str, int] = Counter()
    t_skipped: dict[str, int] = Counter()
    machine_topics: dict[str, set[str]] = defaultdict(set)
    machine_grades: dict[str, Counter[int]] = defaultdict(Counter)
    for topic, name, st, grade, ms, kind in judged:
        if kind == "automatic":
            machine_topics[name].add(topic)
            if st == "judged":
                machine_grades[name][grade] += 1
            continue
        if st == "judged":
            grades[topic][grade] += 1
            dwell[name].append(ms)
        elif st == "skipped":
            skipped[name] += 1
            t_skipped[topic] += 1
        else:
            later[name] += 1
    topics = [TopicProgress(t, len(t_people[t]), t_items[t], t_done[t], dict(grades[t]),
                            t_skipped[t])
              for t in sorted(t_items, key=_natural)]
    people = []
    for name in sorted(set(a_items) | set(dwell)):
        ms = dwell.get(name, [])
        total_h = sum(ms) / 3_600_000
        people.append(AssessorProgress(
            name, len(a_topics[name]), a_items[name], a_done[name], skipped[name],
            len(ms) / total_h if total_h > 0 else None,
            statistics.median(ms) / 1000 if ms else None, later[name],
            max(0, a_items[name] - a_done[name] - skipped[name])))
    machines = [AutomaticProgress(n, len(machine_topics[n]), sum(machine_grades[n].values()),
                                  dict(sorted(machine_grades[n].items())))
                for n in sorted(machine_topics)]
    return Status(topics, people, machines)
