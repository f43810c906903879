"""A judging project from Python: :func:`open_store`, the front door's way to a database.

The commands open the store through :mod:`relkit.judging.cliopts` (``--db``, saying an
upgrade on stderr); a script or a notebook calls this instead: the same
:meth:`relkit.judging.store.database.Database.open`, with nothing printed (``notify`` takes
the upgrade's message if the caller wants it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store


def open_store(db: str | os.PathLike[str] | None = None, *, create: bool = True,
               readonly: bool = False, notify: Callable[[str], None] | None = None) -> Store:
    """Open a judging database: a SQLite file or a ``postgresql://`` URL.

    Parameters
    ----------
    db : str or path, optional
        A SQLite file (created when missing, if ``create``) or a ``postgresql://``
        URL; default ``$RELKIT_DB``, else ``./relkit.db``, as for ``--db``.
    create : bool, default True
        Create the schema in a missing or empty database; ``False``: that is an
        error (as for every command but ``relkit init``).
    readonly : bool, default False
        Read only: nothing is created, upgraded or written (``relkit agree``'s way);
        a database at an older schema revision is an error.
    notify : callable, optional
        Told, before it starts, that an older database is being upgraded to this
        relkit's schema (an upgrade keeps a backup of a SQLite file until it commits).

    Returns
    -------
    Store
        The open database; use it as a context manager (or call ``close()``) so a
        SQLite file's last writes leave its ``-wal`` file. Its methods create the
        collection (``create_collection``), import pools (``import_pool``), assign
        them (``assign``) and open an assessor's view (``assessor``).

    Raises
    ------
    StoreError
        For a missing database with ``create=False`` or ``readonly``, a file that is
        not a judging database, or one at an older revision with ``readonly``.
    DatabaseError
        For a value that is not a database path or URL, or a missing directory.

    Examples
    --------
    A new SQLite file with a collection of two topics on the TREC DL scale:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from relkit import open_store
    >>> from relkit.corpora.types import Topic, get_scale
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "project.db"
    >>> with open_store(path) as store:
    ...     store.create_collection("demo", get_scale("trec-dl"), [Topic("1", "solar"),
    ...                                                            Topic("2", "wind")])
    ...     store.collection_name(), store.pool_names()
    ('demo', [])
    >>> with open_store(path, readonly=True) as store:
    ...     store.scale().name
    'trec-dl'
    >>> open_store(Path(folder.name) / "none.db", create=False)
    Traceback (most recent call last):
    ...
    relkit.judging.store.errors.StoreError: no judging database at ...none.db: run `relkit init` ...
    >>> folder.cleanup()
    """
    from relkit.judging.store.assign import Store

    return Store.open(db, create=create, readonly=readonly, notify=notify)
