"""`relkit judge` in a real terminal emulator that paints: xterm on an X server.

    .venv/bin/python bench/xterm_peer.py [--judgments 60]

The peer of the browser figure that includes the terminal emulator's drawing (tmux's
``capture-pane`` reads tmux's grid: nothing is drawn). Debian's ``xterm`` runs
``relkit judge`` at 80x24 on ``Xvfb`` (an X server drawing into memory, no display,
so no display frame either: the X server applies xterm's drawing requests to its
framebuffer as they come). A grade key is typed through the XTEST extension (as a
keyboard's key reaches the X server: not a synthetic event) and the script watches
xterm's window with the DAMAGE extension; on each damage it reads the pixels of the
rows that hold the document's id and title (rows 3-4 of the judging screen) and the
key's time runs to the first damage after which those pixels differ from before the
key, i.e. the next document's id painted on the X server (the same "next document on
screen" as tmux's method and the browser's). The end of the key's burst of drawing
(the last damage before 150 ms without one) is recorded too.

    apt-get install xvfb xterm fonts-dejavu-core       # and: pip install python-xlib

xterm draws with Xft (FreeType, DejaVu Sans Mono 12), as xterm.js rasterises glyphs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

COLS, ROWS = 80, 24
# The judging screen: topic line, its description, the document's id (in the pane's
# border), the document's title. The id and title rows are what changes per document.
ID_ROWS = (2, 4)          # rows [2, 4): the id and the title, first 24 columns
ID_COLS = 24
FONT = ("DejaVu Sans Mono", 12)


def available() -> str | None:
    """Why the peer cannot run here (a missing program or module), or None."""
    for exe in ("Xvfb", "xterm"):
        if shutil.which(exe) is None:
            return f"{exe} not installed (apt-get install xvfb xterm)"
    try:
        import Xlib.ext.damage  # noqa: F401
        import Xlib.ext.xtest  # noqa: F401
    except ImportError:
        return "python-xlib not installed (pip install python-xlib)"
    return None


@contextlib.contextmanager
def xvfb() -> Iterator[str]:
    """A private X server (its own display number, no TCP); its DISPLAY."""
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24",
                             "-nolisten", "tcp", "+extension", "DAMAGE"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait()


def _find_vt(d: Any, timeout: float = 30.0) -> Any:
    """xterm's VT100 window (the child of its top-level window that it draws in), once
    it is on screen (before that, reading its pixels or focusing it is an error)."""
    from Xlib import X

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for top in d.screen().root.query_tree().children:
            try:
                cls = top.get_wm_class()
            except Exception:  # noqa: BLE001 (a window that went away)
                continue
            if cls and "XTerm" in cls:
                kids = top.query_tree().children
                if kids:
                    vt = max(kids, key=lambda w: w.get_geometry().width)
                    if vt.get_attributes().map_state == X.IsViewable:
                        return vt
        time.sleep(0.05)
    raise TimeoutError("xterm's window did not appear")


class XtermJudge:
    """``command`` in a ``size`` (80x24) xterm on display ``display``: type keys, watch
    paints."""

    def __init__(self, display: str, command: str, env: dict[str, str],
                 size: tuple[int, int] = (COLS, ROWS)) -> None:
        from Xlib import display as xdisplay
        from Xlib.ext import damage

        self.proc = subprocess.Popen(
            ["xterm", "-geometry", f"{size[0]}x{size[1]}+0+0", "-fa", FONT[0], "-fs", str(FONT[1]),
             "-tn", "xterm-256color", "-u8", "-bg", "black", "-fg", "white", "+sb",
             "-e", "sh", "-c", command],
            env={**env, "DISPLAY": display, "LC_ALL": "C.UTF-8"}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.d = xdisplay.Display(display)
        self.vt = _find_vt(self.d)
        geo = self.vt.get_geometry()
        # xterm's inner border (2 px by default) around COLS x ROWS cells
        self.cw, self.ch = (geo.width - 4) // size[0], (geo.height - 4) // size[1]
        self.d.screen().root.warp_pointer(geo.width // 2, geo.height // 2)
        self.vt.set_input_focus(0, 0)
        self.d.damage_query_version()
        self.damage = self.vt.damage_create(damage.DamageReportNonEmpty)
        self.damage_event = self.d.query_extension("DAMAGE").first_event + damage.DamageNotifyCode
        self.d.sync()

    def region(self) -> bytes:
        """The pixels of the id and title rows."""
        from Xlib import X

        y0, y1 = ID_ROWS
        img = self.vt.get_image(2, 2 + y0 * self.ch, ID_COLS * self.cw, (y1 - y0) * self.ch,
                                X.ZPixmap, 0xFFFFFFFF)
        return bytes(img.data)

    def screen(self) -> bytes:
        from Xlib import X

        geo = self.vt.get_geometry()
        return bytes(self.vt.get_image(0, 0, geo.width, geo.height, X.ZPixmap,
                                       0xFFFFFFFF).data)

    def _damages(self, until: float) -> Iterator[float]:
        """Yield the time each damage report arrives (and acknowledge it), until ``until``."""
        fd = self.d.fileno()
        while True:
            while self.d.pending_events():          # (reads what has arrived, no wait)
                ev = self.d.next_event()
                if ev.type == self.damage_event:
                    now = time.perf_counter()
                    self.d.damage_subtract(self.damage)   # report the next drawing too
                    self.d.flush()
                    yield now
            left = until - time.perf_counter()
            if left <= 0:
                return
            select.select([fd], [], [], left)

    def settle(self, quiet: float = 0.3, timeout: float = 60.0) -> None:
        """Wait until something is drawn on the window (the app, not xterm's blank
        window), then until nothing has been drawn for ``quiet`` seconds."""
        deadline = time.perf_counter() + timeout
        while len(set(self.screen()[::4])) < 2:
            if time.perf_counter() > deadline:
                raise TimeoutError("nothing drawn in xterm")
            list(self._damages(time.perf_counter() + 0.1))
        while time.perf_counter() < deadline:
            if not list(self._damages(time.perf_counter() + quiet)):
                return

    def key(self, keysym_name: str) -> float:
        """Type one key (press and release, XTEST); when it was sent."""
        from Xlib import XK, X
        from Xlib.ext import xtest

        code = self.d.keysym_to_keycode(XK.string_to_keysym(keysym_name))
        t0 = time.perf_counter()
        xtest.fake_input(self.d, X.KeyPress, code)
        xtest.fake_input(self.d, X.KeyRelease, code)
        self.d.flush()
        return t0

    def key_to_new_id(self, keysym_name: str, timeout: float = 10.0) -> tuple[float, float]:
        """ms from a key to the id rows painted differently, and to the end of the
        burst of drawing it caused (150 ms without a damage)."""
        before = self.region()
        t0 = self.key(keysym_name)
        changed = None
        last = t0
        deadline = t0 + timeout
        while time.perf_counter() < deadline:
            # the next damage (one at a time: the first that changed the rows counts)
            t = next(self._damages(min(deadline, time.perf_counter() + 0.15)), None)
            if t is None:
                if changed is not None:
                    break                          # 150 ms without drawing: done
                continue
            last = t
            if changed is None and self.region() != before:
                changed = t
        if changed is None:
            raise TimeoutError(f"the document did not change after {keysym_name!r}")
        return (changed - t0) * 1000, (last - t0) * 1000

    def close(self) -> None:
        self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.d.close()


def grade_in_xterm(relkit: str, db: str, assessor: str, n: int, think: float,
                   env: dict[str, str], size: tuple[int, int] = (COLS, ROWS),
                   ready: Callable[[], object] | None = None,
                   ) -> tuple[list[float], list[float]]:
    """``relkit judge`` on ``db`` in a ``size`` xterm: (key → next document's id painted,
    key → the end of its drawing) in ms, ``n`` grades (shared with serve_bench.py);
    ``ready`` is called once the first document is on screen, before the first grade
    (serve_bench.py: every assessor's there, the machine settled)."""
    with xvfb() as display:
        cmd = f"exec {relkit} judge --db {shlex.quote(db)} --assessor {shlex.quote(assessor)}"
        xt = XtermJudge(display, cmd, env, size)
        try:
            xt.settle(quiet=1.0, timeout=120)         # the topic list
            xt.key_to_new_id("Return", timeout=60)    # the first document
            if ready is not None:
                ready()
            painted, ended = [], []
            for _ in range(n):
                time.sleep(think)
                a, b = xt.key_to_new_id("1")
                painted.append(a)
                ended.append(b)
            return painted, ended
        finally:
            xt.close()


def grade_in_xterms(relkit: str, db: str, assessors: list[str], n: int, think: float,
                    env: dict[str, str]) -> list[float]:
    """:func:`grade_in_xterm` for several assessors at once, each in its own xterm on its
    own Xvfb (typed keys go to the one focused window of an X server); key → next
    document's id painted, all assessors' keys together."""
    import threading

    out: dict[str, list[float]] = {}
    errors: list[BaseException] = []

    def one(who: str) -> None:
        try:
            out[who] = grade_in_xterm(relkit, db, who, n, think, env)[0]
        except BaseException as exc:  # noqa: BLE001 (re-raised below, in the caller)
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(who,)) for who in assessors]
    for t in threads:
        t.start()
        time.sleep(1.0)                  # started a second apart, as the browsers are
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [x for who in assessors for x in out[who]]


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from tui_bench import build, pct
    from tui_tmux_bench import RELKIT, bench_env

    ap = argparse.ArgumentParser()
    ap.add_argument("--judgments", type=int, default=60)
    ap.add_argument("--think", type=float, default=0.4)
    args = ap.parse_args()
    why = available()
    if why:
        sys.stderr.write(f"xterm_peer: {why}\n")
        return 2
    import statistics

    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "w300.db"
        build(db, args.judgments + 10, 300).engine.dispose()
        painted, ended = grade_in_xterm(RELKIT, str(db), "ann", args.judgments, args.think,
                                        bench_env())
    for what, xs in (("key → next document's id painted", painted),
                     ("key → its drawing ended", ended)):
        print(f"| xterm on Xvfb, {what} | {statistics.median(xs):.1f} | {pct(xs, 95):.1f} | "
              f"{max(xs):.1f} | {len(xs)} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
