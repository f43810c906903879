"""The text a ``cal`` strategy learns from: each document's and each topic's.

A :class:`TextSource` is two mappings, document id -> text and topic id ->
text, plus the features built from the documents once (cached on the object, so
every topic of a pool shares one tf-idf fit). Ids are strings, never numbers.

:func:`read_texts` reads BEIR-style JSONL (``{"_id", "title", "text"}``, the
form ``relkit corpora`` writes; title and text joined), ``id<TAB>text`` lines,
or SMART tagged lines (Cranfield's ``cran.all.1400`` and ``cran.qry``: a record
per ``.I <id>``, its ``.T`` title and ``.W`` text joined, other fields such as
``.A`` authors and ``.B`` source left out); anything else is an error naming the
file and line. SMART ids and text follow the one rule :mod:`relkit.corpora` follows
too (:mod:`relkit.metrics.core.smart`): all-digit ids lose their leading zeros
(``.I 007`` is document ``7``, as the qrels spell it) and topics are numbered by
position (1, 2, ...), not by their ``.I``: Cranfield's ``.I`` numbers
(001, 002, 004, ...) are not the ids its qrels and runs use. Other formats (TREC)
are read by :mod:`relkit.corpora` and handed over as mappings (the pooling layer
does not import it).

Documented behaviour for awkward input:

* a candidate document with no text (absent from the source, or empty) is
  still a candidate: its features are all zero, so the classifier scores it by
  its intercept alone and it comes after every document sharing a word with
  what was found relevant; :attr:`TextSource.missing` counts them;
* a topic with empty text has nothing to seed the model with:
  :meth:`TextSource.topic` raises, naming the topic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relkit.metrics.core.smart import smart_id, smart_text
from relkit.pooling.errors import PoolingError


@dataclass(eq=False)
class TextSource:
    """Documents' and topics' text; ``features(kind)`` is built once and cached."""

    docs: Mapping[str, str]
    topics: Mapping[str, str]
    _features: dict[str, Any] = field(default_factory=dict, repr=False)

    def topic(self, topic: str) -> str:
        text = (self.topics.get(topic) or "").strip()
        if not text:
            raise PoolingError(f"topic {topic!r} has no text: the cal strategy seeds its "
                               "model with the topic's text (give it in the topics file)")
        return text

    def missing(self, docs: list[str]) -> int:
        """How many of ``docs`` have no text."""
        return sum(1 for d in docs if not (self.docs.get(d) or "").strip())

    def features(self, kind: str = "auto") -> Any:
        """The collection's :class:`relkit.pooling.cal.features.Features` (cached per kind)."""
        from relkit.pooling.cal.features import Features

        got = self._features.get(kind)
        if got is None:
            got = self._features[kind] = Features.build(self.docs, kind)
        return got


def read_texts(path: str | Path, what: str) -> dict[str, str]:
    """``{id: text}`` from a JSONL (``_id``/``id``, ``title``, ``text``), TSV or SMART file.

    ``what`` (``"documents"``/``"topics"``) names the file's role in errors (and
    numbers SMART topics by position).
    """
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as e:
        raise PoolingError(f"{path}: cannot read the {what} file ({e.strerror})") from None
    except UnicodeDecodeError:
        raise PoolingError(f"{path}: the {what} file is not UTF-8") from None
    lines = raw.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if _SMART_ID.match(first):
        out = _smart(lines, str(path), what)
    else:
        out = _lines(lines, str(path), what)
    if not out:
        raise PoolingError(f"{path}: no {what} in the file")
    return out


def _lines(lines: list[str], path: str, what: str) -> dict[str, str]:
    """JSONL or ``id<TAB>text`` lines."""
    out: dict[str, str] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                rec = json.loads(line)
                key = rec.get("_id", rec.get("id"))
            except (json.JSONDecodeError, AttributeError):
                raise PoolingError(f"{path}:{n}: expected a JSON object") from None
            if key is None:
                raise PoolingError(f"{path}:{n}: a {what[:-1]} without an \"_id\"")
            text = " ".join(str(rec.get(k) or "") for k in ("title", "text")).strip()
        else:
            key, tab, text = line.partition("\t")
            if not tab:
                raise PoolingError(f"{path}:{n}: expected 'id<TAB>text' or a JSON object")
        key = str(key)
        if key in out:
            raise PoolingError(f"{path}:{n}: {what[:-1]} {key!r} twice")
        out[key] = text
    return out


# ``.I <id>`` (spaces, not a tab: ``.I<TAB>text`` is a TSV line) and the field markers.
_SMART_ID = re.compile(r"^\.I(?: +(\S+))? *$")
_SMART_FIELD = re.compile(r"^\.([A-Z]) *$")


def _smart(lines: list[str], path: str, what: str) -> dict[str, str]:
    """SMART records: ``.I <id>`` then field markers (``.T``, ``.W``, ...) on lines of
    their own, each field's text on the lines after it. Topics by position."""
    out: dict[str, str] = {}
    key, field = "", ""
    fields: dict[str, list[str]] = {}

    def close() -> None:
        if key:
            out[key] = smart_text({f: " ".join(v) for f, v in fields.items()})

    for n, line in enumerate(lines, 1):
        m = _SMART_ID.match(line)
        if m:
            close()
            if not m.group(1):
                raise PoolingError(f"{path}:{n}: expected '.I <id>'")
            key = str(len(out) + 1) if what == "topics" else smart_id(m.group(1))
            if key in out:
                raise PoolingError(f"{path}:{n}: {what[:-1]} {key!r} twice")
            field, fields = "", {}
        elif (f := _SMART_FIELD.match(line)) is not None:
            field = f.group(1)
            fields.setdefault(field, [])
        elif not line.strip():
            continue
        elif not field:
            raise PoolingError(f"{path}:{n}: expected a field marker (.T, .W, ...) after "
                               "'.I <id>'")
        else:
            fields[field].append(line.strip())
    close()
    return out
