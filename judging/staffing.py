"""``relkit assign``'s work: share a pool's topics among assessors, register leads, hand
out sign-in tokens.

One call, :func:`staff`, checks the whole request before it opens the database (a bad
``--order``, a clash between an assessor and a lead, a bad gold file), then changes it
all or nothing as far as the store allows: a lead already registered as an assessor,
or an assessor who is a lead here, is refused before any change. The command parses
and prints; this module decides. It never prints: what the command says as it goes
(``say``) and the tokens it shows (``show_token``) are the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.judging.store.assign import AssignSummary, Store


@dataclass(frozen=True, kw_only=True)
class Staffing:
    """What ``relkit assign`` was asked: the people and how their work is shared.

    ``assessors`` judge; ``leads`` settle disagreements; ``token`` issues each of them a
    sign-in token for ``relkit serve``. The rest is passed to
    :meth:`relkit.judging.store.assign.Store.assign`.
    """

    assessors: Sequence[str] = ()
    leads: Sequence[str] = ()
    pool: str | None = None
    topics: Sequence[str] | None = None
    overlap: float = 0.0
    order: str = "docno"
    seed: int = 0
    gold: Path | None = None
    token: bool = False


def check(request: Staffing) -> None:
    """Raise :class:`OptionError` (a usage error) if the request cannot be carried out
    whatever the database holds: an unknown order, nobody named, or one name both an
    assessor and a lead (a lead settles what others judged)."""
    from relkit.judging.store.tables import ORDERS

    if request.order not in ORDERS:
        raise OptionError("--order", f"expected one of {', '.join(ORDERS)}; got "
                          f"{request.order!r}")
    if not request.assessors and not request.leads:
        raise OptionError("ASSESSORS", "name at least one assessor (or a lead with --lead "
                          "NAME)")
    clash = sorted(set(request.assessors) & set(request.leads))
    if clash:
        raise OptionError("--lead", f"{', '.join(clash)}: both an assessor and a lead; a "
                          "lead settles what others judged")


def read_gold(path: Path) -> dict[tuple[str, str], int]:
    """The gold pairs of a qrels file: (topic, document) -> grade.

    Raises
    ------
    FormatError
        A pair given twice, or no pair at all.
    """
    from relkit.judging.judgment_files import read_qrels_file
    from relkit.metrics.core.errors import FormatError

    pairs: dict[tuple[str, str], int] = {}
    for r in read_qrels_file(path):
        if (r.topic, r.doc) in pairs:
            raise FormatError(str(path), r.line, "each gold pair once",
                              f"topic {r.topic!r} document {r.doc!r} again")
        pairs[(r.topic, r.doc)] = r.grade
    if not pairs:
        raise FormatError(str(path), None, "gold pairs 'topic iteration doc grade'", "none")
    return pairs


def summary_line(s: AssignSummary) -> str:
    """What ``relkit assign`` says of the assignments made."""
    who = f"{s.assessors} assessor{'s' if s.assessors != 1 else ''}"
    if s.adaptive:
        return (f"relkit: {s.assignments} assignments, a quota of {s.items} judgments for "
                f"{who} (adaptive pool: each document is picked as they judge; "
                f"{s.overlap_pairs} pairs judged twice)")
    return (f"relkit: {s.assignments} assignments, {s.items} items for {who} "
            f"({s.overlap_pairs} pairs judged twice, {s.gold_items} gold items)")


def staff(request: Staffing, open_store: Callable[[], Store], say: Callable[[str], None],
          show_token: Callable[[str, str], None]) -> None:
    """Carry out ``request`` on the store ``open_store`` opens (after every check that
    needs no database).

    Assessors get their assignments, leads are registered, people without a login on
    a team database are named, and with ``request.token`` each person gets a new
    sign-in token (``show_token(name, secret)``, as it is issued: a secret is shown
    once; an earlier token of theirs is revoked, and ``say`` tells).

    Raises
    ------
    OptionError
        See :func:`check`.
    FormatError
        A bad gold file (:func:`read_gold`).
    StoreError
        An assessor who is a lead here, or a lead who is an assessor; nothing changed.
    """
    check(request)
    gold = read_gold(request.gold) if request.gold is not None else None
    store = open_store()
    assessors, leads = list(request.assessors), list(request.leads)
    leads_now = set(store.assessors(role="lead")) & set(assessors)
    if leads_now:
        from relkit.judging.store.models import StoreError

        raise StoreError(f"assign: {', '.join(sorted(leads_now))}: a lead here, who settles "
                         "what others judged, not an assessor (nothing was changed)")
    if leads:
        from relkit.judging.store.adjudication import check_leads_free

        check_leads_free(store, leads)  # before any change: all or nothing
    if assessors:
        say(summary_line(store.assign(
            assessors, pool=request.pool,
            topics=list(request.topics) if request.topics is not None else None,
            overlap=request.overlap, ordering=request.order,  # type: ignore[arg-type]
            seed=request.seed, gold=gold)))
    if leads:
        from relkit.judging.store.adjudication import register_leads

        new = register_leads(store, leads)
        say(f"relkit: leads registered: {', '.join(new) or 'none new'} (they settle "
            "disagreements with `relkit judge --lead NAME`)")
    from relkit.judging.store.access.identity import missing_logins

    need = missing_logins(store, [*assessors, *leads])
    if need:  # a team database (PostgreSQL): the database grants nothing to them yet
        say(f"relkit: run `relkit team init` to give {', '.join(need)} a login")
    if request.token:
        _issue_tokens(store, [*assessors, *leads], say, show_token)


def _issue_tokens(store: Store, names: list[str], say: Callable[[str], None],
                  show_token: Callable[[str, str], None]) -> None:
    from relkit.judging.store.tokens import issue_replacing

    for name in dict.fromkeys(names):
        secret, replaced = issue_replacing(store, name)
        show_token(name, secret)
        if replaced:
            say(f"relkit: {name}'s earlier sign-in token was revoked (it signs in no "
                "more; hand them the new one)")
    say("relkit: sign-in tokens printed above, shown only this once (relkit serve)")
