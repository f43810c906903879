"""Skip the cyclic garbage collector's last pass over everything at interpreter exit.

After an HTML report, matplotlib, pandas and scipy leave hundreds of thousands of
objects; the collector's final pass over them took 1.3-1.8 s of ``compare --html``
(after the report was written and its progress bar gone: the command seemed hung).
Freezing them (:func:`gc.freeze`) at exit makes that pass skip them; the memory goes
back with the process. Only the console entry points call this, after their files are
written and closed, so nothing with a pending finaliser is left to it; a program
calling the CLI in-process is not affected before it exits.
"""

from __future__ import annotations

import atexit
import gc

_registered = False


def freeze_at_exit() -> None:
    """Register :func:`gc.freeze` to run at interpreter exit (once)."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True
