"""Who may read and write what in a judging database.

On PostgreSQL the database itself enforces it: ``relkit team init``
(:mod:`.policies`) gives every assessor and lead a login role and puts row-level
security on the tables, so the rules hold against ``psql`` too. The commands check
the same rules themselves (:mod:`.identity`), so a refusal is one clear line, and so a
team on SQLite, which has no users, gets them in the tool (``$RELKIT_USER``) — but
anyone who can read a SQLite file can read all of it. See ``docs/team.md``.
"""
