"""Who a request to ``relkit serve`` is: its ``Origin`` checked, its token's owner found.

Every page, sign-in and websocket of :class:`~relkit.judging.serve.server.RelkitServer`
asks :meth:`Identifying.check` first: a token already proven goes straight to its cheap
check, any other attempt waits its turn and its delay (:mod:`.backoff`), and a refusal
is logged. A base of the server, like :class:`~relkit.judging.serve.sessions.SessionLimits`;
apart from it so that the checks in front of every process read in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from aiohttp import web
from sqlalchemy.exc import DBAPIError

from relkit.judging.serve.backoff import Backoff, Busy
from relkit.judging.serve.limits import log
from relkit.judging.serve.markup import HEADERS, SIGNIN
from relkit.judging.store import tokens


class Identifying:
    """The server's identity checks (a base of
    :class:`~relkit.judging.serve.server.RelkitServer`, which has the state below)."""

    explicit_public_url: str | None
    backoff: Backoff
    verify: tokens.Verifier

    @staticmethod
    def address(request: web.Request) -> str:
        return request.remote or "?"

    def same_origin(self, request: web.Request) -> bool:
        """Whether the request's ``Origin`` (when sent) is this server's own."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser: it still needs a token
        got = urlsplit(origin).netloc.lower()
        allowed = {request.host.lower()}
        if self.explicit_public_url:
            allowed.add(urlsplit(self.explicit_public_url).netloc.lower())
        return got in allowed

    async def check(self, request: web.Request, token: str | None,
                    what: str) -> tokens.Identity | None:
        """The token's owner, or ``None`` (logged, and slowed down).

        A token this server has already proven goes straight to its (cheap) check; any
        other attempt takes its turn in one line and waits for its delay first
        (:mod:`.backoff`): its token's when the database knows the token's public key
        (a wrong secret, a revoked token: not the address's, which behind a reverse
        proxy is everyone's), else its address's (an unknown or malformed key)."""
        if not token:
            return None
        address = self.address(request)
        if self.verify.known(token):
            got = await self.verified(token, what, address)
            if isinstance(got, tokens.Identity):
                return got
        # the token's public key, when the database knows it: guesses at one person's
        # token are counted there, from whatever address they come; an unknown or
        # malformed key's at the address (a guesser's random keys would only fill the
        # token table)
        key = tokens.key_of(token)
        known = False
        if key is not None:
            with contextlib.suppress(DBAPIError):   # verified() below says what it refused
                known = await asyncio.to_thread(tokens.known_key, self.verify.db, key)
        at, line = (None, key) if known else (address, None)
        try:
            async with self.backoff.turn(at, line) as waited:
                got = await self.verified(token, what, address)
                if isinstance(got, tokens.Identity):
                    return got
                n, m = self.backoff.failed(at, line)
        except Busy as busy:
            where = "from this address" if busy.what == "address" else "at this token"
            log(f"refused {what} from {address}: {busy.limit} attempts {where} are "
                "already in line")
            where = "from your address" if busy.what == "address" else "with this token"
            raise web.HTTPTooManyRequests(
                text=SIGNIN.format(message='<p class="error" id="error">Too many sign-ins '
                                   f"{where} are waiting; try again in a minute.</p>"),
                content_type="text/html", headers={**HEADERS, "Retry-After": "30"}) from None
        owner = f", a token of {got.name}" if got.name else ""
        count = f"failure {m} at this token" if known else f"failure {n} from this address"
        log(f"refused {what} from {address}: {got.reason} token{owner} ({count}, after "
            f"waiting {waited:g} s)")
        return None

    async def verified(self, token: str, what: str,
                       address: str) -> tokens.Identity | tokens.Refusal:
        """:attr:`verify` off the event loop (scrypt takes ~50 ms: other sessions' keys
        keep flowing); a database that refuses the read (the server's login may not read
        the tokens, say) is logged and answered with a page saying so (503)."""
        try:
            return await asyncio.to_thread(self.verify, token)
        except DBAPIError as exc:
            why = str(getattr(exc, "orig", exc) or exc).splitlines()[0]
            log(f"cannot check the {what} from {address}: the database refused it ({why})")
            raise web.HTTPServiceUnavailable(
                text=SIGNIN.format(message='<p class="error" id="error">This server cannot '
                                   "check sign-in tokens now; tell the database's owner.</p>"),
                content_type="text/html", headers=HEADERS) from None

    def secure(self, request: web.Request) -> bool:
        return (request.scheme == "https"
                or request.headers.get("X-Forwarded-Proto", "").lower() == "https"
                or (self.explicit_public_url or "").startswith("https:"))
