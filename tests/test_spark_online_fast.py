"""Fast checks of the Spark online engine that need no Spark: start-up hygiene (the
CLI imports PySpark only with ``--engine spark``) and defects of the shared downstream
code found while testing it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ab_helpers import click_log, write
from helpers import run_cli


def test_one_user_arm_is_nan_not_a_crash(tmp_path: Path) -> None:
    # An arm with a single unit has no variance: its rows are NaN (JSON null), and
    # the other arms are analysed as usual. It used to raise ZeroDivisionError in
    # welch_df (a traceback from relkit ab analyze).
    log, assign = click_log(40, 2, queries=2)
    assign.loc[assign["unit_id"] == "u00003", "variant"] = "solo"
    log.loc[log["user_id"] == "u00003", "variant"] = "solo"
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab analyze {lp} --assign {ap} -m ctr@1 -m "
                             "time_to_first_click --ignore-srm --format json")
    assert code == 0, err
    rows = {(r["metric"], r["arm"]): r for r in json.loads(out)}
    assert rows[("ctr@1", "solo")]["n_treatment"] == 1
    assert rows[("ctr@1", "solo")]["p"] is None
    assert rows[("ctr@1", "treatment")]["p"] is not None


def test_cli_does_not_import_pyspark_without_engine_spark(tmp_path: Path) -> None:
    log, assign = click_log(30, 1, queries=2)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code = (
        "import sys\n"
        "from relkit.judging.cli import main\n"
        f"rc = main(['ab', 'analyze', {str(lp)!r}, '--assign', {str(ap)!r}, '--ignore-srm'])\n"
        f"rc2 = main(['clicks', 'fit', {str(lp)!r}, '-o', {str(tmp_path / 'm.json')!r}, "
        "'--model', 'pbm', '--iterations', '2'])\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')]\n"
        "print(rc, rc2, bad)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert res.stdout.strip().splitlines()[-1] == "0 0 []", res.stderr


def test_bad_engine_is_an_option_error(tmp_path: Path) -> None:
    log, assign = click_log(10, 1, queries=2)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab analyze {lp} --assign {ap} --engine dask")
    assert code == 2 and "--engine" in err and out == ""
    code, out, err = run_cli(f"clicks fit {lp} -o {tmp_path / 'm.json'} --engine dask")
    assert code == 2 and "--engine" in err and out == ""
    code, out, err = run_cli(f"clicks fit {lp} -o {tmp_path / 'm.json'} "
                             "--spark-master local[1]")
    assert code == 2 and "--spark-master" in err
