"""The versioned JSON model file.

::

    {"relkit_click_model": 1, "model": "pbm", "max_rank": 10,
     "pairs": {"query_id": [...], "doc_id": [...], "impressions": [...]},
     "params": {"alpha": [...], "gamma": [...]},
     "fit": {"log": ..., "iterations": ..., "seed": ..., "trace": [...],
             "evaluation": {...}}}

Per-pair parameters are lists aligned with ``pairs``; ids are strings. Written to a
temporary file and renamed: a model file is whole or absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from relkit.metrics.core.errors import FormatError, InputError, not_a_file
from relkit.metrics.online.clickmodels.base import ClickModel

VERSION = 1


def to_json(model: ClickModel, fit: dict[str, Any] | None = None) -> dict[str, Any]:
    """The model file's content."""
    return {
        "relkit_click_model": VERSION, "model": model.name, "max_rank": model.max_rank,
        "pairs": {"query_id": [str(q) for q in model.queries],
                  "doc_id": [str(d) for d in model.docs],
                  "impressions": [int(n) for n in model.counts]},
        "params": {k: [float(x) for x in np.ravel(v)] for k, v in model.params.items()},
        "default": model.default,
        "fit": fit or {},
    }


def save(model: ClickModel, path: str | Path, fit: dict[str, Any] | None = None) -> None:
    """Write the model file (whole or not at all)."""
    from relkit.metrics.core.atomic import write_text

    write_text(path, json.dumps(to_json(model, fit)) + "\n")


def load(path: str | Path) -> tuple[ClickModel, dict[str, Any]]:
    """Read a model file: (the model, its ``fit`` provenance).

    Raises :class:`InputError` (no such file) or :class:`FormatError` naming the file
    and the key that is wrong.
    """
    from relkit.metrics.online.clickmodels.registry import MODELS

    p = str(path)
    if not os.path.isfile(p):
        raise InputError(f"{p}: {not_a_file(p)}")
    try:
        doc = json.loads(Path(p).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError(p, None, "a relkit click-model JSON file", f"not JSON ({exc})") \
            from None
    if not isinstance(doc, dict) or doc.get("relkit_click_model") != VERSION:
        raise FormatError(p, None, f'a key "relkit_click_model": {VERSION}',
                          "a file without it (not written by relkit clicks fit?)")
    name = doc.get("model")
    if name not in MODELS:
        raise FormatError(p, None, f"\"model\" one of {', '.join(MODELS)}", repr(name))
    model = MODELS[str(name)]()
    try:
        pairs = doc["pairs"]
        model.queries = np.asarray([str(q) for q in pairs["query_id"]], dtype=object)
        model.docs = np.asarray([str(d) for d in pairs["doc_id"]], dtype=object)
        model.counts = np.asarray(pairs["impressions"], dtype=np.int64)
        model.max_rank = int(doc["max_rank"])
        model.params = {k: np.asarray(v, dtype=np.float64) for k, v in doc["params"].items()}
        model.default = float(doc.get("default", model.default))
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(p, None, "the keys max_rank, pairs and params",
                          f"a missing or malformed {exc}") from None
    for k in model.per_pair:
        if len(model.params.get(k, ())) != len(model.queries):
            raise FormatError(p, None, f"params.{k} with one value per pair",
                              f"{len(model.params.get(k, ()))} values for "
                              f"{len(model.queries)} pairs")
    return model, dict(doc.get("fit") or {})
