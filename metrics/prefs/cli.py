"""``relkit prefs ...``: convert an answers file to trec_eval's preference formats, and
report what the answers say (Bradley–Terry scores, agreement, intransitive triples).

Registered in ``judging/cli.py`` as the ``prefs`` sub-app. numpy and the model are
imported inside the commands: ``relkit prefs --help`` loads neither.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.metrics.commands.numopt import Num

if TYPE_CHECKING:
    from collections.abc import Iterator

    from relkit.metrics.prefs.answers import Answer

app = typer.Typer(help="Preference answers: convert them to trec_eval's formats or graded "
                       "qrels, report scores, agreement and cycles.",
                  no_args_is_help=True, add_completion=False,
                  epilog="Example: relkit prefs convert answers.tsv --to prefs -o prefs.txt")

FORMATS = ("prefs", "qrels_prefs", "qrels")
ANSWERS_HELP = ("The answers file: TSV, header topic_id, left, right, answer, assessor "
                "(answer: left, right, equal or neither); relkit export prefs DB --answers")
KNOWN_HELP = ("Refuse topics and documents outside these qrels (qid iter docno rel: the "
              "collection's, or the pool's judged pairs)")


def _known(path: Path | None) -> dict[str, set[str]] | None:
    if path is None:
        return None
    from relkit.metrics.data import read_qrels

    t = read_qrels(path).arrow()
    known: dict[str, set[str]] = {}
    for q, d in zip(t["query_id"].to_pylist(), t["doc_id"].to_pylist(), strict=True):
        known.setdefault(str(q), set()).add(str(d))
    if not known:
        from relkit.metrics.core.errors import FormatError

        raise FormatError(str(path), None, "qrels lines (qid iter docno rel)", "none")
    return known


@contextmanager
def _naming(path: Path | str) -> Iterator[None]:
    """An error about the answers read from ``path`` names the file, as typed (the
    library's messages give the line, or the topic and assessor, but not the file)."""
    from relkit.metrics.core.errors import FormatError, RelkitError

    try:
        yield
    except FormatError:
        raise
    except RelkitError as exc:
        raise RelkitError(f"{path}: {exc}") from None


def _read(answers: Path, known: Path | None) -> list[Answer]:
    from relkit.metrics.prefs.answers import read_answers

    return read_answers(answers, known=_known(known))


def _warn_cycles(name: str, answers: list[Answer]) -> None:
    from relkit.metrics.prefs.summary import intransitive_triples

    for who, triples in intransitive_triples(answers).items():
        if triples:
            t = triples[0]
            sys.stderr.write(f"relkit: warning: {name}: assessor {who!r} has {len(triples)} "
                             f"intransitive triple(s), first topic {t[0]!r}: {t[1]}, {t[2]}, "
                             f"{t[3]} (relkit prefs report lists them)\n")


def render(got: list[Answer], to: str, levels: int, name: str) -> str:
    """The answers in format ``to`` (one of :data:`FORMATS`); an assessor's intransitive
    triples are warned about on stderr, ``name`` saying where the answers came from."""
    from relkit.metrics.prefs import export

    with _naming(name):
        text = (export.to_prefs(got) if to == "prefs" else export.to_qrels_prefs(got)
                if to == "qrels_prefs" else export.to_qrels(got, levels))
    if to != "qrels_prefs":
        _warn_cycles(name, got)
    return text


@app.command(epilog="Example: relkit prefs convert answers.tsv --to qrels --levels 3")
def convert(
    answers: Path = typer.Argument(..., help=ANSWERS_HELP),
    to: str = typer.Option("prefs", "--to", help="prefs, qrels_prefs or qrels (graded, "
                           "from Bradley-Terry scores)"),
    output: Path | None = typer.Option(None, "--output", "-o",
                                       help="Write here (default: stdout)"),
    levels: int = Num(3, "--levels", within="x >= 1", help="qrels: grades above 0 (bins "
                      "of the Bradley-Terry scores)"),
    known: Path | None = typer.Option(None, "--known", help=KNOWN_HELP),
) -> None:
    """Convert an answers file to trec_eval's prefs or qrels_prefs format, or graded qrels.

    prefs: one judgment group per assessor, one sub-group per answer. qrels_prefs: one
    ranking per assessor (levels by longest chain of answers; a cycle is refused). qrels:
    Bradley-Terry scores per topic cut into --levels grades, 0 for documents only ever
    called not relevant. docs/preferences.md states the rules. Evaluate the output with
    relkit eval -R prefs (or -R qrels_prefs, or as plain qrels). An assessor's
    intransitive triples are reported as a warning on stderr.
    """
    from relkit.metrics.core.errors import check_output, open_error
    from relkit.metrics.core.options import OptionError

    if to not in FORMATS:
        raise OptionError("'--to'", f"{to!r} is not one of {', '.join(FORMATS)}")
    if output is not None:
        check_output(output, "--output")        # before the work
    got = _read(answers, known)
    text = render(got, to, levels, str(answers))
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text)
        except OSError as exc:
            raise open_error(output, exc) from None


@app.command(epilog="Example: relkit prefs report answers.tsv")
def report(
    answers: Path = typer.Argument(..., help=ANSWERS_HELP),
    known: Path | None = typer.Option(None, "--known", help=KNOWN_HELP),
) -> None:
    """Bradley-Terry scores with standard errors per topic, agreement between assessors,
    and intransitive triples per assessor.

    Scores are Davidson's Bradley-Terry with ties (log-strength theta, mean 0 per topic);
    "prior" marks a topic whose maximum likelihood estimate does not exist (a document
    that never wins or never loses, a disconnected comparison graph), fitted with a weak
    Gaussian prior instead.
    """
    from relkit.metrics.prefs.answers import by_topic
    from relkit.metrics.prefs.bt import fit_bt
    from relkit.metrics.prefs.summary import agreement, intransitive_triples

    got = _read(answers, known)
    out = sys.stdout
    out.write("topic\tdoc\ttheta\tse\tnu\tfit\n")
    for topic, group in by_topic(got).items():
        with _naming(answers):
            fit = fit_bt(group)
        se = dict(zip(fit.docs, fit.se.tolist(), strict=True))
        theta = fit.scores()
        for d in fit.ranking():
            out.write(f"{topic}\t{d}\t{theta[d]:.4f}\t{se[d]:.4f}\t{fit.nu:.4f}\t"
                      f"{'mle' if fit.mle else 'prior'}\n")
    agree = agreement(got)
    triples = intransitive_triples(got)
    out.write("\nassessor\tshared_pairs\tagreement\tintransitive_triples\n")
    for who in sorted(agree.overall):
        n, _ = agree.overall[who]
        share = agree.share(who)
        out.write(f"{who}\t{n}\t{'-' if share is None else f'{share:.4f}'}\t"
                  f"{len(triples.get(who, []))}\n")
    if agree.pairs:
        out.write("\nassessor_a\tassessor_b\tshared_pairs\tagreement\n")
        for (a, b), (n, _) in agree.pairs.items():
            share = agree.share(a, b)
            out.write(f"{a}\t{b}\t{n}\t{'-' if share is None else f'{share:.4f}'}\n")
    cyc = [(who, t) for who in sorted(triples) for t in triples[who]]
    if cyc:
        out.write("\nassessor\ttopic\tintransitive_triple\n")
        for who, (topic, a, b, c) in cyc:
            out.write(f"{who}\t{topic}\t{a} {b} {c}\n")
