"""``relkit judges-run``'s work: check the options, grade a pool's pairs, store the grades.

:func:`run_judges` checks every option that needs no database first (a usage error
names the option), then opens the store, builds the backend (a chat-completions
endpoint, or the supervised judge trained on the humans' grades), grades the pairs
through the answers file (:func:`relkit.judging.autojudge.runner.grade_all`) and
imports the parsed grades as the automatic assessor's. It returns what happened
(:class:`Outcome`); :func:`report_lines` words it. The command prints; this module
never does (``say`` is the caller's, for the supervised judge's notes).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.autojudge.backend import Answer, Backend, Request
    from relkit.judging.autojudge.prompt import Template
    from relkit.judging.autojudge.runner import RunReport
    from relkit.judging.store.assign import Store
    from relkit.judging.store.imports import ImportSummary

BACKENDS = ("chat", "supervised")
SUPERVISED = "supervised"   # the supervised judge's assessor name unless --assessor
LISTED = 10  # unparsed answers named on stderr (all of them: --answers)


@dataclass(frozen=True, kw_only=True)
class JudgesRun:
    """What ``relkit judges-run`` was asked (its options, by their parameters' names)."""

    endpoint: str | None = None
    model: str | None = None
    pool: str | None = None
    assessor: str | None = None
    template: Path | None = None
    key_env: str = "OPENAI_API_KEY"
    cache: Path | None = None
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 5
    backoff: float = 1.0
    max_tokens: int | None = None
    price: str | None = None
    max_requests: int | None = None
    max_cost: float | None = None
    answers: Path | None = None
    backend: str = "chat"
    seed: int = 0


@dataclass(frozen=True)
class Outcome:
    """What a run did: the runner's report, the pairs asked for, the pool, the assessor
    the grades went to and the import (None: no new grade)."""

    report: RunReport
    total: int
    pool: str
    assessor: str
    imported: ImportSummary | None
    answers: Path | None

    @property
    def exit_code(self) -> int:
        """130 when interrupted, 1 when a pair got no answer, else 0."""
        if self.report.stopped == "interrupted":
            return 130
        return 1 if self.report.failed else 0


def parse_price(value: str | None) -> tuple[float, float] | None:
    """``--price IN,OUT`` (US dollars per million tokens in and out), both finite >= 0."""
    if value is None:
        return None
    import math

    parts = value.split(",")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        nums = []
    if len(nums) != 2 or not all(math.isfinite(x) and x >= 0 for x in nums):
        raise OptionError("--price", f"expected IN,OUT: US dollars per million tokens in "
                          f"and out, e.g. 0.15,0.60; got {value!r}")
    return nums[0], nums[1]


def default_cache(db: str | None) -> Path:
    """Beside a SQLite database file (``p.db`` -> ``p.answers.sqlite``); else here."""
    from relkit.judging.store.connection import resolve_url

    url = str(resolve_url(db))
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        return path.with_name(path.stem + ".answers.sqlite")
    return Path("relkit-answers.sqlite")


def _chat_options(endpoint: str | None, model: str | None) -> None:
    from relkit.judging.autojudge.chat import chat_url, shown_url

    if endpoint is None:
        raise OptionError("--endpoint", "needed by --backend chat (the default)")
    if model is None:
        raise OptionError("--model", "needed by --backend chat (the default)")
    try:
        chat_url(endpoint)
    except ValueError as exc:
        raise OptionError("--endpoint", f"{exc}; got {shown_url(endpoint)!r}") from None
    if not model.strip():
        raise OptionError("--model", "a model's name cannot be empty")


def check(r: JudgesRun) -> tuple[tuple[float, float] | None, Template | None]:
    """Raise :class:`OptionError` for an option ``r`` cannot take (before the database
    is opened); the prices and the chat backend's prompt template."""
    from relkit.judging.autojudge.prompt import Template

    if r.backend not in BACKENDS:
        raise OptionError("--backend", f"expected one of {', '.join(BACKENDS)}; got "
                          f"{r.backend!r}")
    if r.backend == "chat":
        _chat_options(r.endpoint, r.model)
    else:
        for given, hint in ((r.endpoint, "--endpoint"), (r.model, "--model"),
                            (r.template, "--template")):
            if given is not None:
                raise OptionError(hint, "only for --backend chat: the supervised judge "
                                  "asks no server")
    if r.assessor is not None and not r.assessor.strip():
        raise OptionError("--assessor", "an assessor's name cannot be empty")
    if not r.key_env.strip() or "=" in r.key_env:
        raise OptionError("--key-env", "expected the name of an environment variable")
    prices = parse_price(r.price)
    if r.max_cost is not None and prices is None:
        raise OptionError("--max-cost", "needs --price to estimate the cost")
    tpl = Template.read(r.template) if r.backend == "chat" else None
    from relkit.metrics.core.errors import check_outputs

    # (the cache is read too: an existing file passes; a directory or a missing one not)
    check_outputs((r.answers, "--answers"), (r.cache, "--cache"))
    return prices, tpl


def run_judges(r: JudgesRun, db: str | None, open_store: Callable[[], Store],
               say: Callable[[str], None]) -> Outcome:
    """Grade the pool's pairs as ``r`` asks and store the grades (see the module).

    Raises
    ------
    OptionError
        An option value it cannot take, or ``--assessor`` naming a human assessor.
    StoreError
        A pooled document with no text (nothing is sent), no pool.
    BackendError
        The backend failed for good (answers received before are kept in the cache).
    """
    from relkit.judging.autojudge.cache import AnswerCache
    from relkit.judging.autojudge.pairs import pool_requests, store_grades
    from relkit.judging.autojudge.runner import Price, grade_all
    from relkit.metrics.core.progress import Bar

    prices, tpl = check(r)
    name = r.assessor if r.assessor is not None else (r.model or SUPERVISED)
    store = open_store()
    try:
        if store.kinds().get(name, "automatic") != "automatic":
            raise OptionError("--assessor", f"{name} is a human assessor here: name the "
                              "automatic one otherwise")
        sc = store.scale()
        pool_name, requests = pool_requests(store, r.pool)
        backend, requests = _backend(r, store, sc, tpl, pool_name, requests, say)
        with AnswerCache(r.cache or default_cache(db)) as answer_cache, \
                Bar("judging", len(requests), "pairs") as bar:
            rep = grade_all(backend, requests, answer_cache, concurrency=r.concurrency,
                            max_requests=r.max_requests, max_cost=r.max_cost,
                            price=Price(*prices) if prices is not None else None,
                            progress=lambda done, total, label: bar(done, total, label))
        if rep.fatal is not None:
            from relkit.judging.autojudge.backend import BackendError

            raise BackendError(rep.fatal + (f"; {rep.requests:,} answers received before "
                                            "are kept in the answers file" if rep.requests
                                            else ""))
        if r.answers is not None:
            write_answers(r.answers, requests, rep.answers)
        done = store_grades(store, name, rep.answers)
    finally:
        store.close()
    return Outcome(rep, len(requests), pool_name, name, done, r.answers)


def _backend(r: JudgesRun, store: Store, sc: RelevanceScale, tpl: Template | None,
             pool_name: str,
             requests: list[Request], say: Callable[[str], None]
             ) -> tuple[Backend, list[Request]]:
    """The backend ``r`` names, and the requests it grades (the supervised judge skips
    the pairs it cannot grade)."""
    empty = [q for q in requests if not q.text.strip()]
    if empty:
        from relkit.judging.store.models import StoreError

        raise StoreError(f"{len(empty):,} pairs of pool {pool_name!r} have a document "
                         f"with no text in the database ({empty[0].doc!r}): a judge would "
                         "grade an empty passage; give the documents with the pool "
                         "(`relkit init --docs`, `relkit pool --docs`); nothing was sent")
    if tpl is not None and r.endpoint is not None and r.model is not None:
        from relkit.judging.autojudge.chat import ChatBackend

        return ChatBackend(r.endpoint, r.model, tpl,
                           [(g.value, g.label, g.definition) for g in sc.grades],
                           api_key=os.environ.get(r.key_env) or None, timeout=r.timeout,
                           retries=r.retries, backoff=r.backoff,
                           max_tokens=r.max_tokens), requests
    from relkit.judging.autojudge.offline import supervised_backend

    return supervised_backend(store, pool_name, requests, sc.threshold, r.seed, say)


def write_answers(path: Path, requests: list[Request],
                  got: dict[tuple[str, str], Answer]) -> None:
    """Every answer of ``requests`` as TSV: topic, doc, status, grade, tokens in and out,
    the raw answer as JSON."""
    import json

    from relkit.metrics.core.outfile import open_output

    with open_output(path, "--answers") as out:
        out.write("topic\tdoc\tstatus\tgrade\ttokens_in\ttokens_out\traw\n")
        for q in requests:
            a = got.get((q.topic, q.doc))
            if a is not None:
                grade = "" if a.grade is None else str(a.grade)
                out.write(f"{q.topic}\t{q.doc}\t{a.status}\t{grade}\t{a.tokens_in}\t"
                          f"{a.tokens_out}\t{json.dumps(a.raw, ensure_ascii=False)}\n")


def report_lines(o: Outcome) -> list[str]:
    """What ``relkit judges-run`` says of a run, a line each (stderr)."""
    rep = o.report
    cost = f", about ${rep.cost:.4f}" if rep.cost is not None else ""
    lines = [f"relkit: pool {o.pool!r}: {o.total:,} pairs; {rep.cached:,} answers from the "
             f"cache, {rep.requests:,} requests ({rep.tokens_in:,} tokens in, "
             f"{rep.tokens_out:,} out{cost})"]
    bad = sorted((p, a.status) for p, a in rep.answers.items() if a.status != "ok")
    if bad:
        shown = ", ".join(f"{t}/{d} ({st})" for (t, d), st in bad[:LISTED])
        more = (f" and {len(bad) - LISTED:,} more" if len(bad) > LISTED else "")
        where = (f" (all in {o.answers})" if o.answers is not None
                 else " (--answers FILE lists them all)")
        lines.append(f"relkit: {len(bad):,} answers gave no grade on the scale, not "
                     f"imported: {shown}{more}{where}")
    if rep.stopped is not None:
        why = "interrupted" if rep.stopped == "interrupted" else f"stopped at --{rep.stopped}"
        lines.append(f"relkit: {why}: {rep.left:,} pairs not asked yet (run again to go "
                     "on; stored answers are not asked again)")
    lines += [f"relkit: error: {why}" for _, why in rep.failed[:LISTED]]
    if len(rep.failed) > LISTED:
        lines.append(f"relkit: error: {len(rep.failed) - LISTED:,} more pairs got no answer")
    if o.imported is None:
        lines.append(f"relkit: {o.assessor}: no new grades to import")
    else:
        lines.append(f"relkit: {o.assessor} (automatic): imported {o.imported.judgments:,} "
                     f"grades ({o.imported.new:,} new, {o.imported.revised:,} revised)")
    return lines
