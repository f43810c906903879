"""The judging screen measured from outside, as the assessor feels it: under tmux.

    .venv/bin/python bench/tui_tmux_bench.py [--judgments 60] [--items 100000]
    .venv/bin/python bench/tui_tmux_bench.py --startup-only --before main --rounds 5

``relkit judge`` runs in a tmux pane (80x24); the script types a grade with
``tmux send-keys`` and polls ``tmux capture-pane`` until the next document's id is
on screen. The time includes tmux itself (two processes per poll, the pane's
terminal emulation), so the same loop drives two trivial full-screen programs as
peers: ``less`` paging a file (one key, next page) and a ten-line Textual app that
redraws a counter per key. What ``relkit judge`` adds over them is its own cost.
Start-up: a shell in the pane, ``relkit judge`` typed at its prompt, time to the
topic list; then Enter, time to the first document (100,000 items assigned): Enter
sent at once (the store, imported while the list is on screen, may not be open yet)
and ``--pause`` seconds later (as an assessor who reads the list). Each start-up runs
``--rounds`` times, taking turns with the tiny Textual app (the floor) and, with
``--before REV``, with relkit as of that git revision: before and after in one run.
A grade key is sent 0.3 s after a document appears: past the 200 ms on-screen
minimum, as a fast reader would.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_bench import build, pct  # noqa: E402

# Our own tmux server, one per run: nobody else's sessions are touched (two runs at once
# on one machine shared one server and killed each other's panes).
SOCKET = f"relkit-bench-{os.getpid()}"
ROOT = Path(__file__).resolve().parents[1]
RELKIT = str(Path(sys.executable).with_name("relkit"))
# The bench documents are titled "Title N": the heading of the document pane (found the
# same way in a checkout that does not show the document id).
DOC_ID = re.compile(r"\bTitle (\d+)\b")

TINY_APP = '''
from textual.app import App
from textual.widgets import Static
class Tiny(App):
    n = 0
    def compose(self):
        yield Static("count 0", id="c")
    def on_key(self, event):
        self.n += 1
        self.query_one("#c", Static).update(f"count {self.n}")
Tiny().run()
'''


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True,
                          text=True).stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", "bench")


def wait_for(test: Callable[[str], str | None], timeout: float = 30.0) -> tuple[float, str]:
    """Poll the pane until ``test`` finds something; (seconds waited, what it found)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        found = test(screen())
        if found:
            return time.perf_counter() - t0, found
    raise TimeoutError(f"not on screen after {timeout} s:\n{screen()}")


def start(command: str, env: dict[str, str] | None = None) -> None:
    stop()
    while _running():  # the old server is still going away
        time.sleep(0.05)
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    tmux("new-session", "-d", "-s", "bench", "-x", "80", "-y", "24",
         f"env {exports} {command}; sleep 60")


def _running() -> bool:
    return subprocess.run(["tmux", "-L", SOCKET, "has-session"],
                          capture_output=True).returncode == 0


def stop() -> None:
    if _running():
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


def keys_to_change(n: int, key: str, seen: Callable[[str], str | None],
                   think: float) -> list[float]:
    """ms from each key sent to the screen showing something new, ``n`` times."""
    _, last = wait_for(seen)
    out = []
    for _ in range(n):
        time.sleep(think)
        t0 = time.perf_counter()
        tmux("send-keys", "-t", "bench", key)
        while True:
            now = seen(screen())
            if now and now != last:
                break
            if time.perf_counter() - t0 > 10:
                raise TimeoutError(f"the screen did not change after {key!r}:\n{screen()}")
        out.append((time.perf_counter() - t0) * 1000)
        last = now
    return out


def bench_env() -> dict[str, str]:
    """The pane's environment: no user keymap or preferences, a 256-colour terminal."""
    return {"XDG_CONFIG_HOME": tempfile.mkdtemp(), "RELKIT_KEYMAP": "",
            "PATH": os.environ["PATH"], "TERM": "xterm-256color"}


def grade_under_tmux(relkit: str, db: str, assessor: str, n: int, think: float,
                     env: dict[str, str]) -> list[float]:
    """``relkit judge`` on ``db`` in an 80x24 tmux pane: ms from each grade key sent to
    the next document on screen, ``n`` times (shared with bench/serve_bench.py)."""
    start(f"{relkit} judge --db {shlex.quote(db)} --assessor {shlex.quote(assessor)}", env)
    wait_for(lambda s: "Enter opens a topic" in s and "ok")
    tmux("send-keys", "-t", "bench", "Enter")
    return keys_to_change(n, "1", doc_id, think)


def prompt(text: str) -> str | None:
    return "ok" if re.search(r"[$#] *$", text.rstrip("\n")) else None


def doc_id(text: str) -> str | None:
    m = DOC_ID.search(text)
    return m.group(1) if m else None


def first_line(text: str) -> str | None:
    return text.splitlines()[0] if text.strip() else None


def counter(text: str) -> str | None:
    m = re.search(r"count \d+", text)
    return m.group() if m else None


def row(name: str, xs: list[float], peer: list[float] | None = None) -> str:
    ratio = (f"{statistics.median(xs) / statistics.median(peer):.1f} / "
             f"{pct(xs, 95) / pct(peer, 95):.1f}") if peer else ""
    return (f"| {name} | {len(xs)} | {statistics.median(xs):.1f} | {pct(xs, 95):.1f} | "
            f"{max(xs):.1f} | {ratio} |")


def before_command(rev: str, tmp: str) -> str:
    """The command that runs relkit as of ``rev`` (its sources extracted under ``tmp``,
    imported ahead of this tree's editable install)."""
    from interleave_bench import previous_package

    env = previous_package(rev, Path(tmp) / "before")
    return f"env PYTHONPATH={shlex.quote(env['PYTHONPATH'])} {sys.executable} -m relkit"


def one_start(command: str, big: Path, env: dict[str, str], pause: float) -> tuple[float, float]:
    """(prompt → topic list, Enter → first document) for ``command judge`` typed at a
    shell's prompt; Enter is sent ``pause`` seconds after the list is on screen."""
    start("bash --norc --noprofile", env)
    wait_for(prompt)
    t0 = time.perf_counter()
    tmux("send-keys", "-t", "bench", f"{command} judge --db {big} --assessor ann", "Enter")
    wait_for(lambda s: "Enter opens a topic" in s and "ok")
    listed = time.perf_counter() - t0
    time.sleep(pause)
    t1 = time.perf_counter()
    tmux("send-keys", "-t", "bench", "Enter")
    wait_for(doc_id)
    return listed, time.perf_counter() - t1


def topic_start(command: str, big: Path, env: dict[str, str]) -> float:
    """Prompt → first document for ``command judge --topic 1`` (the topic opened at start,
    no list first: resuming)."""
    start("bash --norc --noprofile", env)
    wait_for(prompt)
    t0 = time.perf_counter()
    tmux("send-keys", "-t", "bench", f"{command} judge --db {big} --assessor ann --topic 1",
         "Enter")
    wait_for(doc_id)
    return time.perf_counter() - t0


def tiny_start(tiny: Path, env: dict[str, str]) -> float:
    start("bash --norc --noprofile", env)
    wait_for(prompt)
    t0 = time.perf_counter()
    tmux("send-keys", "-t", "bench", f"{sys.executable} {tiny}", "Enter")
    wait_for(counter)
    return time.perf_counter() - t0


def startup_table(commands: dict[str, str], big: Path, env: dict[str, str], tiny: Path,
                  rounds: int, pause: float, topic: frozenset[str] = frozenset()) -> None:
    """Start-up with 100,000 items: each command and the tiny Textual app in turn,
    ``rounds`` times; medians, with the load average at each start. The commands named
    in ``topic`` also start with ``--topic 1`` (a row of their own)."""
    times: dict[str, list[tuple[float, float, float]]] = {n: [] for n in commands}
    paused: dict[str, list[float]] = {n: [] for n in commands}
    topics: dict[str, list[float]] = {n: [] for n in commands if n in topic}
    tinies: list[float] = []
    loads: list[float] = []
    for _ in range(rounds):
        loads.append(os.getloadavg()[0])
        tinies.append(tiny_start(tiny, env))
        for name, command in commands.items():
            listed, opened = one_start(command, big, env, 0.0)
            times[name].append((listed, opened, listed + opened))
            paused[name].append(one_start(command, big, env, pause)[1])
            if name in topics:
                topics[name].append(topic_start(command, big, env))
    med = statistics.median
    print(f"start-up, {rounds} rounds taking turns (median; min-max); load average at the "
          f"rounds' starts: {', '.join(f'{x:.2f}' for x in loads)}\n")
    print(f"| program | prompt → topic list s | Enter at once → first document s | "
          f"prompt → first document s | Enter after {pause:g} s → first document s |\n"
          "|---|---|---|---|---|")

    def cell(xs: list[float]) -> str:
        return f"{med(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

    for name in commands:
        cols = list(zip(*times[name], strict=True))
        print(f"| {name} | {cell(list(cols[0]))} | {cell(list(cols[1]))} | "
              f"{cell(list(cols[2]))} | {cell(paused[name])} |")
    for name, xs in topics.items():
        print(f"| {name} --topic 1 (no list) | | | {cell(xs)} | |")
    print(f"| peer: the tiny Textual app, prompt → drawn | {cell(tinies)} | | | |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judgments", type=int, default=60)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--think", type=float, default=0.3, help="seconds between keys")
    ap.add_argument("--relkit", default=RELKIT, help="the command that runs relkit (to "
                    "measure another checkout: 'env PYTHONPATH=TREE python -m relkit')")
    ap.add_argument("--only-relkit", action="store_true", help="skip the peers")
    ap.add_argument("--startup-only", action="store_true",
                    help="only the start-up table (no grade keys)")
    ap.add_argument("--before", metavar="REV", help="also start relkit as of this git "
                    "revision, taking turns with this tree's (before/after in one run)")
    ap.add_argument("--rounds", type=int, default=5, help="start-ups of each program")
    ap.add_argument("--pause", type=float, default=1.0, help="seconds the assessor looks at "
                    "the topic list before Enter, in the second start-up row")
    args = ap.parse_args()
    relkit = args.relkit
    env = bench_env()
    n = args.judgments
    version = subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip()
    print(f"{version}, 80x24; load average {os.getloadavg()[0]:.2f}\n")
    print("| program: key → screen changed | keys | p50 ms | p95 ms | max ms "
          "| / tiny app p50 / p95 |\n|---|---|---|---|---|---|")
    tiny_times: list[float] | None = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pages = Path(tmp) / "pages.txt"
            pages.write_text("".join(f"page {p:05d}\n" + "text\n" * 22 for p in range(n + 5)))
            tiny = Path(tmp) / "tiny.py"
            tiny.write_text(TINY_APP)
            if not args.only_relkit and not args.startup_only:
                start(f"less -S {pages}", env)
                print(row("less (next page)", keys_to_change(n, "Space", first_line,
                                                             args.think)))
                start(f"{sys.executable} {tiny}", env)
                tiny_times = keys_to_change(n, "x", counter, args.think)
                print(row("tiny Textual app (counter)", tiny_times))
            for words in () if args.startup_only else (300, 3000):
                db = Path(tmp) / f"w{words}.db"
                build(db, n + 10, words).engine.dispose()
                grades = grade_under_tmux(relkit, str(db), "ann", n, args.think, env)
                print(row(f"relkit judge, grade → next document ({words} words)", grades,
                          tiny_times))
            big = Path(tmp) / "big.db"
            build(big, args.items, 40).engine.dispose()
            print()
            commands = {"relkit judge": relkit}
            if args.before:
                commands[f"relkit judge at {args.before}"] = before_command(args.before, tmp)
            startup_table(commands, big, env, tiny, args.rounds, args.pause,
                          topic=frozenset({"relkit judge"}))
            print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
