"""SMART tagged-line collections: the one rule for their ids and their text.

Two readers take SMART files (``.I <id>`` then field markers ``.T``, ``.A``,
``.B``, ``.W``... on lines of their own): :mod:`relkit.corpora.loaders` (and its
qrels reader :func:`relkit.corpora.qrels.smart_rel`) and the ``cal`` strategy's
:func:`relkit.pooling.cal.texts.read_texts`. Both follow the rule here, so a
document or topic has the same id and the same text whichever read it.

**Ids.** A SMART id is a record number, written zero-padded in some files and not
in others: Cranfield's ``cran.qry`` has ``.I 001``, CACM's ``qrels.text`` has
``01 1410``, while Cranfield's ``cran.all.1400`` (``.I 1``), its ``cranqrel``
(``1 184 2``), CISI's ``CISI.REL`` (``1 28``) and the runs made on them spell
numbers without zeros. So an id of ASCII digits only loses its leading zeros
(``"007"`` -> ``"7"``, ``"000"`` -> ``"0"``), as text: it stays a string, never
converted to a number, and any other id (``"x9"``, ``"7a"``) is kept as written.
Topics are numbered by their position in the file (1, 2, ...), not by their
``.I``, because Cranfield's qrels and runs number its queries so.

**Text.** A record's text is its title ``.T`` then its text ``.W``, joined by a
space (either may be missing); the other fields (``.A`` authors, ``.B`` source,
``.N`` date, ``.X`` citations, ``.K`` keywords, ``.C`` categories) are not part of
it. CISI's queries, for instance, hold both a ``.T`` and a ``.W``.

Standard library only (the contracts on :mod:`relkit.metrics.core`).
"""

from __future__ import annotations

from collections.abc import Mapping

TEXT_FIELDS = ("T", "W")


def smart_id(ident: str) -> str:
    """The id of a SMART record or ``.REL`` column: ASCII digits lose their leading
    zeros (``"007"`` -> ``"7"``); anything else as written."""
    if ident.isascii() and ident.isdigit():
        return ident.lstrip("0") or "0"
    return ident


def smart_text(fields: Mapping[str, str]) -> str:
    """A SMART record's text: ``.T`` then ``.W`` (each already whitespace-normalised),
    joined by a space; empty when it has neither."""
    return " ".join(t for f in TEXT_FIELDS if (t := (fields.get(f) or "").strip()))
