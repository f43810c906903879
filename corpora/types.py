"""The values a test collection is made of: topics, documents and a relevance scale.

Plain frozen dataclasses, so every layer above (pooling, the judging store, the
TUI, agreement) can share them without importing a database or UI library.
Ids are strings and are never coerced to numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry


class ScaleError(RelkitError):
    """A relevance scale is malformed, or a grade is not on it."""


@dataclass(frozen=True)
class Topic:
    """An information need. Any of the statement fields may be missing (``None``)."""

    id: str
    title: str | None = None
    description: str | None = None
    narrative: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"a topic id must be a non-empty string; got {self.id!r}")

    @property
    def query(self) -> str:
        """The text a system would search with: the title, else the description."""
        return self.title or self.description or ""


@dataclass(frozen=True)
class Document:
    """A document as an assessor sees it: id, optional title, text, other fields."""

    id: str
    title: str | None = None
    text: str = ""
    fields: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"a document id must be a non-empty string; got {self.id!r}")


@dataclass(frozen=True)
class Grade:
    """One point of a relevance scale: its integer value, a label, a definition."""

    value: int
    label: str
    definition: str = ""


@dataclass(frozen=True)
class RelevanceScale:
    """An ordered set of integer grades, higher is more relevant.

    ``threshold`` is the lowest grade that counts as relevant when the scale is
    binarised (TREC practice: 1 for documents, 2 for passages in TREC DL).
    """

    name: str
    grades: tuple[Grade, ...]
    threshold: int = 1

    def __post_init__(self) -> None:
        if not self.grades:
            raise ScaleError(f"scale {self.name!r} has no grades")
        values = [g.value for g in self.grades]
        if len(set(values)) != len(values):
            raise ScaleError(f"scale {self.name!r} repeats a grade value: {values}")
        if values != sorted(values):
            object.__setattr__(self, "grades", tuple(sorted(self.grades, key=lambda g: g.value)))
        if self.threshold not in values:
            raise ScaleError(f"scale {self.name!r}: threshold {self.threshold} is not one of "
                             f"its grades {sorted(values)}")

    @property
    def values(self) -> tuple[int, ...]:
        """The grade values, lowest first (including grades nobody used)."""
        return tuple(g.value for g in self.grades)

    @property
    def min(self) -> int:
        return self.grades[0].value

    @property
    def max(self) -> int:
        return self.grades[-1].value

    def grade(self, value: int) -> Grade:
        """The grade with this value; :class:`ScaleError` if it is not on the scale."""
        for g in self.grades:
            if g.value == value:
                return g
        raise ScaleError(f"grade {value} is not on the {self.name!r} scale "
                         f"(expected one of {', '.join(map(str, self.values))})")

    def __contains__(self, value: object) -> bool:
        return any(g.value == value for g in self.grades)

    def is_relevant(self, value: int) -> bool:
        """Whether ``value`` counts as relevant at this scale's threshold."""
        return value >= self.threshold

    @classmethod
    def from_values(cls, name: str, values: Iterable[int], threshold: int | None = None,
                    labels: Mapping[int, str] | None = None) -> RelevanceScale:
        """A scale from bare grade values (labels default to the value itself)."""
        vals = sorted(set(values))
        labels = labels or {}
        grades = tuple(Grade(v, labels.get(v, str(v))) for v in vals)
        if threshold is None:
            positive = [v for v in vals if v > 0]
            threshold = positive[0] if positive else vals[-1]
        return cls(name, grades, threshold)


# Official wording: TREC Deep Learning track guidelines (Craswell et al., overview 2019-2023).
TREC_DL = RelevanceScale(
    "trec-dl",
    (
        Grade(0, "Irrelevant", "The passage has nothing to do with the query."),
        Grade(1, "Related", "The passage seems related to the query but does not answer it."),
        Grade(2, "Highly relevant", "The passage has some answer for the query, but the answer "
              "may be a bit unclear, or hidden amongst extraneous information."),
        Grade(3, "Perfectly relevant",
              "The passage is dedicated to the query and contains the exact answer."),
    ),
    threshold=2,
)

# TREC-COVID assessor guidelines (Voorhees et al., SIGIR Forum 2020).
TREC_COVID = RelevanceScale(
    "trec-covid",
    (
        Grade(0, "Not relevant", "Everything else."),
        Grade(1, "Partially relevant", "The article answers part of the question but would "
              "need to be combined with other information to get a complete answer."),
        Grade(2, "Relevant", "The article is fully responsive to the information need as "
              "expressed by the topic, i.e. answers the question in the topic."),
    ),
    threshold=1,
)

BINARY = RelevanceScale(
    "binary",
    (
        Grade(0, "Not relevant", "The document does not help with the information need."),
        Grade(1, "Relevant", "Any part of the document helps with the information need."),
    ),
    threshold=1,
)

# Cleverdon's five codes for Cranfield 1400, as quoted in cranqrel.readme, turned round
# so that higher is more relevant like every other scale here: the file's code c
# (1 = complete answer ... 5 = no interest) is grade 5 - c, and its -1 is grade 0.
# relkit.corpora.known.CRANFIELD_GRADES is that map; the Cranfield collection applies it.
CRANFIELD = RelevanceScale(
    "cranfield",
    (
        Grade(0, "No interest", "References of no interest (file code 5, or -1)."),
        Grade(1, "Minimum interest", "References of minimum interest, for example, those "
              "that have been included from an historical viewpoint (file code 4)."),
        Grade(2, "Useful background", "References which were useful, either as general "
              "background to the work or as suggesting methods of tackling certain aspects "
              "of the work (file code 3)."),
        Grade(3, "High relevance", "References of a high degree of relevance, the lack of "
              "which either would have made the research impracticable or would have "
              "resulted in a considerable amount of extra work (file code 2)."),
        Grade(4, "Complete answer",
              "References which are a complete answer to the question (file code 1)."),
    ),
    threshold=1,
)

SCALES: Registry[RelevanceScale] = Registry("relevance scale", ScaleError)
SCALES.register(TREC_DL, TREC_COVID, BINARY, CRANFIELD)


def get_scale(name: str) -> RelevanceScale:
    """A known scale by name; the error lists the names there are."""
    return SCALES.lookup(name)
