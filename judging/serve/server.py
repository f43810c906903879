"""textual-serve with sign-in: tokens checked before any app process starts.

textual-serve's :class:`~textual_serve.server.Server` serves a page (xterm.js) and, per
websocket, runs one shell command as the app process, relaying keys and screen bytes.
This subclass puts three checks in front of that, in the server (one place, before a
process exists, so a refused browser costs nothing but the check):

- the page (``/``) shows a sign-in form until the browser holds a valid token in an
  ``HttpOnly``, ``SameSite=Strict`` cookie (``POST /signin`` sets it);
- a websocket upgrade is refused (403) when its ``Origin`` is another site's, or its
  token is missing, wrong or revoked: the token is checked again on every connection,
  and every :data:`REVOKE_CHECK` seconds for the open ones (one query), so a revoked
  token's open sessions are closed, the browser told why;
- failed sign-ins are logged on stderr and slowed down per client address and per
  token (1, 2, 4... up to 30 seconds once three have failed), one attempt at a time
  once slowed; valid sign-ins arriving together are not refused (:mod:`.backoff`);
- what a signed-in browser may cost (sessions, message size, keys, its process's
  end) is limited in :mod:`.limits`, applied by :mod:`.sessions`.

The app process is told the token's owner (never anything from the request), so a
session reaches only that person's assignments, or the lead's view for a lead, and on
a team database its connections act as that person's login (``SET ROLE``: row-level
security holds inside the session). It is taken from a warm spare
(:mod:`relkit.judging.serve.warm`) that has already imported the app and opened the
database, so signing in does not wait for Python to start. A token, once proven
(scrypt), is recognised on its next uses by reading its row only
(:class:`relkit.judging.store.tokens.Verifier`).
"""

from __future__ import annotations

import asyncio
import html
import sys
from typing import TYPE_CHECKING

import aiohttp_jinja2
from aiohttp import WSMessage, web
from aiohttp.web_runner import GracefulExit
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from relkit.judging.serve import page as bundle
from relkit.judging.serve.backoff import (  # noqa: F401 (FORGET_AFTER..: re-exported)
    FORGET_AFTER,
    FREE_FAILURES,
    MAX_DELAY,
    QUEUE,
    WAITING,
    Backoff,
    Busy,
)
from relkit.judging.serve.identity import Identifying
from relkit.judging.serve.limits import (
    HEIGHTS,
    MAX_MESSAGE,
    PER_TOKEN,
    SPARES,
    TOTAL,
    WIDTHS,
    Seat,
    clamp,
    log,
)
from relkit.judging.serve.markup import (
    FONT_FACE,
    FONTS_LINK,
    HEADERS,
    PAGE_SCRIPT,
    RESTART,
    SIGN_OUT,
    SIGNIN,
)
from relkit.judging.serve.sessions import LEFT, SessionLimits
from relkit.judging.serve.warm import Gone, WarmAppService, WarmPool, served_environment
from relkit.judging.store import tokens

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store

COOKIE = "relkit_token"
REVOKE_CHECK = 3.0   # seconds between two looks for revoked tokens of open sessions
REVOKED = "Your token was revoked: this session has ended."


class RelkitServer(Identifying, SessionLimits, Server):
    """textual-serve's server, for relkit's judging app, behind sign-in tokens."""

    def __init__(self, store: Store, db: str, host: str = "127.0.0.1", port: int = 8000,
                 public_url: str | None = None, per_token: int = PER_TOKEN,
                 max_sessions: int = TOTAL, app_env: dict[str, str] | None = None, *,
                 spares: int = SPARES) -> None:
        Server.__init__(self, command="relkit judge", host=host, port=port,
                        title="relkit judge", public_url=public_url)
        SessionLimits.__init__(self, per_token, max_sessions)
        self.explicit_public_url = public_url
        # (textual-serve writes an IPv6 literal bare: http://::1:8000 is no URL)
        self.local_url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
        if public_url is None:
            self.public_url = self.local_url
        self.store = store
        self.db = db
        self.backoff = Backoff()
        self.verify = tokens.Verifier(store)
        self.pool = WarmPool(spares, app_env={"RELKIT_DB": db, **(app_env or {})})
        self._warming: asyncio.Future[None] = asyncio.Future()
        self._watching: asyncio.Future[None] = asyncio.Future()
        self._started = False     # on_startup done (request_exit)
        self._exit_asked = 0
        # open websockets: their token's public key and its owner (watch_revocations)
        self.sessions: dict[web.WebSocketResponse, tuple[str, str]] = {}

    # -- what textual-serve does, made quiet and relkit's --------------------------
    def initialize_logging(self) -> None:
        # textual-serve logs through rich to stdout with a logo; relkit's diagnostics
        # are one line each on stderr.
        import logging

        logging.basicConfig(level="WARNING", format="relkit serve: %(message)s",
                            stream=sys.stderr)

    async def on_shutdown(self, app: web.Application) -> None:
        self._warming.cancel()
        self._watching.cancel()
        await self.end_all()          # each process within QUIT_GRACE (SessionLimits)
        await self.pool.close()

    def request_exit(self) -> None:
        """SIGINT and SIGTERM: stop. Asked while the server is starting, the stop waits
        for the start to end: a stop then cancelled the warm processes' creation midway
        (``asyncio.create_subprocess_exec``), which never finished cancelling, and the
        server hung for ever (a SIGTERM right after the start-up line, 1 in ~20).
        Asked again meanwhile, it stops at once."""
        self._exit_asked += 1
        if self._started or self._exit_asked > 1:
            raise GracefulExit()

    async def on_startup(self, app: web.Application) -> None:
        # The spares' environment is the one textual-serve gives its app processes.
        probe = AppService("", write_bytes=None, write_str=None, close=None,  # type: ignore[arg-type]
                           download_manager=self.download_manager)
        self.pool.fill(served_environment(probe._build_environment(), self.pool.app_env))
        where = (f"{self.public_url} (listening on {self.local_url})"
                 if self.explicit_public_url else self.public_url)
        log(f"serving the judging screens on {where} (sign in with a token from "
            "`relkit token issue NAME`; Ctrl+C stops)")
        self._watching = asyncio.ensure_future(self.watch_revocations())
        self._warming = asyncio.ensure_future(self.pool.say_warm(log))
        from relkit.judging.store.access.acting import cannot_act_as, server_cannot_read

        login = self.store.engine.url.username or "this server's login"
        try:
            unread = await asyncio.to_thread(server_cannot_read, self.store.engine)
        except DBAPIError:
            unread = []
        if unread:
            log(f"{login} may not read {', '.join(unread)}, which the server reads before a "
                "session acts as its person: "
                + ("sign-ins will be refused" if {"access_token", "assessor"} & set(unread)
                   else "sessions may fail to start")
                + f" (as the owner: `relkit team init --serve-login {login}`)")
        try:
            people = await asyncio.to_thread(cannot_act_as, self.store.engine)
        except DBAPIError:
            people = []   # a login that cannot even read the people: sign-ins will say
        if people:
            log(f"the database's row-level security needs each session to act as its "
                f"person's login, and this server's login may not act as "
                f"{', '.join(people)}: their sign-ins will get no session (as the owner: "
                "`relkit team init --serve-login LOGIN`)")
        self._started = True
        if self._exit_asked:     # a stop asked for while starting: now (request_exit)
            asyncio.get_running_loop().call_soon(self.request_exit)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.router.add_post("/signin", self.handle_signin)
        app.router.add_get("/signout", self.handle_signout)
        app.router.add_get("/relkit/textual.js", self.handle_script)
        return app

    async def handle_script(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's page script with relkit's choice of renderer (:mod:`.page`);
        its URL carries a hash of its text, so browsers keep it until it changes."""
        got = bundle.script(bundle.renderer())
        if got is None:
            raise web.HTTPNotFound()
        return web.Response(text=got[0], content_type="application/javascript",
                            headers={"Cache-Control": "public, max-age=31536000, immutable",
                                     "X-Content-Type-Options": "nosniff"})

    # -- pages ----------------------------------------------------------------------
    def signin_page(self, message: str = "", status: int = 200) -> web.Response:
        body = SIGNIN.format(message=f'<p class="error" id="error">{html.escape(message)}</p>'
                             if message else "")
        return web.Response(text=body, content_type="text/html", status=status,
                            headers=HEADERS)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        token = request.cookies.get(COOKIE)
        if not token:
            return self.signin_page()
        who = await self.check(request, token, "page")
        if who is None:
            resp = self.signin_page("That token is not valid (wrong or revoked).", 403)
            resp.del_cookie(COOKIE, path="/")
            return resp
        return self.render_app(request)

    def render_app(self, request: web.Request) -> web.StreamResponse:
        # textual-serve's own page, with the websocket URL of the address the browser
        # used (textual-serve writes its --host into it, which breaks `localhost` vs
        # `127.0.0.1`, and then the Origin check).
        base = self.explicit_public_url or f"{request.scheme}://{request.host}"
        ws = ("wss:" if base.startswith("https") else "ws:") + base.split(":", 1)[1] + "/ws"
        context = {"font_size": to_int(request.query.get("fontsize", "16"), 16),
                   "app_websocket_url": ws,
                   "config": {"static": {"url": base + "/static/"}},
                   "application": {"name": self.title}}
        resp = aiohttp_jinja2.render_template("app_index.html", request, context)
        # The page asks Google Fonts for Roboto Mono, a render-blocking stylesheet: it
        # tells Google who judges, and without the internet it holds the page ~2.5 s.
        # textual-serve ships the font itself: use that copy.
        page = FONTS_LINK.sub(FONT_FACE.replace("STATIC", base + "/static/"), resp.text or "")
        # The script: textual-serve's bundle with relkit's choice of xterm.js's
        # renderer (relkit.judging.serve.page: by default WebGL on a graphics card, the
        # canvas elsewhere); textual-serve's own script with RELKIT_SERVE_RENDERER=canvas
        # or when its bundle is not one that module knows.
        # relkit's additions: the reason a session ended, and a way to sign out.
        page = page.replace("<script src=", PAGE_SCRIPT + "<script src=", 1)
        page = page.replace(RESTART, RESTART + SIGN_OUT.replace("BASE", base), 1)
        got = bundle.script(bundle.renderer()) if bundle.renderer() != "canvas" else None
        if got is not None:
            page = page.replace(f'src="{base}/static/js/textual.js"',
                                f'src="{base}/relkit/textual.js?v={got[1]}"', 1)
        out = web.Response(text=page, content_type="text/html", headers=HEADERS)
        return out

    async def handle_signin(self, request: web.Request) -> web.StreamResponse:
        if not self.same_origin(request):
            log(f"refused sign-in from {self.address(request)}: posted from another site "
                f"({request.headers.get('Origin')})")
            raise web.HTTPForbidden(text="sign-in from another site refused")
        form = await request.post()
        token = str(form.get("token", "")).strip()
        who = await self.check(request, token, "sign-in")
        if who is None:
            return self.signin_page("That token is not valid (wrong or revoked).", 403)
        log(f"{who.name} ({who.role}) signed in from {self.address(request)}")
        resp = web.HTTPSeeOther("/")
        resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/",
                        secure=self.secure(request), max_age=30 * 24 * 3600)
        raise resp

    async def handle_signout(self, request: web.Request) -> web.StreamResponse:
        resp = web.HTTPSeeOther("/")
        resp.del_cookie(COOKIE, path="/")
        raise resp

    # -- the websocket: one app process per connection --------------------------------
    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self.same_origin(request):
            log(f"refused a websocket from {self.address(request)}: Origin "
                f"{request.headers.get('Origin')} is not this server's")
            raise web.HTTPForbidden(text="websocket from another origin refused")
        who = await self.check(request, request.cookies.get(COOKIE), "websocket")
        if who is None:
            raise web.HTTPForbidden(text="sign in first")
        # As textual-serve's handle_websocket, with a warm process told who this is.
        # No permessage-deflate: a screen is a few KiB, and deflating every frame costs
        # CPU on the one event loop all sessions share (frames over 16 KiB go through a
        # thread pool) and in the browser, on the path of every key press.
        # A longer message is refused as its header is read (limits.MAX_MESSAGE).
        websocket = web.WebSocketResponse(heartbeat=15, compress=False,
                                          max_msg_size=MAX_MESSAGE)
        width = clamp(to_int(request.query.get("width", "80"), 80), WIDTHS)
        height = clamp(to_int(request.query.get("height", "24"), 24), HEIGHTS)
        service: WarmAppService | None = None
        seat: Seat | None = None
        first: asyncio.Future[WSMessage] | None = None
        failed = False
        try:
            await websocket.prepare(request)
            key = tokens.key_of(request.cookies[COOKIE]) or ""
            seat = await self.seat_for(websocket, key, who.name)
            if seat is None:                # refused, and told why (SessionLimits)
                return websocket

            async def close(reason: str = "") -> None:
                # a reason: the page shows it instead of "Session ended." (PAGE_SCRIPT)
                await websocket.close(code=4000 if reason else 1000,
                                      message=reason.encode()[:123])

            service = WarmAppService(self.pool, who.role, who.name, log,
                                     write_bytes=websocket.send_bytes,
                                     write_str=websocket.send_str, close=close,
                                     download_manager=self.download_manager, debug=self.debug)
            self.sessions[websocket] = (key, who.name)
            self.seated(seat, websocket, service)
            # The page's first message is read while the process starts: a browser that
            # has already left (a connect-and-close loop) gets no process started cold,
            # and one handed out is stopped at once.
            first = asyncio.ensure_future(websocket.receive())

            def gone() -> bool:
                return (websocket.closed or request.transport is None
                        or (first.done() and (first.cancelled() or first.exception() is not None
                                              or first.result().type in LEFT)))

            service.gone = gone
            starting = asyncio.ensure_future(service.start(width, height))
            await asyncio.wait([starting, first], return_when=asyncio.FIRST_COMPLETED)
            if not starting.done() and gone():
                self.leaving(seat)          # (a reload waits for its seat, not refused)
                await service.stop()        # (the process on its way is killed: warm)
            try:
                await starting
            except Gone as exc:
                log(f"session of {who.name} not started: {exc}")
                service.refused = True      # (said: no "ended" line)
                return websocket
            seat.pid = service._process.pid if service._process else None
            try:
                await self.relay(websocket, service, key, await first)
            finally:
                self.leaving(seat)
                await service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as exc:  # one browser's failure must not stop the server
            log(f"session of {who.name} ended on an error: {exc!r}")
            failed = True
        finally:
            if first is not None:
                first.cancel()
            # (not there: the watcher ended it, and has said so)
            open_still = self.sessions.pop(websocket, None) is not None
            if service is not None:
                await service.stop()    # the app process's own last lines come first
                if open_still and not (service.refused or failed):
                    log(f"session of {who.name} ended{service.why}{self.used(seat)}")
            if seat is not None:
                self.seats.release(seat)
        return websocket

    async def watch_revocations(self) -> None:
        """End the open sessions whose token has been revoked (by `relkit token revoke`
        or a new token for the person, in another process), within
        :data:`REVOKE_CHECK` seconds: one query for all open sessions' tokens."""
        while True:
            await asyncio.sleep(REVOKE_CHECK)
            if not self.sessions:
                continue
            keys = {key for key, _ in self.sessions.values()}
            try:
                live = await asyncio.to_thread(tokens.live_keys, self.store, keys)
            except SQLAlchemyError:
                continue        # the database is away: the next round asks again
            except Exception as exc:  # noqa: BLE001 (the watcher must outlive any round)
                log(f"could not look for revoked tokens: {exc!r}; trying again")
                continue
            for websocket, (key, name) in list(self.sessions.items()):
                # (a session opened during the query was not asked about: not revoked)
                if key in keys and key not in live:
                    self.sessions.pop(websocket, None)
                    log(f"session of {name} ended: its token was revoked")
                    # the app is told to quit (as when the browser goes): what it has
                    # committed stays; a grade not yet saved is tried once more or logged.
                    # Each close on its own: a silent client's close does not hold up
                    # the others' (aiohttp waits for its answer).
                    asyncio.ensure_future(self._close(websocket, name))

    async def _close(self, websocket: web.WebSocketResponse, name: str, code: int = 4001,
                     reason: str = REVOKED) -> None:
        try:
            await websocket.close(code=code, message=reason.encode()[:123])
        except Exception as exc:  # noqa: BLE001 (the connection may be gone already)
            log(f"session of {name}: closing it: {exc!r}")


def run(store: Store, db: str, host: str, port: int, public_url: str | None,
        per_token: int = PER_TOKEN, max_sessions: int = TOTAL,
        app_env: dict[str, str] | None = None, *, spares: int = SPARES) -> None:
    """Serve until interrupted; the app processes get ``RELKIT_DB`` and ``app_env`` in
    their environment (:func:`~relkit.judging.serve.warm.served_environment`), and
    ``spares`` of them are kept started ahead (:class:`~.warm.WarmPool`)."""
    from relkit.judging.serve.listen import bind_any_port, serve_on

    # port 0: bound here, so that the server is made with (and names) the port chosen
    sock = bind_any_port(host) if port == 0 else None
    server = RelkitServer(store, db, host, sock.getsockname()[1] if sock else port,
                          public_url, per_token, max_sessions, app_env, spares=spares)
    if sock is None:
        server.serve()
    else:
        serve_on(server, sock)
