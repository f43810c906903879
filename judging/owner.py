"""The owner's commands: refused, in one line and before anything is written, to a
person relkit acts for (``$RELKIT_USER`` on SQLite, a team login on PostgreSQL).

``init``, ``pool --into``, ``assign``, ``import judgments`` and ``token issue|revoke``
change what everyone works on; on a team database the database refuses a person's
login these writes too (docs/team.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relkit.judging.cliopts import open_store

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store


def refuse_named_person(what: str) -> None:
    """One line if ``$RELKIT_USER`` names someone: ``what`` (``init``, which may create
    the database) is the owner's, refused before there is a file to ask who they are."""
    import os

    from relkit.judging.store.access.identity import ENV_USER
    from relkit.judging.store.models import StoreError

    person = os.environ.get(ENV_USER)
    if person:
        raise StoreError(f"{what} is for the database's owner: {person} (${ENV_USER}) may "
                         "not run it")


def owner_store(db: str | None, what: str, create: bool = False) -> Store:
    """:func:`open_store` for a command only the database's owner runs (``what``: init,
    pool, assign, token, import): one line, before anything is written, when relkit acts
    for a person (``$RELKIT_USER`` on SQLite, a team login on PostgreSQL, whose database
    refuses these writes anyway)."""
    from relkit.judging.store.access.identity import require_owner
    from relkit.judging.store.connection import resolve_url
    from relkit.judging.store.models import StoreError

    if create or not str(resolve_url(db)).startswith("postgresql"):
        # SQLite: $RELKIT_USER decides, before the file is opened for writing (which
        # may create it, or upgrade an older schema with a backup)
        refuse_named_person(what)
    store = open_store(db, create=create)
    try:
        require_owner(store, what)
    except StoreError:
        store.close()
        raise
    return store
