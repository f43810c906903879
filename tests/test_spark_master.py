"""The master URL check that runs before the JVM (no Spark needed): the forms Spark
takes pass, the others are usage errors, and a master address is probed for real (a
listening socket on 127.0.0.1 answers; a released port refuses)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from relkit.metrics.spark.master import MasterUnreachableError, MasterURLError, check_master


@pytest.fixture
def listening() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def test_a_listening_master_passes(listening: int) -> None:
    check_master(f"spark://127.0.0.1:{listening}")
    # high availability: one answering master of several is enough
    check_master(f"spark://127.0.0.1:{closed_port()},127.0.0.1:{listening}")
    check_master(f"k8s://http://127.0.0.1:{listening}")
    check_master(f"k8s://127.0.0.1:{listening}")


def test_nothing_listening_is_a_failure_naming_the_cause() -> None:
    port = closed_port()
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
