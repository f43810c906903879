"""What ``relkit corpora info`` reports about a collection: counts and the qrels' shape."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from relkit.corpora.collection import Collection


@dataclass
class CollectionStats:
    """Counts of a collection and the distribution of its grades (on its scale)."""

    name: str
    scale: str
    docs: int | None = None
    topics: int | None = None
    qrels: int | None = None
    judged_topics: int | None = None
    grades: dict[int, int] = field(default_factory=dict)
    grade_labels: dict[int, str] = field(default_factory=dict)
    topics_without_relevant: list[str] = field(default_factory=list)
    judged_topics_not_in_topics: list[str] = field(default_factory=list)
    judged_docs_not_in_docs: int | None = None
    runs: int = 0
    warnings: list[str] = field(default_factory=list)   # Collection.qrels_warnings

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["grades"] = {str(k): v for k, v in self.grades.items()}
        out["grade_labels"] = {str(k): v for k, v in self.grade_labels.items()}
        return out

    def lines(self) -> list[str]:
        """The human-readable report, one fact a line."""
        def n(v: int | None) -> str:
            return "-" if v is None else f"{v:,}"

        out = [f"collection\t{self.name}", f"scale\t{self.scale}", f"documents\t{n(self.docs)}",
               f"topics\t{n(self.topics)}", f"judgments\t{n(self.qrels)}",
               f"judged topics\t{n(self.judged_topics)}"]
        for g, c in sorted(self.grades.items()):
            out.append(f"grade {g}\t{c:,}\t{self.grade_labels.get(g, 'NOT ON THE SCALE')}")
        ids = self.topics_without_relevant
        out.append(f"topics without relevant documents\t{len(ids)}"
                   + (f"\t{' '.join(ids[:20])}{' ...' if len(ids) > 20 else ''}" if ids else ""))
        if self.judged_topics_not_in_topics:
            out.append(f"judged topics not in the topics\t{len(self.judged_topics_not_in_topics)}")
        if self.judged_docs_not_in_docs is not None:
            out.append(f"judged documents not in the documents\t{self.judged_docs_not_in_docs:,}")
        out.append(f"runs\t{self.runs}")
        return out


def collection_stats(c: Collection, progress: Callable[[int], None] | None = None
                     ) -> CollectionStats:
    """Count what ``c`` has; documents through the doc store (built once, then cached).

    A topic *without relevant documents* is one of the topics (or, with no topics
    file, of the judged topics) with no judgment at or above the scale's threshold.
    """
    st = CollectionStats(c.name, c.scale.name)
    store = c.docstore(progress) if c.docs is not None else None
    if store is not None:
        st.docs = len(store)
    topic_ids = [t.id for t in c.read_topics()] if c.topics is not None else None
    if topic_ids is not None:
        st.topics = len(topic_ids)
    if c.qrels is not None:
        q = c.read_qrels()
        st.warnings = c.qrels_warnings(q)
        qid = q.table["query_id"].to_pylist()
        did = q.table["doc_id"].to_pylist()
        grades = q.table["relevance"].to_pylist()
        st.qrels = len(grades)
        st.judged_topics = len(set(qid))
        for g in grades:
            st.grades[g] = st.grades.get(g, 0) + 1
        st.grades = dict(sorted(st.grades.items()))
        st.grade_labels = {g: c.scale.grade(g).label for g in st.grades if g in c.scale}
        relevant = {t for t, g in zip(qid, grades, strict=True) if c.scale.is_relevant(g)}
        pool = topic_ids if topic_ids is not None else sorted(set(qid))
        st.topics_without_relevant = [t for t in pool if t not in relevant]
        if topic_ids is not None:
            known = set(topic_ids)
            st.judged_topics_not_in_topics = sorted({t for t in qid if t not in known})
        if store is not None:
            st.judged_docs_not_in_docs = sum(1 for d in set(did) if d not in store)
    st.runs = len(c.run_paths(strict=False))
    return st
