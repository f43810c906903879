"""The app process of one signed-in browser: ``python -m relkit.judging.serve.session ROLE NAME``
(or ``--warm FD``: started ahead, told ROLE and NAME on pipe FD by the server).

Started by :mod:`relkit.judging.serve.server` after it has checked the token, with
``RELKIT_DB`` in the environment and textual-serve's web driver selected
(``TEXTUAL_DRIVER``). It runs the same app as ``relkit judge`` (or ``--lead``): every
grade is committed before the screen moves on, and a new session resumes where the
database says the assessor is. On the way out, a judgment still unsaved is tried once
more or logged in full (:func:`relkit.judging.tui.cli.finish`, to the server's log).
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    if argv[0] == "--warm":
        # A spare (relkit.judging.serve.warm): import now, learn who from the server.
        from relkit.judging.store import Store
        from relkit.judging.tui.app import make_app  # noqa: F401
        from relkit.judging.tui.lead import LeadApp  # noqa: F401

        fd = int(argv[1])
        with os.fdopen(fd, "rb") as pipe:
            line = pipe.readline().decode()
        if not line.endswith("\n"):
            return 0  # the server stopped before handing this spare out
        role, name, os.environ["COLUMNS"], os.environ["ROWS"] = line.rstrip("\n").split("\t")
    else:
        role, name = argv
    from relkit.judging.store import Store

    store = Store.open(os.environ.get("RELKIT_DB"), create=False)
    if role == "lead":
        from relkit.judging.tui.lead import LeadApp

        LeadApp(store, name).run()
        return 0
    from relkit.judging.tui.app import Settings, make_app
    from relkit.judging.tui.cli import finish

    # Built-in keys, no remembered preferences: the server's user is not the assessor.
    app = make_app(store, name, Settings(keymap_path=None, prefs_path=None))
    app.run()
    return finish(app)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
