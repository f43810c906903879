"""Every function that reads a user's file, registered: :data:`READERS`.

A reader takes a path the user typed (a run, qrels, topics, a click log, a keymap...)
and returns what it holds, or raises a :class:`~relkit.metrics.core.errors.RelkitError`
naming the file. The registry lists them all, each with a small valid file (its
*seed*), so that tests/test_reader_fuzz.py feeds every one random bytes and mutated
seeds without anyone adding it there, and tests/test_reader_registry.py fails when a
module reads files and is not registered.

Registration costs nothing at start-up: entries name their reader as a dotted string
(``"relkit.judging.judgment_files:read_judgment_files"``), resolved only when a test
calls it, and the registering modules (one per layer, ``relkit.<layer>.readers``) are
imported only when the registry is first read. So a reader in judging registers into a
registry of the lowest layer without metrics importing judging.

Standard library only (the contracts on :mod:`relkit.metrics.core`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from relkit.metrics.core.registry import Registry


def resolve(ref: str) -> Any:
    """The object at ``"package.module:attr.attr"``."""
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Reader:
    """One reader of users' files.

    Attributes
    ----------
    name
        Unique, by what it reads (``"run"``, ``"click-log-csv"``).
    kinds
        The file kinds it reads, as the docs name them (``("run",)``).
    function
        ``"module:qualname"`` of the reader itself (what the completeness test matches
        against the modules that read files).
    seed
        A small valid file: its bytes, or ``"module:attr"`` of a function returning them
        (for a binary format, such as Parquet, built when needed).
    filename
        The seed's file name: readers that sniff the format look at its suffix.
    call
        ``"module:attr"`` of a function ``f(path)`` that reads the file through
        ``function`` to the end, when ``function(path)`` alone does not (it needs more
        arguments, or returns something lazy); default: ``function`` itself, whose
        result is drained if it is an iterator.
    """

    name: str
    kinds: tuple[str, ...]
    function: str
    seed: bytes | str
    filename: str
    call: str | None = None

    def reader(self) -> Callable[[Any], Any]:
        """The callable ``f(path)`` that reads a file as the command does."""
        fn: Callable[[Any], Any] = resolve(self.call or self.function)
        return fn

    def seed_bytes(self) -> bytes:
        """The seed's bytes."""
        if isinstance(self.seed, bytes):
            return self.seed
        data: bytes = resolve(self.seed)()
        return data


# The layers' registering modules: imported on the first read of the registry.
READERS: Registry[Reader] = Registry(
    "file reader", providers=("relkit.metrics.eval.file_readers", "relkit.pooling.readers",
                              "relkit.corpora.readers", "relkit.judging.readers"))
