"""How long an HTML report runs on after its progress bar's last update.

Each command runs as a whole process with stderr on a pseudo-terminal (the bar draws
only on a terminal); the times of the first and the last bar draw and of the process's
end are taken from the reader's clock. Issue 35's target: end / last bar <= 1.5.

    .venv/bin/python bench/progress_bench.py --repeat 3

``compare --html`` runs on the shipped sample; ``agree --format html`` on Cranfield
(/work/shared/corpora/cranfield), two assessors made from its qrels as
tests/test_agreement_html.py makes them (the judged pairs and each run's top 10, binary,
10% of the grades flipped per assessor, seed 7), with its six runs.
"""

from __future__ import annotations

import argparse
import os
import pty
import random
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora" / "sample"
CRAN = ROOT.parent / "shared" / "corpora" / "cranfield"
BAR = re.compile("━".encode())  # the bar's line (stdout is not on the terminal)


def cranfield_assessors(tmp: Path) -> list[str]:
    """Two assessors' binary qrels over Cranfield's judged pairs and the runs' top 10."""
    rel = {}
    for line in (CRAN / "cranqrel").read_text().splitlines():
        p = line.split()
        if len(p) >= 3:
            rel[(p[0], p[1])] = int(int(p[2]) > 0)
    items = set(rel)
    for path in sorted((CRAN / "runs").glob("*/*.txt")):
        top: dict[str, list[tuple[float, str]]] = {}
        for line in path.read_text().splitlines():
            q, _, d, _, score, *_ = line.split()
            top.setdefault(q, []).append((-float(score), d))
        for q, docs in top.items():
            items.update((q, d) for _, d in sorted(docs, key=lambda x: x[0])[:10])
    rng = random.Random(7)
    out = []
    for name in ("ann", "bob"):
        lines = []
        for q, d in sorted(items):
            g = rel.get((q, d), 0)
            lines.append(f"{q} 0 {d} {1 - g if rng.random() < 0.1 else g}\n")
        (tmp / f"{name}.qrels").write_text("".join(lines))
        out.append(str(tmp / f"{name}.qrels"))
    return out


def timed(args: list[str]) -> tuple[float | None, float | None, float]:
    """(first bar draw, last bar draw, end) in seconds from the start, under a pty."""
    leader, follower = pty.openpty()
    t0 = time.monotonic()
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "relkit"), *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=follower, env={**os.environ, "COLUMNS": "200"})
    os.close(follower)
    first = last = None
    while True:
        ready, _, _ = select.select([leader], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            if BAR.search(chunk):
                last = time.monotonic() - t0
                first = first if first is not None else last
        elif proc.poll() is not None:
            break
    os.close(leader)
    proc.wait()
    return first, last, time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        jobs = {"compare --html (sample)":
                ["compare", "--html", str(t / "compare.html"), str(SAMPLE / "qrels.txt"),
                 *map(str, sorted((SAMPLE / "runs").glob("*.txt")))]}
        if CRAN.is_dir():
            jobs["agree --format html (Cranfield)"] = [
                "agree", *cranfield_assessors(t), "--scale", "binary", "--measure", "AP",
                "--format", "html", "-o", str(t / "agree.html"),
                "--runs", *map(str, sorted((CRAN / "runs").glob("*/*.txt")))]
        print(f"load average before: {os.getloadavg()}")
        print("| command | first bar s | last bar s | end s | end / last bar |")
        print("|---|---:|---:|---:|---:|")
        for name, args in jobs.items():
            runs = [timed(args) for _ in range(a.repeat)]
            med = [statistics.median(x for x in col if x is not None) if any(
                x is not None for x in col) else None for col in zip(*runs, strict=True)]
            first, last, end = med

            def fmt(x: float | None) -> str:
                return "-" if x is None else f"{x:.2f}"

            ratio = "no bar" if last is None else f"{end / last:.2f}"
            print(f"| {name} | {fmt(first)} | {fmt(last)} | {fmt(end)} | {ratio} |")
        print(f"load average after: {os.getloadavg()}")
    sys.exit(0)


if __name__ == "__main__":
    main()
