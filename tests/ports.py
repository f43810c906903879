"""Ports for tests that run at once in several pytest-xdist workers.

A port found free (bound, closed) and used later can be taken in between by another
worker's server or by any outgoing connection given it as its local port. So:

- a server the tests start binds its own port: ``relkit serve --port 0`` names the port
  it bound in its start-up line (``serve_helpers.Served`` reads it);
- a port where connecting must be *refused* is held for the test by
  :func:`refused_port`: bound and not listening, which Linux answers with a refusal,
  and bound without ``SO_REUSEADDR``, so no other socket can take it meanwhile.

``tests/test_worker_safety.py`` fails on a new bind-and-release or fixed port in tests/.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

# The poll interval of a test's ``serve_forever``: its ``shutdown()`` waits up to one
# interval, 0.5 s by default, in every test's teardown (test_worker_safety checks it is
# given).
POLL = 0.05


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 where every connection is refused, for the ``with`` block."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])
