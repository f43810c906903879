"""What relkit does when the reader of its output goes away: nothing, quietly.

Standard library only: the CLI root (which imports nothing heavy) and the commands'
class (:mod:`relkit.judging.cliopts`) both use it.
"""

from __future__ import annotations

import sys


def closed_pipe() -> int:
    """The reader went away (``relkit eval ... | head -1``): not an error, say nothing.

    What is still buffered for stdout would fail again when the interpreter flushes it
    at exit ("Exception ignored ... BrokenPipeError"), so stdout is pointed at the null
    device first (the recipe in Python's documentation of SIGPIPE). Returns the exit
    status, 0.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (an in-process caller): nothing is flushed at exit
    return 0
