"""``relkit serve``: the judging screens in web browsers, people signed in by token."""

from __future__ import annotations

import typer

from relkit.judging.cliopts import DbOpt, say
from relkit.judging.pairhelp import PAIR_STRATEGY_HELP, check_pair_strategy
from relkit.judging.serve.limits import SPARES
from relkit.metrics.commands.numopt import Num

app = typer.Typer()

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@app.command()
def serve(
    db: str | None = DbOpt,
    host: str = typer.Option("127.0.0.1", help="Address to listen on (default: this machine "
                             "only; put a TLS reverse proxy in front for others)"),
    port: int = Num(8000, within="0 <= x <= 65535", help="Port to listen on (0: one the "
                    "system chooses, named in the start-up line on stderr)"),
    public_url: str | None = typer.Option(None, "--public-url", help="The https:// address "
                                          "people open, when behind a reverse proxy"),
    max_sessions: int = Num(32, within="x >= 1", help="Sessions open at once on this server "
                            "(each is a process of ~80 MiB and a database connection); "
                            "one more is told the server is full"),
    per_token: int = Num(2, "--max-sessions-per-token", within="x >= 1",
                         help="Sessions open at once with one token (tabs of one person); "
                         "one more is told they are signed in in another tab"),
    spares: int = Num(SPARES, within="0 <= x <= 16", help="App processes kept started "
                      "ahead, besides --max-sessions (each ~1 s of CPU to start, ~80 MiB "
                      "and a database connection held): a sign-in takes one and gets its "
                      "screen without waiting for Python; 0 starts each session's process "
                      "when its browser signs in"),
    pairs: bool = typer.Option(False, "--pairs", help="Serve the pairs screen (preference "
                               "judgments, as `relkit judge --pairs`) instead of grades"),
    pair_strategy: str = typer.Option("all-pairs", "--pair-strategy",
                                      help=PAIR_STRATEGY_HELP),
) -> None:
    """Serve the judging screens to web browsers; people sign in with a token.

    The same screens as `relkit judge`: each signed-in person sees only their own
    assignments (a lead: the lead's view). Tokens: `relkit token issue NAME` or
    `relkit assign ... --token`.

    Example: relkit serve --db postgresql://judge@db/project --port 8000
    """
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        import click

        raise click.ClickException("relkit serve needs textual-serve: pip install "
                                   "'relkit[serve]' (or pip install textual-serve)") from None
    from relkit.judging.serve.warm import missing_internals

    gone = missing_internals()
    if gone is not None:   # no safe way to serve without it (warm.py says why)
        from importlib.metadata import version

        import click

        raise click.ClickException(
            f"relkit serve needs textual-serve 1.1 (the installed {version('textual-serve')} "
            f"has no {gone}): pip install 'relkit[serve]'")
    import os

    check_pair_strategy(pair_strategy)
    from relkit.judging.serve.server import run
    from relkit.judging.store.assign import Store

    if public_url is not None:
        _check_public_url(public_url)
    _can_listen(host, port)
    url = db or os.environ.get("RELKIT_DB") or "relkit.db"
    store = Store.open(url, create=False, notify=say)  # upgraded here, not per session
    if host not in LOOPBACK:
        say(f"relkit serve: listening on {host} in plain HTTP: tokens cross the network "
            "in clear unless a TLS reverse proxy is in front (docs/serve.md)")
    # What each session's app shows (session.py reads it from its environment): always
    # given, so that a value left in the shell never turns a grading server into pairs.
    app_env = {"RELKIT_SERVE_PAIRS": "1" if pairs else "0",
               "RELKIT_SERVE_PAIR_STRATEGY": pair_strategy}
    run(store, url, host, port, public_url, per_token, max_sessions, app_env, spares=spares)


def _can_listen(host: str, port: int) -> None:
    """Refuse, in one line, an address this machine cannot listen on (an unknown name, an
    address not its own, a port in use), before the server starts and would fail in
    aiohttp's start-up with a traceback."""
    import socket

    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port,
                                                          type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
    except OSError as exc:
        shown = f"[{host}]" if ":" in host else host    # an IPv6 literal
        raise typer.BadParameter(f"cannot listen on {shown}:{port}: "
                                 f"{exc.strerror or exc}", param_hint="--host/--port") from None


def _check_public_url(url: str) -> None:
    """The address people open must be an http(s) URL with a host: the server allows
    WebSocket upgrades from that origin only, so a typo would lock everyone out."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise typer.BadParameter(f"expected an address such as https://judge.example.org; "
                                 f"got {url!r}", param_hint="--public-url")
