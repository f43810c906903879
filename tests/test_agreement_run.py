"""``relkit agree``'s library functions: the command's report, raised errors, no printing."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from relkit.judging.agreement.frame import AgreementError
from relkit.metrics.core.options import OptionError


def _files(tmp: Path) -> list[Path]:
    (tmp / "alice.qrels").write_text("1 0 d1 2\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 2\n")
    (tmp / "bob.qrels").write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 3\n2 0 d4 0\n2 0 d5 2\n")
    (tmp / "carol.qrels").write_text("1 0 d1 3\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 1\n")
    return [tmp / n for n in ("alice.qrels", "bob.qrels", "carol.qrels")]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_agree_returns_the_commands_report(tmp_path: Path, fmt: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from relkit.judging.agreement.run import AgreeOptions, agree

    files = _files(tmp_path)
    notes: list[str] = []
    rep = agree(files, options=AgreeOptions(replicates=20, fmt=fmt), notify=notes.append)
    assert capsys.readouterr() == ("", "")           # the library prints nothing
    assert list(rep.analysis.assessors) == ["alice", "bob", "carol"]
    code, out, err = run_cli(["agree", *map(str, files), "--replicates", "20",
                              "--format", fmt])
    assert code == 0 and rep.text == out
    assert err == "".join(f"relkit: {n}\n" for n in notes)
    assert notes[0].startswith("scale inferred from the grades seen: [0, 1, 2, 3]")


def test_agree_raises_what_the_command_prints(tmp_path: Path) -> None:
    from relkit.judging.agreement.run import AgreeOptions, agree

    files = _files(tmp_path)
    with pytest.raises(OptionError, match="Invalid value for --repeats: expected one of"):
        agree(files, options=AgreeOptions(repeats="sometimes"))
    with pytest.raises(OptionError, match="Invalid value for --interval"):
        agree(files, options=AgreeOptions(interval="z"))
    with pytest.raises(AgreementError, match="two or more assessors; found alice"):
        agree(files[:1], options=AgreeOptions(replicates=0))
    with pytest.raises(AgreementError, match="--threshold 9 is not a grade"):
        agree(files, options=AgreeOptions(threshold=9, scale="trec-dl", replicates=0))


def test_agree_workers_returns_the_per_worker_report(tmp_path: Path) -> None:
    from relkit.judging.agreement.run import agree_workers

    labels = tmp_path / "crowd.tsv"
    labels.write_text("assessor\ttopic\tdoc\tgrade\n" + "".join(
        f"w{w}\t1\td{i}\t{(i * (w + 1)) % 2}\n" for w in range(4) for i in range(8)))
    notes: list[str] = []
    text = agree_workers([labels], method="majority", notify=notes.append)
    code, out, err = run_cli(["agree", "--workers", str(labels), "--method", "majority"])
    assert code == 0 and text == out
    assert err == "".join(f"relkit: {n}\n" for n in notes)
    with pytest.raises(OptionError, match="Invalid value for --method: unknown aggregation"):
        agree_workers([labels], method="nope")


@pytest.mark.parametrize(("option", "value", "why"), [
    ("interval", "x", "expected one of normal, t; got 'x'"),
    ("replicates", -1, "must be >= 0; got -1"),
    ("repeats", "twice", "expected one of error, first, last, majority; got 'twice'"),
])
def test_the_front_door_checks_options_as_the_command_does(
        tmp_path: Path, option: str, value: object, why: str) -> None:
    """``relkit.agree`` takes the values ``relkit agree`` takes (one check for both),
    naming the keyword as typed; before, ``interval='x'`` gave normal intervals."""
    import re

    import relkit
    from relkit.judging.agreement.run import AgreeOptions, agree

    files = _files(tmp_path)
    with pytest.raises(AgreementError, match=f"^Invalid value for {option}: "
                                             f"{re.escape(why)}$"):
        relkit.agree(files, **{"replicates": 0, option: value})  # type: ignore[arg-type]
    with pytest.raises(OptionError, match=f"^Invalid value for --{option}: "
                                          f"{re.escape(why)}$"):
        agree(files, options=AgreeOptions(**{option: value}))  # type: ignore[arg-type]
