"""Agreement between assessors from Python: :func:`agree`, the front door's way in.

``relkit agree`` reads the judgments (files or the judging database), checks them and
prints a report; this runs the same library steps and returns the
:class:`~relkit.judging.agreement.analysis.Analysis` the report is rendered from
(``relkit.judging.agreement.report.FORMATS`` renders it as text, JSON, Markdown or
HTML). What the command says on stderr (judgments dropped, the scale inferred) a
caller finds in ``Analysis.notes``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from relkit.corpora.types import RelevanceScale
    from relkit.judging.agreement.analysis import Analysis
    from relkit.judging.store.assign import Store


def agree(judgments: Sequence[str | os.PathLike[str]] | pd.DataFrame | None = None, *,
          db: str | os.PathLike[str] | Store | None = None,
          scale: str | RelevanceScale | None = None, threshold: int | None = None,
          gold: str | None = None, repeats: str = "error", replicates: int = 1000,
          seed: int = 0, interval: str = "normal", runs: Mapping[str, Any] | None = None,
          measure: str = "nDCG@10") -> Analysis:
    """Agreement between assessors: kappa, alpha, AC1... with intervals, overlap, effect.

    Parameters
    ----------
    judgments : sequence of paths, or DataFrame, optional
        Judgment files, as ``relkit agree`` reads them: a qrels file per assessor
        (the file's stem names the assessor) or a long CSV/TSV with ``assessor,
        topic, doc, grade`` columns (and maybe ``gold``); or a frame with those
        columns. ``None``: the judging database ``db``.
    db : str, path or Store, optional
        The judging database (read only), when ``judgments`` is ``None``; a
        :class:`~relkit.judging.store.assign.Store` from :func:`relkit.open_store` too.
        Default ``$RELKIT_DB``, else ``./relkit.db``.
    scale : str or RelevanceScale, optional
        The grades' scale (``trec-dl``...); default the database's, or for files every
        grade from the lowest to the highest seen.
    threshold : int, optional
        Binarise at grade >= ``threshold`` (default: the scale's threshold).
    gold : str, optional
        The assessor whose grades are gold (default: the database's gold pairs or a
        long table's gold column, when there are any).
    repeats : {"error", "first", "last", "majority"}, default "error"
        A pair judged twice by one assessor.
    replicates, seed : int, default 1000 and 0
        Bootstrap replicates (0: none) and their seed.
    interval : {"normal", "t"}, default "normal"
        Analytic intervals (see ``relkit agree --interval``).
    runs : mapping of str to run, optional
        Runs to evaluate under each assessor's qrels (the effect on conclusions,
        with ``measure``); each a :class:`~relkit.metrics.data.Run` or a path.
    measure : str, default "nDCG@10"
        The measure of the effect on conclusions.

    Returns
    -------
    Analysis
        Every statistic on the graded scale (``.graded``) and binarised
        (``.binary``): ``.overall`` by name, ``.pairs``, ``.per_topic``; ``.overlap``;
        ``.effect`` with ``runs``; ``.to_dict()`` as ``relkit agree --format json``.

    Raises
    ------
    AgreementError
        Fewer than two assessors, a missing file, a threshold not on the scale, an
        unknown ``repeats`` or ``interval``, ``replicates`` below 0 (these three named:
        ``Invalid value for interval: expected one of normal, t; got 'x'``; checked
        before any judgment is read, by ``relkit agree``'s own checks).
    StoreError
        For a database that cannot be read (with ``db``).

    Examples
    --------
    Two assessors, three topics, two documents each; they differ on one document:

    >>> import pandas as pd
    >>> from relkit import agree
    >>> grades = {"ann": [2, 0, 1, 0, 3, 1], "bob": [2, 0, 1, 1, 3, 1]}
    >>> frame = pd.DataFrame([(who, t, d, g[i]) for who, g in grades.items()
    ...                       for i, (t, d) in enumerate([("1", "a"), ("1", "b"),
    ...                                                   ("2", "a"), ("2", "b"),
    ...                                                   ("3", "a"), ("3", "b")])],
    ...                      columns=["assessor", "topic", "doc", "grade"])
    >>> a = agree(frame, scale="trec-dl", replicates=0)
    >>> a
    <Analysis: 2 assessors (ann, bob), 6 items on 3 topics, trec-dl binarised at 2:
    alpha_ordinal=0.8872 AC1=0.7818 binary_kappa=1.0000>
    >>> a.graded.overall["percent_agreement"].value     # 5 of 6 items the same
    0.8333...
    >>> round(a.graded.pairs[0].stats["cohen_kappa"].value, 4)
    0.7692
    """
    from relkit.corpora.types import RelevanceScale, get_scale
    from relkit.judging.agreement.frame import (
        AgreementError,
        drop_negative,
        frame_from_lines,
        infer_scale,
        read_files,
    )
    from relkit.judging.agreement.run import (
        AgreeOptions,
        analyse_ratings,
        check_values,
        keyword,
        ratings_of,
    )
    from relkit.metrics.core.options import OptionError

    # The options through the CLI's own checks and core (run.py), named as typed here.
    o = AgreeOptions(threshold=threshold, gold=gold, repeats=repeats, measure=measure,
                     replicates=replicates, seed=seed, interval=interval)
    try:
        check_values(o, keyword)
    except OptionError as exc:
        raise AgreementError(str(exc)) from None
    declared = get_scale(scale) if isinstance(scale, str) else scale
    notes: list[str] = []
    found_gold = None
    if judgments is None:
        from relkit.judging.agreement.store import from_store

        frame, sc, found_gold = from_store(_db_url(db))
        sc = declared or sc
    else:
        frame = _frame(judgments, read_files, frame_from_lines)
        frame, dropped = drop_negative(frame, declared)
        if dropped:
            notes.append("dropped judgments with negative codes: " + ", ".join(
                f"{n:,} with {g}" for g, n in dropped.items()))
        if declared is None:
            sc = infer_scale(frame["grade"], threshold)
            notes.append(f"scale inferred from the grades seen: {list(sc.values)}")
        else:
            sc = declared
        if frame["is_gold"].any():
            found_gold = str(frame.loc[frame["is_gold"], "assessor"].iat[0])
    assert isinstance(sc, RelevanceScale)
    ratings = ratings_of(frame, sc, o, spell=keyword)
    loaded = None
    if runs:
        from relkit.metrics.convert import named_runs

        loaded = named_runs(runs)
    result = analyse_ratings(ratings, o, gold if gold is not None else found_gold, loaded)
    result.notes = notes + result.notes
    return result


def _db_url(db: Any) -> str | None:
    """A database as :func:`~relkit.judging.agreement.store.from_store` takes it: a path
    or URL; an open store by its URL (the password kept, it opens a second engine)."""
    engine = getattr(db, "engine", None)
    if engine is not None:
        return str(engine.url.render_as_string(hide_password=False))
    return None if db is None else os.fspath(db)


def _frame(judgments: Any, read_files: Any, frame_from_lines: Any) -> pd.DataFrame:
    """The long frame (assessor, topic, doc, grade, source, line, is_gold) of files or of
    a caller's frame with the first four columns (checked as a file's rows are: ids must
    be strings, never numbers)."""
    import pandas as pd

    if not isinstance(judgments, pd.DataFrame):
        return read_files([os.fspath(p) for p in judgments])
    out = judgments.copy()
    missing = [c for c in ("assessor", "topic", "doc", "grade") if c not in out.columns]
    if missing:
        from relkit.judging.agreement.frame import AgreementError

        raise AgreementError(f"the judgments frame has no {', '.join(missing)} column")
    if "source" not in out.columns:
        out["source"] = "<frame>"
    if "line" not in out.columns:
        out["line"] = range(1, len(out) + 1)
    if "is_gold" not in out.columns:
        out["is_gold"] = False
    return out
