"""Every judging database this process opened, closed when a command ends.

A SQLite database left open keeps its last writes in its -wal file, so a copy of the
main file alone (a backup, a template) misses them: the CLI calls :func:`close_all`
when a command ends. Apart from :mod:`.database` so that the bookkeeping of open engines
reads on its own; :class:`~relkit.judging.store.database.Database` registers a closer
for each engine it opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

# A closer per database opened in this process and not yet closed. The CLI calls them
# when a command ends (:func:`close_all`): a SQLite database left open keeps its last
# writes in its -wal file, so a copy of the main file alone (a backup, a template)
# misses them. A closer holds the engine, not the Database, so a Database dropped
# without close() is still closed (by the garbage collector, or here).
_CLOSERS: set[_Closer] = set()


class _Closer:
    def __init__(self, engine: Engine) -> None:
        self.engine: Engine | None = engine
        _CLOSERS.add(self)

    def __call__(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
            self.engine = None
        _CLOSERS.discard(self)


def close_all() -> None:
    """Close every :class:`Database` this process opened and has not closed."""
    for closer in list(_CLOSERS):
        closer()
