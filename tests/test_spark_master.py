"""The master URL check that runs before the JVM (no Spark needed): the forms Spark
takes pass, the others are usage errors, and a master address is probed for real (a
listening socket on 127.0.0.1 that answers a request passes; one that never answers
and a released port are refused; a real standalone master passes)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ports import refused_port
from relkit.metrics.spark import master as master_module
from relkit.metrics.spark.master import MasterUnreachableError, MasterURLError, check_master


@pytest.fixture
def listening() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections and never answers (the kernel
    completes the handshakes; nothing reads or writes)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


@pytest.fixture
def answering() -> Iterator[int]:
    """A port on 127.0.0.1 whose server reads a request and answers it with a short
    Spark frame (length 13, type RpcFailure), then closes, as many times as asked."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        s.settimeout(0.2)
        stop = threading.Event()

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = s.accept()
                except TimeoutError:
                    continue
                with conn:
                    conn.recv(4096)
                    conn.sendall((13).to_bytes(8, "big") + b"\x05" + b"\x00" * 4)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield int(s.getsockname()[1])
        finally:
            stop.set()
            thread.join()


@pytest.mark.parametrize("master", ["local", "local[1]", "local[8]", "local[*]",
                                    "local[2, 3]", "local[*,4]", "local-cluster[2, 1, 1024]"])
def test_local_forms_spark_takes_pass(master: str) -> None:
    check_master(master)


@pytest.mark.parametrize("master", ["local[0]", "local[abc]", "local[]", "local[-1]",
                                    "localhost", "local[2", "foo://x", "mesos://h:5050",
                                    "yarn-client", "sc://localhost", "spark://h",
                                    "spark://:7077", "spark://h:0", "spark://h:99999",
                                    "spark://h:port", ""])
def test_forms_spark_does_not_take_are_usage_errors(master: str) -> None:
    with pytest.raises(MasterURLError) as err:
        check_master(master)
    assert master in str(err.value)


def test_a_listening_master_passes(answering: int, listening: int) -> None:
    check_master(f"spark://127.0.0.1:{answering}")
    # high availability: one answering master of several is enough
    with refused_port() as refused:
        check_master(f"spark://127.0.0.1:{refused},127.0.0.1:{answering}")
    # a Kubernetes API server is only connected to (TLS or HTTP: no Spark request)
    check_master(f"k8s://http://127.0.0.1:{listening}")
    check_master(f"k8s://127.0.0.1:{listening}")


def test_a_port_that_accepts_but_never_answers_is_refused(
        listening: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark itself would retry its registration there for a minute (3 x 20 s, fixed in
    its StandaloneAppClient) before the job dies; the probe's request gets no answer."""
    monkeypatch.setattr(master_module, "ANSWER_TIMEOUT", 0.5, raising=False)
    with pytest.raises(MasterUnreachableError, match=(
            rf"spark://127.0.0.1:{listening}: no Spark master answers there "
            rf"\(127.0.0.1:{listening} accepts connections but sent no answer to a "
            r"Spark RPC request within 0.5 s\)")):
        check_master(f"spark://127.0.0.1:{listening}")


def test_nothing_listening_is_a_failure_naming_the_cause() -> None:
    with refused_port() as port:
        with pytest.raises(MasterUnreachableError, match=r"no Spark master answers there "
                                                         r"\(connection refused\)"):
            check_master(f"spark://127.0.0.1:{port}")
        with pytest.raises(MasterUnreachableError, match="no Kubernetes API server answers"):
            check_master(f"k8s://https://127.0.0.1:{port}")
    with pytest.raises(MasterUnreachableError, match="unknown host"):
        check_master("spark://no-such-host.invalid:7077")


def test_yarn_needs_its_configuration_directory(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path) -> None:
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.delenv("YARN_CONF_DIR", raising=False)
    with pytest.raises(MasterUnreachableError, match="neither HADOOP_CONF_DIR nor "
                                                     "YARN_CONF_DIR"):
        check_master("yarn")
    monkeypatch.setenv("YARN_CONF_DIR", str(tmp_path / "missing"))
    with pytest.raises(MasterUnreachableError, match="is not a directory"):
        check_master("yarn")
    monkeypatch.setenv("HADOOP_CONF_DIR", str(tmp_path))
    check_master("yarn")


def test_a_master_that_gives_up_is_named_from_the_jvm_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A master that answers the probe can still give up on the application later (it
    is not a master but another Spark process, or it refuses the application): the job
    then fails on a stopped SparkContext, and the cause is the JVM's ERROR line in its
    log file, which the line names (this ran end to end, for a minute, in
    test_spark_failures.py before the probe refused silent addresses)."""
    from relkit.metrics.spark import session
    from relkit.metrics.spark.failures import describe

    log = tmp_path / "relkit-spark-x.log"
    log.write_text("WARNING: Using incubator modules: jdk.incubator.vector\n"
                   "26/11/29 07:12:00 WARN StandaloneAppClient$ClientEndpoint: Failed to "
                   "connect to master 127.0.0.1:7077\n"
                   "26/11/29 07:13:00 ERROR StandaloneSchedulerBackend: Application has "
                   "been killed. Reason: All masters are unresponsive! Giving up.\n")
    monkeypatch.setattr(session, "_LOG_PATH", str(log))
    monkeypatch.setattr(session, "_KEEP_LOG", False)
    exc = RuntimeError("An error occurred while calling o31.applyInPandas.\n"
                       ": java.lang.IllegalStateException: Cannot call methods on a "
                       "stopped SparkContext.\nThis stopped SparkContext was created at:")
    assert describe(exc) == ("Application has been killed. Reason: All masters are "
                             f"unresponsive! Giving up. (the JVM's log: {log})")
    assert session._KEEP_LOG, "the log a failure names is kept after exit"


@pytest.fixture
def standalone_master(tmp_path: Path) -> Iterator[int]:
    """A real Spark standalone master on 127.0.0.1 (no workers), its REST server off
    and its web UI on ports it binds itself (port 0: parallel runs cannot collide); its
    port is read from its log."""
    import re

    pyspark = pytest.importorskip("pyspark")
    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOG_DIR": str(tmp_path),
           "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"}
    log = tmp_path / "master.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(home / "bin" / "spark-class"), "org.apache.spark.deploy.master.Master",
             "--host", "127.0.0.1", "--port", "0", "--webui-port", "0"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        while "I have been elected leader" not in log.read_text(errors="replace"):
            if proc.poll() is not None:
                pytest.fail(f"the Spark master exited: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        found = re.search(r"Starting Spark master at spark://127\.0\.0\.1:(\d+)",
                          log.read_text(errors="replace"))
        assert found, log.read_text()[-2000:]
        yield int(found.group(1))
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)


@pytest.mark.slow   # a JVM: the Spark master itself
def test_a_real_standalone_master_passes_and_logs_no_error(standalone_master: int,
                                                           tmp_path: Path) -> None:
    """The probe speaks Spark's own RPC framing: a real master answers it (so a real
    cluster is never refused) and logs no WARN or ERROR for it (only the INFO line any
    client's disconnect gives)."""
    check_master(f"spark://127.0.0.1:{standalone_master}")
    check_master(f"spark://127.0.0.1:{standalone_master}")   # twice: it still answers
    log = tmp_path / "master.log"
    # The master logs a connection's end after the probe has returned (a bound on a
    # master that never logs it, not a measure).
    deadline = time.monotonic() + 120
    while log.read_text(errors="replace").count("got disassociated") < 2:
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.2)
    lines = log.read_text(errors="replace").splitlines()
    after = lines[next(i for i, t in enumerate(lines) if "elected leader" in t):]
    assert not [t for t in after if " WARN " in t or " ERROR " in t], after


def test_the_quiet_log4j_file_is_never_seen_half_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two relkit processes starting Spark at once (two users, or pytest-xdist's
    workers) share the log4j file in the temporary directory: it is written under a
    name of its own and renamed, so a JVM never reads it half-written (the path it
    names is never opened for writing)."""
    import builtins
    import tempfile

    from relkit.metrics.spark import session

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    final = tmp_path / "relkit-spark-log4j2-off.properties"
    opened = []
    real_open = builtins.open

    def spy(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if "w" in mode or "a" in mode:
            opened.append(str(file))
        return real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", spy)
    option = session._quiet_jvm()["spark.driver.extraJavaOptions"]
    assert option == f"-Dlog4j2.configurationFile=file:{final}"
    assert str(final) not in opened, "the file the JVM reads was written in place"
    assert final.read_text(encoding="utf-8") == session._LOG4J
    assert sorted(p.name for p in tmp_path.iterdir()) == [final.name], "a part left"
    assert final.stat().st_mode & 0o777 == 0o644, "other users' JVMs must read it too"
