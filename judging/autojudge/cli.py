"""``relkit judges-run``: grade a pool's pairs with a chat model, as an automatic assessor.

Its own command beside ``relkit judges`` (which compares judges with the humans): that
command takes judges' files as its arguments, so a ``run`` under it would read as a file
named ``run``; as a group its usage and errors would change.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.judging.cliopts import DB_HELP
from relkit.metrics.commands.numopt import COUNT, SEED, Num

if TYPE_CHECKING:
    from relkit.judging.autojudge.backend import Answer, Backend, Request
    from relkit.judging.autojudge.runner import RunReport
    from relkit.judging.store.imports import ImportSummary

app = typer.Typer(no_args_is_help=False)

KEY_ENV = "OPENAI_API_KEY"
BACKENDS = ("chat", "supervised")
SUPERVISED = "supervised"   # the supervised judge's assessor name unless --assessor
LISTED = 10  # unparsed answers named on stderr (all of them: --answers)


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


def _price(value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    import math

    parts = value.split(",")
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        nums = []
    if len(nums) != 2 or not all(math.isfinite(x) and x >= 0 for x in nums):
        raise typer.BadParameter(f"expected IN,OUT: US dollars per million tokens in and "
                                 f"out, e.g. 0.15,0.60; got {value!r}", param_hint="--price")
    return nums[0], nums[1]


def _default_cache(db: str | None) -> Path:
    """Beside a SQLite database file (``p.db`` -> ``p.answers.sqlite``); else here."""
    from relkit.judging.store.connection import resolve_url

    url = str(resolve_url(db))
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        return path.with_name(path.stem + ".answers.sqlite")
    return Path("relkit-answers.sqlite")


@app.command("judges-run")
def judges_run(
    endpoint: str | None = typer.Option(None, "--endpoint", help="An OpenAI-compatible "
                                        "API's base URL (http://localhost:8000/v1) or its "
                                        "/chat/completions URL (needed by --backend chat)"),
    model: str | None = typer.Option(None, "--model", help="The model's name at the "
                                     "endpoint (needed by --backend chat)"),
    db: str | None = typer.Option(None, "--db", envvar="RELKIT_DB", help=DB_HELP),
    pool: str | None = typer.Option(None, "--pool", help="The pool whose pairs are graded "
                                    "(default: the latest)"),
    assessor: str | None = typer.Option(None, "--assessor", help="The automatic assessor "
                                        "the grades are stored as (default: the model's name)"),
    template: Path | None = typer.Option(None, "--template", help="A prompt template file "
                                         "(str.format fields; see docs/automatic-judges.md; "
                                         "default: relkit's UMBRELA-structured prompt)"),
    key_env: str = typer.Option(KEY_ENV, "--key-env", help="The environment variable holding "
                                "the API key (unset or empty: no key is sent)"),
    cache: Path | None = typer.Option(None, "--cache", help="The answers file, written as "
                                      "each answer arrives (default: beside a SQLite "
                                      "database, DB.answers.sqlite; else "
                                      "./relkit-answers.sqlite)"),
    concurrency: int = Num(4, "--concurrency", within="1 <= x <= 256",
                           help="Requests in flight at once"),
    timeout: float = Num(60.0, "--timeout", within="0 < x <= 3600",
                         help="Seconds to wait for the endpoint in any one request"),
    retries: int = Num(5, "--retries", within="0 <= x <= 100", help="Attempts after the "
                       "first on HTTP 429/5xx, a timeout or a dropped connection"),
    backoff: float = Num(1.0, "--backoff", within="0 <= x <= 60", help="First wait in "
                         "seconds between attempts, doubled each time (a Retry-After header "
                         "wins)"),
    max_tokens: int | None = Num(None, "--max-tokens", within=COUNT, help="Longest answer "
                                 "asked for, in tokens (default: the endpoint's)"),
    price: str | None = typer.Option(None, "--price", help="IN,OUT: US dollars per million "
                                     "tokens in and out, to estimate the cost"),
    max_requests: int | None = Num(None, "--max-requests", within=COUNT, help="Ask for at "
                                   "most this many answers, then stop cleanly (an attempt "
                                   "repeated after a 429/5xx/timeout counts once)"),
    max_cost: float | None = Num(None, "--max-cost", within="x > 0", help="Send no request "
                                 "once the estimated cost (US dollars, needs --price) is "
                                 "reached; those in flight finish"),
    answers: Path | None = typer.Option(None, "--answers", help="Write every answer (TSV: "
                                        "topic, doc, status, grade, tokens_in, tokens_out, "
                                        "raw as JSON) to this file"),
    backend_name: str = typer.Option("chat", "--backend", help="chat: a chat-completions "
                                     "endpoint; supervised: an offline classifier trained "
                                     "on the project's human judgments (no server)"),
    seed: int = Num(0, "--seed", within=SEED, help="--backend supervised: the seed of its "
                    "folds and negative samples"),
) -> None:
    """Grade a pool's pairs with a chat model and store them as an automatic assessor.

    Asks any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
    Ollama, a hosted API) to grade each pooled pair, stores each answer as it arrives
    (re-runs and resumes ask only for what is missing), then imports the parsed grades
    as an automatic assessor's judgments (compare them with `relkit judges --db`).
    Answers that do not parse are counted and listed, never guessed. The API key is
    read from the environment variable --key-env names, never from the command line.

    Example: relkit judges-run --endpoint http://localhost:8000/v1 --model qwen2.5-7b

    Example: relkit judges-run --endpoint URL --model NAME --price 0.15,0.60 --max-cost 5

    Example: relkit judges-run --db project.db --backend supervised
    """
    from relkit.judging.autojudge.prompt import Template

    if backend_name not in BACKENDS:
        raise typer.BadParameter(f"expected one of {', '.join(BACKENDS)}; got "
                                 f"{backend_name!r}", param_hint="--backend")
    if backend_name == "chat":
        endpoint, model = _chat_options(endpoint, model)
    else:
        for given, hint in ((endpoint, "--endpoint"), (model, "--model"),
                            (template, "--template")):
            if given is not None:
                raise typer.BadParameter("only for --backend chat: the supervised judge "
                                         "asks no server", param_hint=hint)
    if assessor is not None and not assessor.strip():
        raise typer.BadParameter("an assessor's name cannot be empty", param_hint="--assessor")
    if not key_env.strip() or "=" in key_env:
        raise typer.BadParameter("expected the name of an environment variable",
                                 param_hint="--key-env")
    prices = _price(price)
    if max_cost is not None and prices is None:
        raise typer.BadParameter("needs --price to estimate the cost", param_hint="--max-cost")
    tpl = Template.read(template) if backend_name == "chat" else None
    if answers is not None:
        from relkit.metrics.core.errors import check_output

        check_output(answers, "--answers")
    from relkit.judging.autojudge.cache import AnswerCache
    from relkit.judging.autojudge.pairs import pool_requests, store_grades
    from relkit.judging.autojudge.runner import Price, grade_all
    from relkit.judging.owner import owner_store
    from relkit.metrics.core.progress import Bar

    name = assessor if assessor is not None else (model or SUPERVISED)
    store = owner_store(db, "judges-run")
    try:
        kinds = store.kinds()
        if kinds.get(name, "automatic") != "automatic":
            raise typer.BadParameter(f"{name} is a human assessor here: name the automatic "
                                     "one otherwise", param_hint="--assessor")
        sc = store.scale()
        pool_name, requests = pool_requests(store, pool)
        empty = [r for r in requests if not r.text.strip()]
        if empty:
            from relkit.judging.store.models import StoreError

            raise StoreError(f"{len(empty):,} pairs of pool {pool_name!r} have a document "
                             f"with no text in the database ({empty[0].doc!r}): a judge would "
                             "grade an empty passage; give the documents with the pool "
                             "(`relkit init --docs`, `relkit pool --docs`); nothing was sent")
        backend: Backend
        if tpl is not None and endpoint is not None and model is not None:
            from relkit.judging.autojudge.chat import ChatBackend

            backend = ChatBackend(endpoint, model, tpl,
                                  [(g.value, g.label, g.definition) for g in sc.grades],
                                  api_key=os.environ.get(key_env) or None, timeout=timeout,
                                  retries=retries, backoff=backoff, max_tokens=max_tokens)
        else:
            from relkit.judging.autojudge.offline import supervised_backend

            backend, requests = supervised_backend(store, pool_name, requests, sc.threshold,
                                                   seed, _say)
        with AnswerCache(cache or _default_cache(db)) as answer_cache, \
                Bar("judging", len(requests), "pairs") as bar:
            rep = grade_all(backend, requests, answer_cache, concurrency=concurrency,
                            max_requests=max_requests, max_cost=max_cost,
                            price=Price(*prices) if prices is not None else None,
                            progress=lambda done, total, label: bar(done, total, label))
        if rep.fatal is not None:
            from relkit.judging.autojudge.backend import BackendError

            raise BackendError(rep.fatal + (f"; {rep.requests:,} answers received before "
                                            "are kept in the answers file" if rep.requests
                                            else ""))
        if answers is not None:
            _write_answers(answers, requests, rep.answers)
        done = store_grades(store, name, rep.answers)
    finally:
        store.close()
    _report(rep, len(requests), pool_name, name, done, answers)
    if rep.stopped == "interrupted":
        raise typer.Exit(130)
    if rep.failed:
        raise typer.Exit(1)


def _chat_options(endpoint: str | None, model: str | None) -> tuple[str, str]:
    from relkit.judging.autojudge.chat import chat_url, shown_url

    if endpoint is None:
        raise typer.BadParameter("needed by --backend chat (the default)",
                                 param_hint="--endpoint")
    if model is None:
        raise typer.BadParameter("needed by --backend chat (the default)",
                                 param_hint="--model")
    try:
        chat_url(endpoint)
    except ValueError as exc:
        raise typer.BadParameter(f"{exc}; got {shown_url(endpoint)!r}",
                                 param_hint="--endpoint") from None
    if not model.strip():
        raise typer.BadParameter("a model's name cannot be empty", param_hint="--model")
    return endpoint, model


def _write_answers(path: Path, requests: list[Request],
                   got: dict[tuple[str, str], Answer]) -> None:
    import json

    from relkit.judging.cliopts import open_output

    with open_output(path, "--answers") as out:
        out.write("topic\tdoc\tstatus\tgrade\ttokens_in\ttokens_out\traw\n")
        for r in requests:
            a = got.get((r.topic, r.doc))
            if a is not None:
                grade = "" if a.grade is None else str(a.grade)
                out.write(f"{r.topic}\t{r.doc}\t{a.status}\t{grade}\t{a.tokens_in}\t"
                          f"{a.tokens_out}\t{json.dumps(a.raw, ensure_ascii=False)}\n")


def _report(rep: RunReport, total: int, pool: str, name: str, done: ImportSummary | None,
            answers: Path | None) -> None:
    cost = f", about ${rep.cost:.4f}" if rep.cost is not None else ""
    _say(f"relkit: pool {pool!r}: {total:,} pairs; {rep.cached:,} answers from the cache, "
         f"{rep.requests:,} requests ({rep.tokens_in:,} tokens in, {rep.tokens_out:,} out"
         f"{cost})")
    bad = sorted((p, a.status) for p, a in rep.answers.items() if a.status != "ok")
    if bad:
        shown = ", ".join(f"{t}/{d} ({st})" for (t, d), st in bad[:LISTED])
        more = (f" and {len(bad) - LISTED:,} more" if len(bad) > LISTED else "")
        where = (f" (all in {answers})" if answers is not None
                 else " (--answers FILE lists them all)")
        _say(f"relkit: {len(bad):,} answers gave no grade on the scale, not imported: "
             f"{shown}{more}{where}")
    if rep.stopped is not None:
        why = "interrupted" if rep.stopped == "interrupted" else f"stopped at --{rep.stopped}"
        _say(f"relkit: {why}: {rep.left:,} pairs not asked yet (run again to go on; stored "
             "answers are not asked again)")
    for _, why in rep.failed[:LISTED]:
        _say(f"relkit: error: {why}")
    if len(rep.failed) > LISTED:
        _say(f"relkit: error: {len(rep.failed) - LISTED:,} more pairs got no answer")
    if done is None:
        _say(f"relkit: {name}: no new grades to import")
    else:
        _say(f"relkit: {name} (automatic): imported {done.judgments:,} grades "
             f"({done.new:,} new, {done.revised:,} revised)")
