"""CAL's training in a process of its own, off the judging screen's interpreter.

The judging screen (terminal or browser session) trains the next batch ahead while
the assessor reads (:meth:`relkit.pooling.cal.strategy.Cal.ahead`). In a thread of
the screen's process that training (about 20 ms of CPU per plan, two plans per
batch end) held the interpreter's lock against the drawing: a measured 40-55 ms of
CPU per grade in the screen's process (docs/pooling.md, "In the judging loop").
Here it runs in one child process per judging process:

* **Started in the background**, on the first plan asked for (so ``pool-simulate``
  and ``relkit pool``, which never train ahead, never start one): a thread starts
  the child as multiprocessing's ``spawn`` method does, a fresh interpreter (the
  judging process has Textual's and SQLAlchemy's threads, which a ``fork`` would
  copy mid-state), but without re-running the program's main script there
  (:func:`_start`), and the child imports scikit-learn before it says it is ready.
  Until then, and for good if it cannot start or dies, plans are made in a
  thread of this process, as before (:meth:`Worker.usable` is False).
* **What it is sent**: a collection's feature matrix once (per process and
  matrix), each topic's constants once (candidate rows, topic vector, seeds,
  parameters; the child takes the candidates' rows from the matrix with
  :func:`relkit.pooling.cal.features.take_rows`, as this process does), then per
  plan only the judged set (bits), the labels, the batch number and size. It
  sends back the batch: :func:`relkit.pooling.cal.plan.plan`, the same pure
  function the key runs, so a plan from the child equals the key's.
* **Never on the key's side of a judgment**: the grade is committed before any
  plan is looked at; a plan the key wants waits at most :data:`PATIENCE` seconds,
  then the key trains it in this process; a child that dies or fails is replaced
  by training here. Each is said once in the log (logger
  ``relkit.pooling.cal.worker``, warnings; nothing on the assessor's screen: the
  logger has a :class:`logging.NullHandler`, so it prints only where an
  application configured logging).
* **Stopped with the process**: at exit (``atexit``) it is terminated and
  reaped; if this process is killed instead, the child reads the end of its pipe
  and ends (it ignores Ctrl-C: the terminal's interrupt is for the screen).
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import subprocess
import sys
import threading
import weakref
from concurrent.futures import Future
from typing import Any

import numpy as np

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())   # never the terminal's last-resort handler

# Seconds the key waits for a plan the child is making before making it itself (the
# child's plan takes tens of milliseconds; only a stalled child takes this long).
PATIENCE = 1.0
# Off: every plan ahead is made in a thread of this process (tests compare both).
ENABLED = True


class Remote(Future[Any]):
    """A plan asked of the training process (the key waits for it at most PATIENCE)."""

    worker: Worker | None = None   # the process asked (abandoned if it keeps the key waiting)


class Gone(RuntimeError):
    """The training process ended or could not start."""


class Worker:
    """One training process and the thread that talks to it (see the module doc)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()   # a finalizer may run inside a held lock
        self._jobs: queue.SimpleQueue[tuple[list[tuple[Any, ...]], Remote | None,
                                            tuple[Any, ...] | None] | None] = \
            queue.SimpleQueue()
        self.state = "new"        # new, starting, ready, dead, stopped
        self.ready = threading.Event()
        self.pid: int | None = None
        self.served = 0           # plans the child made (tests, the bench)
        self._proc: Any = None
        self._pools: dict[int, int] = {}     # id(feature matrix) -> its key in the child
        self._topics: dict[int, int] = {}    # id(Problem) -> its key in the child
        self._next_key = 0

    # -- the judging process's side --------------------------------------------------
    def usable(self) -> bool:
        """Whether plans go to the child now; the first call starts it (in a thread)."""
        with self._lock:
            if self.state == "new":
                self.state = "starting"
                threading.Thread(target=self._run, name="relkit-cal-worker",
                                 daemon=True).start()
            return self.state == "ready"

    def plan(self, problem: Any, judged: np.ndarray, labels: dict[int, bool],
             batches: int, size: int) -> Remote:
        """Ask the child for :func:`relkit.pooling.cal.plan.plan` of these."""
        fut = Remote()
        fut.worker = self
        with self._lock:
            if self.state != "ready":
                fut.set_exception(Gone("the training process is not running"))
                return fut
            first = self._register(problem)
            job = ("plan", self._topics[id(problem)], np.packbits(judged).tobytes(),
                   len(judged), tuple(sorted(labels.items())), batches, size)
            self._jobs.put((first, fut, job))   # in the lock: a topic is taught first
        return fut

    def _register(self, p: Any) -> list[tuple[Any, ...]]:
        """The messages that teach the child this topic (nothing if it knows it)."""
        if id(p) in self._topics:
            return []
        out: list[tuple[Any, ...]] = []
        pool = self._pools.get(id(p.pool))
        if pool is None:   # forgotten (here and in the child) when the matrix is freed
            pool = self._pools[id(p.pool)] = self._key()
            out.append(("pool", pool, p.pool))
            weakref.finalize(p.pool, self._forget, self._pools, id(p.pool)).atexit = False
        key = self._topics[id(p)] = self._key()
        out.append(("topic", key, pool, p.rows, p.topic, p.allowed, p.seeds,
                    p.sample, p.c, p.base))
        weakref.finalize(p, self._forget, self._topics, id(p)).atexit = False
        return out

    def _forget(self, known: dict[int, int], ident: int) -> None:
        with self._lock:
            key = known.pop(ident, None)
            if key is not None and self.state == "ready":
                self._jobs.put(([("drop", key)], None, None))

    def _key(self) -> int:
        self._next_key += 1
        return self._next_key

    def stop(self) -> None:
        """End the child and reap it (at exit; tests). Plans not made fail over."""
        with self._lock:
            self.state = "stopped"
            proc = self._proc
        self._jobs.put(None)
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # -- the talking thread -----------------------------------------------------------
    def _run(self) -> None:
        try:
            proc, here = _start()
            with self._lock:
                self._proc, self.pid = proc, proc.pid
                stopped = self.state == "stopped"
            if stopped:
                self.stop()
                return
            atexit.register(self.stop)
            said = here.recv()
            if said != ("ready",):
                raise Gone(f"the training process said {said!r}")
        except BaseException as e:   # noqa: BLE001 - any failure: train here instead
            code = self._proc.poll() if self._proc is not None else None
            self._die(f"could not start ({type(e).__name__}: {e}; exit code {code})")
            return
        with self._lock:
            if self.state == "starting":
                self.state = "ready"
        self.ready.set()
        while (item := self._jobs.get()) is not None:
            msgs, fut, job = item
            try:
                for m in msgs:
                    here.send(m)
                if fut is None or not fut.set_running_or_notify_cancel():
                    continue   # cancelled while queued: the key trained it itself
                here.send(job)
                kind, value = here.recv()
            except (EOFError, OSError) as e:
                code = proc.poll()
                self._die(f"ended ({type(e).__name__}; exit code {code})")
                if fut is not None and not fut.done():
                    fut.set_exception(Gone("the training process ended"))
                break
            if kind == "ok":
                self.served += 1
                fut.set_result(value)
            else:
                fut.set_exception(Gone(f"the training process failed: {value}"))
        self._drain()

    def abandon(self, why: str) -> None:
        """Stop asking the child (a plan kept the key waiting PATIENCE: the child is
        stalled or starved). It is killed, so every later batch trains in this process
        at once instead of each waiting PATIENCE behind the stalled plan; the talking
        thread then sees the pipe end, fails what is queued and reaps it."""
        with self._lock:
            if self.state != "ready":
                return
            self.state = "dead"
            proc = self._proc
        log.warning("cal: the training process %s; training in this process from now on",
                    why)
        if proc is not None and proc.poll() is None:
            proc.kill()   # (a stopped process too: SIGKILL needs no SIGCONT)

    def _die(self, why: str) -> None:
        with self._lock:
            stopping = self.state == "stopped"
            said = self.state == "dead"   # abandoned: already said
            self.state = "stopped" if stopping else "dead"
        if not stopping and not said:
            log.warning("cal: the training process %s; training in this process instead",
                        why)
        self.ready.set()
        self._drain()

    def _drain(self) -> None:
        """Fail every plan still queued (the key makes them)."""
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                return
            fut = None if item is None else item[1]
            if fut is not None and not fut.done() and fut.set_running_or_notify_cancel():
                fut.set_exception(Gone("the training process is not running"))


# The child's program: a fresh interpreter given only its end of a socket pair.
_CHILD = "import sys; from relkit.pooling.cal.worker import main; main(int(sys.argv[1]))"


def _start() -> tuple[subprocess.Popen[bytes], Any]:
    """Start the child: what multiprocessing's ``spawn`` does (a new interpreter, no
    ``fork`` of this process), without its re-import of the program's main script in
    the child (a script without an ``if __name__ == "__main__"`` guard would run
    again there). The child gets this process's ``sys.path`` (as ``PYTHONPATH``, in
    its environment only), no terminal output (nothing may reach the assessor's
    screen), and one end of a socket pair, as a multiprocessing ``Connection``."""
    import socket
    from multiprocessing.connection import Connection

    here, there = socket.socketpair()
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        # -P: no working directory first on the child's path (``python -c`` would put
        # it there): a relkit/ or sklearn.py where the assessor stands must not be what
        # the child imports, or its plans would not be the key's.
        proc = subprocess.Popen([sys.executable, "-P", "-c", _CHILD, str(there.fileno())],
                                pass_fds=(there.fileno(),), env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except BaseException:
        here.close()
        raise
    finally:
        there.close()   # the child's end: the child alone holds it now
    return proc, Connection(here.detach())


def main(fd: int) -> None:
    """The child's entry point (:data:`_CHILD`)."""
    from multiprocessing.connection import Connection

    serve(Connection(fd))


def serve(conn: Any) -> None:
    """The child: learn matrices and topics, make plans, until the pipe ends."""
    import signal
    import warnings

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the screen's
    warnings.simplefilter("ignore")                # nothing on the assessor's terminal
    import sklearn.linear_model  # noqa: F401  (the first plan's import, made now)

    from relkit.pooling.cal.features import take_rows
    from relkit.pooling.cal.plan import Problem, plan

    pools: dict[int, Any] = {}
    problems: dict[int, Problem] = {}
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return   # the judging process ended
        kind = msg[0]
        if kind == "pool":
            pools[msg[1]] = msg[2]
        elif kind == "topic":
            key, pool, rows, topic, allowed, seeds, sample, c, base = msg[1:]
            problems[key] = Problem(take_rows(pools[pool], rows), pools[pool], rows, topic,
                                    allowed, seeds, sample, c, base)
        elif kind == "drop":   # a topic or a matrix (keys are never reused)
            problems.pop(msg[1], None)
            pools.pop(msg[1], None)
        else:
            _, key, bits, n, labels, batches, size = msg
            judged = np.unpackbits(np.frombuffer(bits, dtype=np.uint8), count=n).astype(bool)
            try:
                out: tuple[str, Any] = ("ok", plan(problems[key], judged, dict(labels),
                                                   batches, size))
            except Exception as e:   # noqa: BLE001 - said to the parent, which retrains
                out = ("err", f"{type(e).__name__}: {e}")
            try:
                conn.send(out)
            except OSError:
                return


_SHARED: list[Worker] = []
_SHARED_LOCK = threading.Lock()


def shared() -> Worker | None:
    """The process's one training process (None when :data:`ENABLED` is off)."""
    if not ENABLED:
        return None
    with _SHARED_LOCK:
        if not _SHARED or _SHARED[0].state in ("stopped",):
            _SHARED[:] = [Worker()]
        return _SHARED[0]
