"""The app process of one signed-in browser: ``python -m relkit.judging.serve.session ROLE NAME``
(or ``--warm FD``: started ahead, told ROLE and NAME on pipe FD by the server).

Started by :mod:`relkit.judging.serve.server` after it has checked the token, with
``RELKIT_DB`` in the environment and textual-serve's web driver selected
(``TEXTUAL_DRIVER``). It runs the same app as ``relkit judge`` (or ``--lead``): every
grade is committed before the screen moves on, and a new session resumes where the
database says the assessor is. On the way out, a judgment still unsaved is tried once
more or logged in full (:func:`relkit.judging.tui.cli.finish`, to the server's log).

A warm spare does everything that does not depend on the person before it is handed
out: the imports, opening the database (connection, schema check) and one
connection kept in the pool. Once told whom it serves, its connections act as that
person's database login (:func:`relkit.judging.store.access.acting.act_as`: ``SET ROLE``, so
row-level security holds inside the session as it does for ``psql``) and the app
starts.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store


def prepare() -> Store:
    """Everything a session needs before it knows whom it serves: imports, the database."""
    from relkit.judging.store.assign import Store
    from relkit.judging.tui.app import make_app  # noqa: F401
    from relkit.judging.tui.cli import finish  # noqa: F401
    from relkit.judging.tui.judge import judge_screen  # noqa: F401 (app.py imports it late)
    from relkit.judging.tui.lead import LeadApp  # noqa: F401

    store = Store.open(os.environ.get("RELKIT_DB"), create=False)
    warm_queries(store)
    return store


def warm_queries(store: Store) -> None:
    """Run, as the server's login, the reads a session starts with, for someone.

    The first ORM query configures SQLAlchemy's mappers and each statement's first run
    compiles it (cached by the statement's shape, not its values): ~0.3 s of CPU that
    would otherwise come after sign-in. It also leaves a connection in the pool. Only
    reads; a failure here only means a colder start.
    """
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.orm import configure_mappers

    from relkit.judging.store.models import StoreError

    configure_mappers()
    try:
        names = store.assessors(role="assessor")
        if names:
            view = store.assessor(names[0])
            view.scale()
            view.topics()
    except (SQLAlchemyError, StoreError):
        pass


def serve(store: Store, role: str, name: str) -> int:
    """Run ``name``'s judging screen (a lead's: the lead view) as ``name``'s database login."""
    from sqlalchemy.exc import SQLAlchemyError

    from relkit.judging.store.access.acting import act_as
    from relkit.judging.store.models import StoreError

    try:
        act_as(store.engine, name)
    except StoreError as exc:
        refuse(str(exc))
        return 1
    except SQLAlchemyError as exc:   # the database away or refusing: one line, no traceback
        why = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        refuse(f"the database could not start the session of {name} ({why})")
        return 1
    if role == "lead":
        from relkit.judging.tui.cli import finish_lead
        from relkit.judging.tui.lead import LeadApp

        lead_app = LeadApp(store, name, idle_gc=True)
        lead_app.run()
        return finish_lead(lead_app, say_where=False)  # an unsaved final grade: said, 1
    from relkit.judging.tui.app import Settings, make_app
    from relkit.judging.tui.cli import finish

    # Built-in keys, no remembered preferences: the server's user is not the assessor.
    # `relkit serve --pairs`: the pairs screen (preference judgments).
    pairs = os.environ.get("RELKIT_SERVE_PAIRS") == "1"
    strategy = os.environ.get("RELKIT_SERVE_PAIR_STRATEGY") or "all-pairs"
    app = make_app(store, name, Settings(keymap_path=None, prefs_path=None, idle_gc=True,
                                         pairs=pairs, pair_strategy=strategy))
    app.run()
    # (without "judgments are saved in URL": that names the server's login, not the
    # person's; what is not saved is still said, to the server's log)
    return finish(app, say_where=False)


# The meta packet a session sends instead of starting the app when it may not: the
# server logs the reason once and tells the browser (relkit.judging.serve.warm).
REFUSED = "relkit_refused"


def refuse(reason: str) -> None:
    """Tell the server, in textual-serve's own protocol on stdout (the prelude, then one
    meta packet), that this session cannot start and why."""
    import json

    payload = json.dumps({"type": REFUSED, "reason": reason}).encode()
    out = sys.stdout.buffer
    out.write(b"__GANGLION__\n" + b"M" + len(payload).to_bytes(4, "big") + payload)
    out.flush()


def die_with_server() -> None:
    """Be killed by the kernel when the server's process ends, however it ends (SIGKILL,
    a crash): nothing else would end a session whose server is gone (its app keeps
    running without input). Linux only (``prctl(PR_SET_PDEATHSIG)``); elsewhere the
    server's own stop is all there is."""
    import signal

    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:            # the server ended before prctl took hold
        os._exit(1)


def main(argv: list[str]) -> int:
    die_with_server()
    if argv[0] == "--warm":
        # A spare (relkit.judging.serve.warm): ready now, learns who from the server.
        store = prepare()
        sys.stdout.write("relkit: warm\n")       # the pool waits for this line
        sys.stdout.flush()
        fd = int(argv[1])
        with os.fdopen(fd, "rb") as pipe:
            line = pipe.readline().decode()
        if not line.endswith("\n"):
            store.close()
            return 0  # the server stopped before handing this spare out
        role, name, os.environ["COLUMNS"], os.environ["ROWS"] = line.rstrip("\n").split("\t")
    else:
        role, name = argv
        store = prepare()
    return serve(store, role, name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
