"""Write the Cranfield table and plot of docs/interleaving.md with `relkit interleave simulate`.

    .venv/bin/python docs/interleaving_cranfield.py            # table into the doc, SVG
    .venv/bin/python docs/interleaving_cranfield.py --print    # only print the table

The data are ../shared/corpora/cranfield (six real Lucene runs, 50 deep, and the graded
qrels; see its README). Cranfield's grade codes run the other way (1 = most relevant):
they are mapped with relkit.corpora.known.CRANFIELD_GRADES (docs/collections.md) into a
temporary TREC qrels file first, then the command runs as a user would run it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "corpora" / "cranfield"
if not DATA.is_dir():
    DATA = Path("/work/shared/corpora/cranfield")
DOC = ROOT / "docs" / "interleaving.md"
SVG = ROOT / "docs" / "interleaving-cranfield.svg"
BEGIN = "<!-- table: begin (docs/interleaving_cranfield.py) -->"
END = "<!-- table: end -->"
OPTIONS = ["--preset", "navigational", "--impressions", "10,20,50,100,200,500,1000,2000",
           "--trials", "100", "--seed", "0", "--format", "markdown"]


def mapped_qrels(folder: Path) -> Path:
    from relkit.corpora.known import CRANFIELD_GRADES

    out = folder / "cranfield.qrels"
    rows = [line.split() for line in (DATA / "cranqrel").read_text().splitlines()]
    out.write_text("".join(f"{q} 0 {d} {CRANFIELD_GRADES[int(g)]}\n"
                           for q, d, g in (r[:3] for r in rows if len(r) >= 3)))
    return out


def command(qrels: Path, plot: Path | None) -> list[str]:
    runs = sorted((DATA / "runs").glob("*/*.txt"))
    cmd = [sys.executable, "-m", "relkit.judging.cli", "interleave", "simulate",
           *map(str, runs), "--qrels", str(qrels), *OPTIONS]
    return cmd + (["--plot", str(plot)] if plot is not None else [])


def main() -> None:
    only_print = "--print" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        cmd = command(mapped_qrels(Path(tmp)), None if only_print else SVG)
        table = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    if only_print:
        sys.stdout.write(table)
        return
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{BEGIN}\n{table}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
