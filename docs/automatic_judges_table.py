"""Write the LLMJudge table of docs/automatic-judges.md with `relkit judges`.

    .venv/bin/python docs/automatic_judges_table.py            # prints the markdown table
    .venv/bin/python docs/automatic_judges_table.py --check    # exit 1 if the doc is stale

The data are ../shared/corpora/llmjudge-dl23 (TREC DL 2023 NIST grades and 33
automatic judges on the same 4,423 pairs; see its README). There are no runs in
that set, so the table has no tau / tau_AP columns (docs/automatic-judges.md says
why). The numbers come from `relkit judges --format json` run as a user would run
it; tests/test_judges.py checks some of them against scikit-learn and krippendorff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "corpora" / "llmjudge-dl23"
if not DATA.is_dir():
    DATA = Path("/work/shared/corpora/llmjudge-dl23")
DOC = ROOT / "docs" / "automatic-judges.md"
BEGIN, END = "<!-- table: begin (docs/automatic_judges_table.py) -->", "<!-- table: end -->"


def command() -> list[str]:
    judges = sorted((DATA / "llm-judgments").glob("*.txt"))
    return [sys.executable, "-m", "relkit.judging.cli", "judges", *map(str, judges),
            "--qrels", str(DATA / "llmjudge_test_qrel_idx.txt"), "--scale", "trec-dl",
            "--off-scale", "drop", "--format", "json"]


def report() -> dict[str, object]:
    done = subprocess.run(command(), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def table(rep: dict[str, object]) -> str:
    rows = sorted(rep["judges"], key=lambda j: -j["kappa"])  # type: ignore[arg-type, index]
    out = ["| judge | pairs | κ | κ linear | κ quadratic | κ binary (≥2) | α ordinal | "
           "α interval | shift |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for j in rows:
        out.append(f"| {j['judge']} | {j['items']:,} | {_f(j['kappa'])} | "
                   f"{_f(j['kappa_linear'])} | {_f(j['kappa_quadratic'])} | "
                   f"{_f(j['kappa_binary'])} | {_f(j['alpha_ordinal'])} | "
                   f"{_f(j['alpha_interval'])} | {j['shift']:+.3f} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = table(report())
    if "--check" not in argv:
        print(text)
        return 0
    doc = DOC.read_text(encoding="utf-8")
    current = doc.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    if current != text:
        print(f"{DOC} is stale: run python docs/automatic_judges_table.py and paste the "
              "table between the markers", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
