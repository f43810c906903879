"""Sign-in tokens for ``relkit serve``: per-person secrets, stored only as salted hashes.

A token reads ``rk_<key>_<secret>``. ``key`` (public, 12 hex digits) finds the row;
``secret`` (40 hex digits, 160 bits from :mod:`secrets`) is never stored: the row
keeps ``scrypt(secret, salt)`` with a per-token random salt, and a sign-in compares
digests with :func:`hmac.compare_digest`. A database dump therefore gives no one a
working token, and two people's equal secrets (they never are) would not show.

Issuing a token for a person revokes the ones they had (one live secret per person,
so a lost one is replaced by issuing again); revoked rows stay with ``revoked_at``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import select, update
from sqlmodel import col

from relkit.judging.store.database import Database, now
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import AssessorRow, TokenRow

if TYPE_CHECKING:
    from sqlalchemy import CursorResult

# scrypt's cost: 2**14 x 8 x 128 bytes = 16 MiB and ~50 ms per sign-in; the parameters
# Python's documentation and OWASP give for interactive logins. The secret has 160 bits
# of entropy, so the cost is defence in depth, not what makes guessing hopeless.
_N, _R, _P = 2 ** 14, 8, 1
_FORM = re.compile(r"^rk_([0-9a-f]{12})_([0-9a-f]{40})$")


@dataclass(frozen=True)
class Identity:
    """Who a valid token belongs to: ``role`` is "assessor" or "lead"."""

    name: str
    role: str


@dataclass(frozen=True)
class Refusal:
    """Why a token was refused, for the server's log (never shown to the browser)."""

    reason: str           # "malformed", "unknown", "wrong secret", "revoked"
    name: str | None = None


def _digest(secret: str, salt: bytes) -> str:
    return hashlib.scrypt(secret.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32).hex()


def issue(db: Database, name: str) -> str:
    """A new token for person ``name`` (an assessor or a lead); their older ones are revoked.

    Returns the token: the only time it exists in clear. Raises :class:`StoreError`
    for an unknown name or an automatic assessor (which never signs in).
    """
    return issue_replacing(db, name)[0]


def issue_replacing(db: Database, name: str) -> tuple[str, int]:
    """:func:`issue`, and how many live tokens of ``name`` it revoked (the CLI says so:
    that person is signed out of ``relkit serve``)."""
    key, secret = secrets.token_hex(6), secrets.token_hex(20)
    salt = secrets.token_bytes(16)
    digest = _digest(secret, salt)
    with db.write() as s, s.begin():
        row = s.execute(select(col(AssessorRow.id), col(AssessorRow.kind))
                        .where(col(AssessorRow.name) == name)).first()
        if row is None:
            people = db.assessors(kind="human")
            raise StoreError(f"no assessor or lead named {name!r} in this database; "
                             + (f"there are {', '.join(people)}" if people else
                                "add them with `relkit assign NAME` or `--lead NAME`"))
        if row.kind == "automatic":
            raise StoreError(f"{name} is an automatic assessor: it never signs in "
                             "(its judgments are imported)")
        when = now()
        res = cast("CursorResult[Any]",
                   s.execute(update(TokenRow).where(col(TokenRow.assessor_id) == row.id,
                                               col(TokenRow.revoked_at).is_(None))
                        .values(revoked_at=when)))
        s.add(TokenRow(key=key, assessor_id=row.id, salt=salt.hex(), digest=digest,
                       created_at=when))
    return f"rk_{key}_{secret}", int(res.rowcount or 0)


def revoke(db: Database, name: str) -> int:
    """Revoke every live token of ``name``; the number revoked (0: none was live)."""
    with db.write() as s, s.begin():
        aid = s.execute(select(col(AssessorRow.id)).where(col(AssessorRow.name) == name)).scalar()
        if aid is None:
            raise StoreError(f"no assessor or lead named {name!r} in this database")
        res = cast("CursorResult[Any]",
                   s.execute(update(TokenRow).where(col(TokenRow.assessor_id) == aid,
                                               col(TokenRow.revoked_at).is_(None))
                        .values(revoked_at=now())))
        return int(res.rowcount or 0)


def verify(db: Database, token: str) -> Identity | Refusal:
    """The person ``token`` signs in, or why it is refused. Reads only."""
    m = _FORM.match(token.strip())
    if m is None:
        return Refusal("malformed")
    key, secret = m.groups()
    with db.read() as s:
        row = s.execute(select(col(TokenRow.salt), col(TokenRow.digest), col(TokenRow.revoked_at),
                               col(AssessorRow.name), col(AssessorRow.role))
                        .join(AssessorRow, col(AssessorRow.id) == col(TokenRow.assessor_id))
                        .where(col(TokenRow.key) == key)).first()
    if row is None:
        # Spend the same time as a known key, so timing does not tell keys apart.
        _digest(secret, b"\0" * 16)
        return Refusal("unknown")
    if not hmac.compare_digest(_digest(secret, bytes.fromhex(row.salt)), row.digest):
        return Refusal("wrong secret", row.name)
    if row.revoked_at is not None:
        return Refusal("revoked", row.name)
    return Identity(row.name, row.role)


def key_of(token: str) -> str | None:
    """The public key of a well-formed token (what finds its row), else ``None``."""
    m = _FORM.match(token.strip())
    return m.group(1) if m else None


def known_key(db: Database, key: str) -> bool:
    """Whether a token with the public ``key`` is in the database (live or revoked):
    one indexed read, no scrypt. Reads only."""
    with db.read() as s:
        return s.execute(select(col(TokenRow.key))
                         .where(col(TokenRow.key) == key)).first() is not None


def live_keys(db: Database, keys: set[str]) -> set[str]:
    """Which of the public ``keys`` belong to tokens still live (not revoked, not gone).

    One query for all: the server asks it every few seconds about the tokens of its
    open sessions, to end those whose token was revoked meanwhile. Reads only.
    """
    if not keys:
        return set()
    with db.read() as s:
        return set(s.execute(select(col(TokenRow.key)).where(col(TokenRow.key).in_(sorted(keys)),
                                                        col(TokenRow.revoked_at).is_(None)))
                   .scalars())


class Verifier:
    """:func:`verify`, remembering the tokens it has proven, for a server.

    scrypt is meant to be slow (~50 ms of CPU, far more on a loaded machine), and one
    browser shows its token three times in a row: the sign-in, the page, the
    websocket (again on every reload and reconnection). A token proven once is
    remembered (as an HMAC under a key of this process, never in clear) with its
    public key; shown again, only its row is read, so revoking it, or issuing its
    owner a new one, still refuses it at its very next use. A token never proven is
    always checked in full, so a wrong secret costs a guesser the same every time.
    """

    def __init__(self, db: Database, size: int = 4096) -> None:
        self.db, self.size = db, size
        self._key = secrets.token_bytes(32)
        self._proven: dict[bytes, str] = {}     # HMAC(token) -> the token's public key

    def _tag(self, token: str) -> bytes:
        return hmac.new(self._key, token.encode(), hashlib.sha256).digest()

    def known(self, token: str) -> bool:
        """Whether ``token`` was proven here before (no database read, no scrypt): then
        it is no guess, and the server lets it skip the sign-in slow-down's queue."""
        token = token.strip()
        m = _FORM.match(token)
        return m is not None and self._proven.get(self._tag(token)) == m.group(1)

    def __call__(self, token: str) -> Identity | Refusal:
        token = token.strip()
        m = _FORM.match(token)
        if m is None:
            return Refusal("malformed")
        tag = self._tag(token)
        if self._proven.get(tag) == m.group(1):
            with self.db.read() as s:
                row = s.execute(select(col(TokenRow.revoked_at), col(AssessorRow.name),
                                       col(AssessorRow.role))
                                .join(AssessorRow, col(AssessorRow.id) == col(TokenRow.assessor_id))
                                .where(col(TokenRow.key) == m.group(1))).first()
            if row is None:
                self._proven.pop(tag, None)
                return Refusal("unknown")
            if row.revoked_at is not None:
                self._proven.pop(tag, None)
                return Refusal("revoked", row.name)
            return Identity(row.name, row.role)
        got = verify(self.db, token)
        if isinstance(got, Identity):
            if len(self._proven) >= self.size:
                self._proven.pop(next(iter(self._proven)))   # the oldest
            self._proven[tag] = m.group(1)
        return got

