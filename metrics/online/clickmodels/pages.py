"""Result pages from TREC runs, and a simulated log written in the long form."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from relkit.metrics.online.clickmodels.data import BoolArray, IntArray


def run_pages(runs: list[Path], depth: int) -> tuple[list[str], list[str], list[str],
                                                     list[list[int]], list[int]]:
    """The pages each run shows: its top ``depth`` documents per topic (trec_eval's
    order: score descending, then document id descending).

    Returns (pair queries, pair docs, page labels ``run``, pages as pair-code lists,
    the run index of each page); pairs are shared across runs.
    """
    from relkit.metrics.data import Run
    from relkit.metrics.errors import DuplicateDocumentError

    codes: dict[tuple[str, str], int] = {}
    pages: list[list[int]] = []
    page_run: list[int] = []
    names: list[str] = []
    for i, path in enumerate(runs):
        run = Run.read(path)
        frame = run.to_frame()
        # a document twice on a page would be shown (and clicked) twice; refused as
        # `relkit eval` refuses it, at the line that repeats it
        twice = frame.duplicated(["query_id", "doc_id"]).to_numpy()
        if twice.any():
            row = int(twice.argmax())
            raise DuplicateDocumentError(run.source, run.line_of(row),
                                         str(frame["query_id"].iat[row]),
                                         str(frame["doc_id"].iat[row]))
        names.append(path.stem)
        frame = frame.sort_values(["query_id", "score", "doc_id"],
                                  ascending=[True, False, False], kind="stable")
        for q, grp in frame.groupby("query_id", sort=True):
            page = []
            for d in grp["doc_id"].astype(str).tolist()[:depth]:
                page.append(codes.setdefault((str(q), d), len(codes)))
            pages.append(page)
            page_run.append(i)
    queries = [q for q, _ in codes]
    docs = [d for _, d in codes]
    return queries, docs, names, pages, page_run


def page_matrix(pages: list[list[int]], depth: int) -> IntArray:
    """Pages as a ``(n_pages, depth)`` code matrix (``-1`` past a short page)."""
    out = np.full((len(pages), depth), -1, dtype=np.int64)
    for i, p in enumerate(pages):
        out[i, : len(p)] = p
    return out


def write_log(path: Path, pair: IntArray, click: BoolArray, queries: list[str],
              docs: list[str], variant: list[str]) -> int:
    """Write sessions as a long-form Parquet log (docs/clicks.md): impression_id,
    query_id, rank, doc_id, clicked, variant (the run shown). Whole or not at all."""
    import pandas as pd

    from relkit.metrics.online.source import connect

    n, r = pair.shape
    s, k = np.nonzero(pair >= 0)
    p = pair[s, k]
    qa, da = np.asarray(queries, dtype=object), np.asarray(docs, dtype=object)
    frame = pd.DataFrame({
        "impression_id": np.char.add("i", s.astype(str)).astype(object),
        "query_id": qa[p], "rank": (k + 1).astype(np.int64), "doc_id": da[p],
        "clicked": click[s, k].astype(np.int64),
        "variant": np.asarray(variant, dtype=object)[s]})
    con = connect()
    con.register("relkit_sim", frame)
    from relkit.metrics.core.atomic import replaced

    with replaced(path) as tmp:
        con.execute(f"COPY relkit_sim TO '{str(tmp).replace(chr(39), chr(39) * 2)}' "
                    "(FORMAT parquet)")
    return len(frame)
