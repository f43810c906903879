"""The judging store: everything that reads or writes a judging database.

Nothing is imported here, so importing one module of the store loads only what that
module needs. Where things are:

- :mod:`.tables` (every table), :mod:`.inputs` (validated inputs), :mod:`.outputs` (the
  values handed back), :mod:`.errors` (``StoreError``), all three also named by
  :mod:`.models`; :mod:`.connection` (engines and connections), :mod:`.migrate` with the
  Alembic scripts in ``migrations/`` (:mod:`.revisions`: their revisions, read without
  Alembic); :mod:`.light` (``relkit judge``'s first screen read with ``sqlite3``, before
  the rest of the store is imported);
- :mod:`.database` (collection, pools, assessors), :mod:`.assign` (``Store``: sharing
  pools out), :mod:`.assessor` (one assessor's view and writes), :mod:`.adaptive`;
- reading back: :mod:`.reports`, :mod:`.standing`; a lead's work: :mod:`.adjudication`,
  :mod:`.decisions`; :mod:`.imports` (outside judgments in), :mod:`.tokens` (sign-in
  tokens), :mod:`.logins` and :mod:`.access` (PostgreSQL logins, row-level security).

The commands that drive it stay in the CLI root (``judging/commands.py``,
``judging/progress.py``, ``judging/exchange.py``, ``judging/dbcli.py``,
``judging/teamcli.py``).
"""
