"""The allocators told to keep the memory they free, in small pages, for a large
``relkit eval``.

Evaluating a large run allocates and frees numpy temporaries of a few MiB per chunk,
and Arrow buffers per block, over and over. glibc hands such blocks back to the system
when they are freed (``munmap``, or trimming the top of its heap), mimalloc (Arrow's
allocator) purges freed pages after 10 ms, and each new allocation faults them in again.
numpy and mimalloc ask for transparent huge pages, so each fault has the kernel zero (and
at times compact memory for) a whole 2 MiB page: ``perf`` put 31-42 % of a 10M-line
evaluation's CPU time in ``clear_page_erms``, 1.0-1.7 s of system time of ~3.5 s.

So, once, for this process:

* glibc serves blocks up to 32 MiB from its heap and does not trim it (``mallopt``);
* mimalloc keeps freed pages (``MIMALLOC_PURGE_DELAY=-1``, read when pyarrow loads; only
  if pyarrow is not loaded yet and the user has not set it);
* no transparent huge pages (``prctl(PR_SET_THP_DISABLE)``): a fault zeroes 4 KiB.

10M lines, 7 measures, three rounds at load 7-10: 0.33-0.40 s of system time against
0.8-1.7 s with huge pages (freed memory kept) and 0.46-0.58 s with neither setting;
peak RSS 791-825 MiB (762-775 MiB with neither). Only ``relkit eval`` with a large input
calls this; it changes the process's memory settings (a program running the CLI
in-process keeps them), never what is computed. Elsewhere than Linux with glibc, the
parts that do not apply are skipped.
"""

from __future__ import annotations

import os
import sys

# mallopt(3) and prctl(2) parameters, and the values used
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20      # the largest glibc accepts on 64-bit systems
TRIM_THRESHOLD = 1 << 30
PR_SET_THP_DISABLE = 41

_done = False


def keep_freed_memory() -> bool:
    """Apply the settings above (once per process); whether glibc's are set."""
    global _done
    if _done:
        return True
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("MIMALLOC_PURGE_DELAY", "-1")
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    prctl = getattr(libc, "prctl", None)
    if prctl is not None:
        prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)     # fails on kernels before 3.15: no harm
    mallopt = getattr(libc, "mallopt", None)      # glibc's; not in musl
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
