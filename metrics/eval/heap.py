"""The allocators told to keep the memory they free, for a large ``relkit eval``.

Evaluating a large run allocates and frees numpy temporaries of a few MiB to a few tens
of MiB per chunk, over and over. glibc hands such blocks back to the system when they
are freed (``munmap``, or trimming the top of its heap), and the next allocation faults
them in again: the kernel zeroes every page (2 MiB pages where numpy asks for them), which
was 39 % of a 10M-line evaluation's CPU time (`perf`: ``clear_page_erms``), about 1 s
of system time. With blocks up to 32 MiB taken from the heap and the heap not trimmed,
the freed memory is reused instead. Arrow's allocator (mimalloc) does the same for the
reader's blocks unless told not to hand freed pages back (``MIMALLOC_PURGE_DELAY=-1``,
read when pyarrow is loaded). Page faults of a 10M-line evaluation: 24,000 against
50,000-56,000, system time 0.3-0.9 s against 1.0-1.5 s (load 9-11); peak RSS 825-846
against 796-809 MiB.

Only ``relkit eval`` with a large input calls this, once; it changes the process's
allocator settings (a program running the CLI in-process keeps them), never what is
computed. Elsewhere than glibc (no ``mallopt``) it does nothing.
"""

from __future__ import annotations

import os
import sys

# mallopt(3) parameters and the values used
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20      # the largest glibc accepts on 64-bit systems
TRIM_THRESHOLD = 1 << 30

_done = False


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (once per process), and mimalloc's if pyarrow is not
    loaded yet (a value the user set is kept); whether glibc's are set."""
    global _done
    if _done:
        return True
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("MIMALLOC_PURGE_DELAY", "-1")
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):    # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
