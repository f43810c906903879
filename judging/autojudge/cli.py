"""``relkit judges-run``: grade a pool's pairs with a chat model, as an automatic assessor.

Its own command beside ``relkit judges`` (which compares judges with the humans): that
command takes judges' files as its arguments, so a ``run`` under it would read as a file
named ``run``; as a group its usage and errors would change. The work is
:func:`relkit.judging.autojudge.job.run_judges`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.judging.cliopts import DB_HELP
from relkit.metrics.commands.numopt import COUNT, SEED, Num

app = typer.Typer(no_args_is_help=False)

KEY_ENV = "OPENAI_API_KEY"


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


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
    from relkit.judging.autojudge.job import JudgesRun, report_lines, run_judges
    from relkit.judging.owner import owner_store

    outcome = run_judges(JudgesRun(
        endpoint=endpoint, model=model, pool=pool, assessor=assessor, template=template,
        key_env=key_env, cache=cache, concurrency=concurrency, timeout=timeout,
        retries=retries, backoff=backoff, max_tokens=max_tokens, price=price,
        max_requests=max_requests, max_cost=max_cost, answers=answers, backend=backend_name,
        seed=seed), db, open_store=lambda: owner_store(db, "judges-run"), say=_say)
    for line in report_lines(outcome):
        _say(line)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)
