"""``relkit serve --port 0``: the system chooses a free port, and the start-up line says which.

A port found free by one process and then passed to another can be taken in between (by
another server, or by an outgoing connection given it as its local port); a port the
server binds itself cannot. So with port 0 the socket is bound here, before the server
is made, and the server is made with the port the system gave it: its start-up line
(``serving the judging screens on http://HOST:PORT``) names that port, and that is how
a script (or a test) started with ``--port 0`` learns where to connect.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from textual_serve.server import Server


def bind_any_port(host: str) -> socket.socket:
    """A socket bound to ``host`` on a port the system chooses (not yet listening)."""
    family, kind, proto, _, addr = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as aiohttp does
        sock.bind(addr)
    except OSError:
        sock.close()
        raise
    return sock


def serve_on(server: Server, sock: socket.socket) -> None:
    """What textual-serve's ``Server.serve`` does, on ``sock`` instead of host and port
    (aiohttp listens on it): its logging, SIGINT and SIGTERM asking the server to
    exit, until then."""
    server.debug = False
    server.initialize_logging()
    loop = asyncio.new_event_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, server.request_exit)
    web.run_app(server._make_app(), sock=sock, handle_signals=False, loop=loop,
                print=lambda *args: None)
