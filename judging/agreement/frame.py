"""The agreement input: a validated long frame, and the item x assessor matrix built from it.

A long frame has the columns ``assessor, topic, doc, grade`` (optionally
``source, line`` naming where each judgment was read, for error messages).
:class:`Ratings` is the form every statistic works on: one row per judged
(topic, doc) item, one column per assessor, the grade's position on the
declared scale (``-1``: not judged by that assessor).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from relkit.corpora.types import RelevanceScale
from relkit.judging.judgment_files import read_judgment_files
from relkit.metrics.core.errors import RelkitError, not_a_file
from relkit.metrics.core.registry import did_you_mean

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("assessor", "topic", "doc", "grade")
Repeats = Literal["error", "first", "last", "majority"]
REPEATS: tuple[str, ...] = get_args(Repeats)


class AgreementError(RelkitError):
    """The judgments cannot be compared (bad frame, off-scale grade, repeat, unknown name)."""


def _where(frame: pd.DataFrame, row: int) -> str:
    if "source" in frame.columns and "line" in frame.columns:
        return f"{frame['source'].iat[row]}:{frame['line'].iat[row]}"
    return f"row {row}"


def infer_scale(grades: Iterable[int], threshold: int | None = None) -> RelevanceScale:
    """Every integer from the lowest to the highest grade seen.

    Filling the range keeps an unused middle grade on the scale (weights and
    Gwet's chance term depend on it); declare the scale when it is known.
    """
    g = sorted(set(int(x) for x in grades))
    if not g:
        raise AgreementError("no judgments to compare")
    return RelevanceScale.from_values("observed", range(g[0], g[-1] + 1), threshold)


def validate(frame: pd.DataFrame, scale: RelevanceScale, repeats: Repeats = "error"
             ) -> pd.DataFrame:
    """Check a long frame and resolve repeated (assessor, topic, doc) judgments.

    Ids must be strings (never coerced); grades integers on ``scale``. A
    repeat is an error naming both places (``error``), or keeps the ``first``,
    the ``last``, or the ``majority`` grade (a tie goes to the lower grade, as
    ``relkit export qrels --method majority`` does).
    """
    import pandas as pd

    if repeats not in REPEATS:
        raise AgreementError(f"unknown repeats policy {repeats!r}; expected one of "
                             f"{list(REPEATS)}")
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise AgreementError(f"the judgments need columns {list(COLUMNS)}; missing {missing}")
    if frame.empty:
        raise AgreementError("no judgments to compare")
    for col in ("assessor", "topic", "doc"):
        bad = ~frame[col].map(lambda v: isinstance(v, str) and v != "")
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise AgreementError(f"{_where(frame, i)}: expected a non-empty string {col}; "
                                 f"got {frame[col].iat[i]!r}")
    grade = pd.to_numeric(frame["grade"], errors="coerce")
    ok = grade.notna().to_numpy() & (np.mod(grade.fillna(0).to_numpy(), 1) == 0)
    if ok.all():
        ok &= grade.isin(scale.values).to_numpy()
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        g = frame["grade"].iat[i]
        shown = repr(g) if isinstance(g, str) else str(g)
        allowed = ", ".join(map(str, scale.values))
        raise AgreementError(f"{_where(frame, i)}: grade {shown} is not on "
                             f"the {scale.name!r} scale (expected one of {allowed})")
    out = frame.assign(grade=grade.astype("int64"))
    key = ["assessor", "topic", "doc"]
    dup = out.duplicated(key, keep=False)
    if not dup.any():
        return out.reset_index(drop=True)
    if repeats == "error":
        rows = np.flatnonzero(dup.to_numpy())
        first = rows[0]
        k = tuple(out.iloc[first][key])
        second = next(r for r in rows[1:] if tuple(out.iloc[r][key]) == k)
        raise AgreementError(f"{_where(out, second)}: {k[0]!r} judged topic {k[1]!r} document "
                             f"{k[2]!r} already at {_where(out, first)} (choose a repeats "
                             f"policy: {', '.join(REPEATS[1:])})")
    if repeats in ("first", "last"):
        return out.drop_duplicates(key, keep=repeats).reset_index(drop=True)  # type: ignore[arg-type]
    once = out[~dup]
    many = out[dup]
    counts = many.groupby([*key, "grade"], sort=False).size().rename("n").reset_index()
    # most frequent grade, ties to the lower grade
    counts = counts.sort_values(["n", "grade"], ascending=[False, True], kind="stable")
    best = counts.drop_duplicates(key, keep="first")[[*key, "grade"]]
    firsts = many.drop_duplicates(key, keep="first").drop(columns="grade")
    merged = firsts.merge(best, on=key, how="left")
    return pd.concat([once, merged[out.columns]], ignore_index=True)


@dataclass(frozen=True)
class Ratings:
    """Items x assessors, each cell the position of a grade on ``scale`` (-1: unjudged)."""

    scale: RelevanceScale
    assessors: tuple[str, ...]
    topics: tuple[str, ...]
    item_topic: np.ndarray            # (items,) index into ``topics``
    item_doc: np.ndarray              # (items,) doc ids (str objects)
    codes: np.ndarray                 # (items, assessors) int8/int16

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, scale: RelevanceScale,
                   repeats: Repeats = "error") -> Ratings:
        import pandas as pd

        from relkit.pooling.pool import natural

        f = validate(frame, scale, repeats)
        assessors = tuple(sorted(f["assessor"].unique()))
        topics = tuple(sorted(f["topic"].unique(), key=natural))
        a = pd.Categorical(f["assessor"], categories=assessors).codes.astype(np.int64)
        t = pd.Categorical(f["topic"], categories=topics).codes.astype(np.int64)
        d_codes, d_names = pd.factorize(f["doc"], sort=True)
        item_key = t * max(len(d_names), 1) + d_codes
        items, inverse = np.unique(item_key, return_inverse=True)
        values = np.asarray(scale.values)
        g = np.searchsorted(values, f["grade"].to_numpy())
        dtype = np.int8 if len(values) < 127 else np.int16
        codes = np.full((len(items), len(assessors)), -1, dtype=dtype)
        codes[inverse, a] = g
        return cls(scale, assessors, topics, (items // max(len(d_names), 1)).astype(np.int64),
                   np.asarray(d_names, dtype=object)[items % max(len(d_names), 1)], codes)

    @property
    def k(self) -> int:
        return len(self.scale.values)

    @property
    def values(self) -> np.ndarray:
        return np.asarray(self.scale.values, dtype=np.float64)

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def index(self, assessor: str) -> int:
        try:
            return self.assessors.index(assessor)
        except ValueError:
            raise AgreementError(f"no assessor named {assessor!r}"
                                 f"{did_you_mean(assessor, self.assessors)}") from None

    def binarised(self, threshold: int | None = None) -> Ratings:
        """Relevant (grade >= threshold, default the scale's) vs not, as a 2-grade scale."""
        t = self.scale.threshold if threshold is None else threshold
        if t not in self.scale:
            raise AgreementError(f"threshold {t} is not a grade of the {self.scale.name!r} "
                                 f"scale {list(self.scale.values)}")
        cut = int(np.searchsorted(self.values, t))
        b = np.where(self.codes < 0, -1, self.codes >= cut).astype(np.int8)
        scale = RelevanceScale.from_values(f"{self.scale.name}>={t}", (0, 1), 1,
                                           {0: f"<{t}", 1: f">={t}"})
        return Ratings(scale, self.assessors, self.topics, self.item_topic, self.item_doc, b)

    def only(self, assessors: Sequence[str]) -> Ratings:
        """These assessors' columns; items nobody of them judged are dropped."""
        cols = [self.index(a) for a in assessors]
        sub = self.codes[:, cols]
        keep = (sub >= 0).any(axis=1)
        return Ratings(self.scale, tuple(assessors), self.topics, self.item_topic[keep],
                       self.item_doc[keep], sub[keep])


def frame_from_lines(lines: Iterable[object]) -> pd.DataFrame:
    """A long frame (``source, line, is_gold``) of judgment lines.

    ``lines`` are :class:`relkit.judging.judgment_files.JudgmentLine`.

    The reader's notes (what it skipped) travel in ``frame.attrs["notes"]``.
    """
    import pandas as pd

    rows = [(x.assessor, x.topic, x.doc, x.grade, x.source, x.line,  # type: ignore[attr-defined]
             x.gold) for x in lines]  # type: ignore[attr-defined]
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "source", "line", "is_gold"])
    frame.attrs["notes"] = list(getattr(lines, "notes", []))
    return frame


def read_files(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Judgment files as ``relkit import judgments`` reads them (one reader for both).

    Each is a qrels file per assessor (the stem names the assessor) or a long
    CSV/TSV with assessor, topic, doc, grade columns (and maybe gold).
    """
    for p in paths:
        if not Path(p).is_file():
            raise AgreementError(f"{p}: {not_a_file(p)}")
    return frame_from_lines(read_judgment_files(paths))


def drop_negative(frame: pd.DataFrame, scale: RelevanceScale | None
                  ) -> tuple[pd.DataFrame, dict[int, int]]:
    """Drop negative grades that are not on ``scale`` (all of them when it is unknown).

    TREC files use negative codes for "not a relevance judgment" (the 2010 crowd
    data's -2 = broken link); a declared scale that has negative grades keeps
    them. Returns the frame and how many judgments each dropped code had.
    """
    g = frame["grade"]
    on = set(scale.values) if scale is not None else set()
    neg = (g < 0).to_numpy() & ~g.isin(on).to_numpy()
    if not neg.any():
        return frame, {}
    vc = g[neg].value_counts().sort_index()
    counts = {int(k): int(v) for k, v in zip(vc.index.tolist(), vc.tolist(), strict=True)}
    out = frame[~neg].reset_index(drop=True)
    out.attrs = dict(frame.attrs)
    return out, counts
