"""`relkit serve`'s log: what it says when it starts and when a session ends.

A real server process, its stderr read back; no browser (bare websockets).
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
from pathlib import Path

import pytest

from serve_helpers import RELKIT, plain, served, wait_until, ws_screen
from test_serve import project


def test_a_sessions_end_does_not_name_the_servers_login_as_where_judgments_are(
        tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        code, out = ws_screen(server.url, toks["ann"], origin=server.url)
        assert code == 101 and "assessor ann" in plain(out)
        # the app process's last lines are relayed before the server says it ended
        wait_until(lambda: "relkit serve: session of ann ended" in server.log(),
                   "the session's end", 60)
        log = server.log()
    # "relkit: judgments are saved in sqlite:///...": the terminal app's line, whose URL
    # is the server's (on PostgreSQL: the server's login, not ann's)
    assert "judgments are saved in" not in log, log


def _start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    db, _ = project(tmp_path)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([*RELKIT, "serve", "--db", db, *args], stdout=out,
                                stderr=out, start_new_session=True)
    return proc, log


def _stop(proc: subprocess.Popen[bytes]) -> None:
    import os
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _start_line(tmp_path: Path, *args: str) -> str:
    """``relkit serve ARGS``'s start-up line (the server stopped once it is out; no
    spares: none would be used)."""
    proc, log = _start(tmp_path, *args, "--spares", "0")
    try:
        return str(wait_until(lambda: next((x for x in log.read_text().splitlines()
                                            if "serving the judging screens" in x), None),
                              "the start-up line", 60))
    finally:
        _stop(proc)


def test_port_0_is_a_port_the_system_chooses_named_in_the_start_line(
        tmp_path: Path) -> None:
    """What lets parallel test workers (or scripts) start servers without racing for a
    port: the server binds it, and says which; it is reachable there."""
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        assert server.proc is not None
        argv = list(server.proc.args)
        assert argv[argv.index("--port") + 1] == "0"
        line = next(x for x in server.log().splitlines() if "serving the judging" in x)
        assert f"serving the judging screens on http://127.0.0.1:{server.port} " in line
        assert server.port not in (None, 0)
        code, out = ws_screen(server.url, toks["ann"], origin=server.url)
        assert code == 101 and "assessor ann" in plain(out)


def test_behind_a_proxy_the_start_line_gives_the_local_address_too(tmp_path: Path) -> None:
    line = _start_line(tmp_path, "--port", "0", "--public-url",
                       "https://judge.example.org")
    assert "https://judge.example.org" in line
    local = re.search(r"\(listening on http://127\.0\.0\.1:(\d+)\)", line)
    assert local and int(local.group(1)) != 0, line


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_an_ipv6_address_is_written_in_brackets(tmp_path: Path) -> None:
    line = _start_line(tmp_path, "--host", "::1", "--port", "0")
    local = re.search(r"on http://\[::1\]:(\d+) ", line)
    assert local and int(local.group(1)) != 0, line
    assert "http://::1" not in line


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_a_port_in_use_on_an_ipv6_address_is_named_in_brackets(tmp_path: Path) -> None:
    db, _ = project(tmp_path)
    with socket.socket(socket.AF_INET6) as busy:
        busy.bind(("::1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([*RELKIT, "serve", "--db", db, "--host", "::1", "--port",
                               str(port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on [::1]:{port}:" in done.stderr, done.stderr


@pytest.mark.slow   # 30 servers started and stopped: about 30 s
def test_a_stop_asked_for_while_the_server_starts_ends_it(tmp_path: Path) -> None:
    """SIGTERM at the start-up line (a script that starts a server and stops it at once,
    a supervisor's restart): the server ends. It used to hang for ever about once in 20:
    the stop cancelled the warm processes' creation midway, which never finished
    cancelling (RelkitServer.request_exit now waits for the start to end)."""
    import os
    import signal

    for attempt in range(30):
        (tmp_path / str(attempt)).mkdir()
        proc, log = _start(tmp_path / str(attempt), "--port", "0")
        try:
            wait_until(lambda: "serving the judging screens" in log.read_text(),  # noqa: B023
                       "the start-up line", 60)
            os.killpg(proc.pid, signal.SIGTERM)
            ended = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            ended = None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        assert ended == 0, (attempt, "still running 30 s after SIGTERM", log.read_text())
