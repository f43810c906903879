"""One registry pattern: named objects of one kind, found by name, listed for help.

Measures, pooling strategies, corpora loaders and qrels formats, known collections,
baseline systems, compare's tests, corrections and table formats, the agreement
statistics and report formats each live in one :class:`Registry`. It is a read-only
mapping ``name -> object`` in registration order (so help texts, ``list`` commands
and the docs read names from it and cannot drift), plus :meth:`Registry.lookup`:
aliases, optional case folding, and for an unknown name the one error wording,
``unknown measure 'ndgc'; did you mean 'ndcg'?``.

Modules that hold the objects (*providers*) import the registry to register into
it, so the registry must not import them: it names them as strings and imports them
on first use (:meth:`Registry.load`). That keeps the import graph one-way and
importing a registry cheap (a help text does not load every strategy's numpy code).

Only the standard library is imported here: the CLI's root uses :func:`did_you_mean`
for an unknown command before anything else is imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol, TypeVar

from relkit.metrics.core.errors import RelkitError


def did_you_mean(name: str, known: Iterable[str], *, cutoff: float = 0.5) -> str:
    """``"; did you mean 'x'?"`` with the closest known name, else ``""``.

    The one wording of every "did you mean" in relkit. Case is ignored when
    matching (``ndcg@10`` finds ``nDCG@10``); ``cutoff`` is difflib's similarity
    ratio below which a name is not offered.

    >>> did_you_mean("ndgc", ["ndcg", "map", "P"])
    "; did you mean 'ndcg'?"
    >>> did_you_mean("xyz", ["ndcg", "map"])
    ''
    """
    import difflib  # only when a name is wrong: not in every command's start-up

    spelled: dict[str, str] = {}
    for k in known:
        spelled.setdefault(k.lower(), k)
    close = difflib.get_close_matches(name.lower(), list(spelled), n=1, cutoff=cutoff)
    return f"; did you mean {spelled[close[0]]!r}?" if close else ""


class Named(Protocol):
    """What a registry holds: anything with a ``name`` (``aliases`` optional)."""

    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Mapping[str, T]):
    """Objects of one kind by name: ``REGISTRY[name]``, ``lookup``, ``names``.

    Parameters
    ----------
    kind
        What the objects are, as error messages say it (``"pooling strategy"``).
    error
        The error :meth:`lookup` raises for an unknown name (the layer's own).
    providers
        Modules that register objects when imported; imported on first use.
    ignore_case
        :meth:`lookup` folds case (``Wilcoxon`` finds ``wilcoxon``).
    list_known
        Unknown-name errors end with ``(known: a, b, c)``; off for long lists.

    Notes
    -----
    The mapping side (``[]``, ``in``, iteration) is exact, on canonical names;
    :meth:`lookup` also takes aliases (an object's ``aliases`` attribute, if any).
    Every access loads the providers first, so the registry is never seen half full.
    """

    def __init__(self, kind: str, error: type[RelkitError] = RelkitError, *,
                 providers: Iterable[str] = (), ignore_case: bool = False,
                 list_known: bool = True) -> None:
        self.kind = kind
        self.error = error
        self.providers = tuple(providers)
        self.ignore_case = ignore_case
        self.list_known = list_known
        self._loaded = not self.providers
        self._items: dict[str, T] = {}
        self._keys: dict[str, str] = {}      # name or alias (folded if asked) -> name

    def _fold(self, key: str) -> str:
        return key.lower() if self.ignore_case else key

    def register(self, *items: T) -> None:
        """Add ``items`` in order; a name or alias given twice is a programming error."""
        for item in items:
            if item.name in self._items:
                raise ValueError(f"{self.kind} {item.name!r} registered twice")
            keys = [self._fold(k) for k in (item.name, *getattr(item, "aliases", ()))]
            taken = [k for k in keys if k in self._keys]
            if taken:
                raise ValueError(f"{self.kind} {item.name!r}: {taken[0]!r} already names "
                                 f"{self._keys[taken[0]]!r}")
            self._items[item.name] = item
            self._keys.update(dict.fromkeys(keys, item.name))

    def load(self) -> None:
        """Import the providers, once (each registers its objects on import)."""
        if self._loaded:
            return
        # Set first: a provider may read the registry while it is being imported.
        self._loaded = True
        try:
            for module in self.providers:
                importlib.import_module(module)
        except BaseException:
            self._loaded = False
            raise

    # -- the mapping: exact canonical names ------------------------------------------------
    def __getitem__(self, name: str) -> T:
        self.load()
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(self._items)

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    # -- finding by what a user typed ------------------------------------------------------
    def names(self) -> list[str]:
        """Canonical names in registration order (for help texts and docs)."""
        return list(self)

    def lookup(self, name: str) -> T:
        """The object called ``name`` or one of its aliases; else :meth:`unknown`'s error."""
        self.load()
        key = self._keys.get(self._fold(name))
        if key is None:
            raise self.unknown(name)
        return self._items[key]

    def unknown(self, name: str, *, among: Iterable[str] | None = None,
                kind: str | None = None, hint: str | None = None) -> RelkitError:
        """The error for a name that is not here, in the one wording.

        ``among`` narrows the names offered and listed (e.g. the loaders of one
        kind), ``kind`` renames what is missing, and ``hint`` replaces the computed
        "did you mean" (a registry whose names have other spellings, as measures).
        """
        if among is None:
            known = self.names()
            near = [*known, *(k for k in self._keys if k not in self._items)]
        else:
            known = near = list(among)
        text = f"unknown {kind or self.kind} {name!r}"
        text += did_you_mean(name, near) if hint is None else hint
        if self.list_known:
            text += f" (known: {', '.join(known)})"
        return self.error(text)
