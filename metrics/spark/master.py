"""A Spark master URL checked before the JVM starts: what Spark would reject after a
minute and a page of stack trace is refused here in one line, within seconds.

Spark itself parses the URL only once the driver JVM runs (``SparkContext``), and a
standalone master that does not answer is retried for about a minute (three
registration attempts of 20 s each, fixed in Spark's code, not a setting) before the
job dies with a JVM trace. So :func:`check_master` does what can be done without the
JVM: the URL's form (the forms ``SparkContext`` accepts, as Spark 4 parses them), the
configuration YARN's client needs, and one TCP connection to each ``spark://`` master
and ``k8s://`` API server, bounded by :data:`PROBE_TIMEOUT`.

Two kinds of error, so a command can tell a usage error from a failure:
:class:`MasterURLError` (the URL is not one Spark takes: the command line's fault) and
:class:`MasterUnreachableError` (a valid URL that this machine cannot use now).
Standard library only: nothing here needs PySpark.
"""

from __future__ import annotations

import errno
import os
import re
import socket

from relkit.metrics.core.errors import RelkitError

# Seconds to wait for a TCP connection to a master: a master on the network answers in
# milliseconds; a firewall that drops packets is refused after this long.
PROBE_TIMEOUT = 3.0

# Spark's forms (SparkMasterRegex in SparkContext.scala): local, local[N], local[*],
# local[N, F] (F: task failures allowed), local-cluster[W, C, M].
_LOCAL = re.compile(r"local(?:\[\s*(?P<n>[0-9]+|\*)\s*(?:,\s*(?P<f>[0-9]+)\s*)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*\]")
FORMS = "local[N], local[*], spark://HOST:PORT, yarn, k8s://https://HOST:PORT"


class MasterURLError(RelkitError):
    """The master URL is not one Spark takes (a usage error)."""


class MasterUnreachableError(RelkitError):
    """The master URL is valid but cannot be used from this machine now (a failure)."""


def check_master(master: str) -> None:
    """Refuse ``master`` if Spark could not start on it; return quickly if it could.

    Raises
    ------
    MasterURLError
        Not a form Spark accepts (``foo://x``, ``local[0]``, ``local[abc]``,
        ``spark://host`` without a port), or Spark Connect (``sc://``).
    MasterUnreachableError
        ``yarn`` without ``HADOOP_CONF_DIR``/``YARN_CONF_DIR``, or a ``spark://`` master /
        ``k8s://`` API server that no TCP connection reaches.
    """
    if master.startswith("local"):
        _check_local(master)
    elif master.startswith("spark://"):
        _probe_any(master, [_host_port(master, part, None)
                            for part in master[len("spark://"):].split(",")],
                   "no Spark master answers there")
    elif master == "yarn":
        _check_yarn()
    elif master.startswith("k8s://"):
        url = master[len("k8s://"):]
        scheme, _, rest = url.rpartition("://")
        default = 80 if scheme == "http" else 443   # Spark's default scheme is https
        _probe_any(master, [_host_port(master, rest.split("/")[0], default)],
                   "no Kubernetes API server answers there")
    elif master.startswith("sc://"):
        raise MasterURLError(f"{master}: Spark Connect is not supported (relkit reads "
                             "files through the driver JVM's Hadoop file system); give a "
                             f"master URL: {FORMS}")
    else:
        raise MasterURLError(f"{master}: not a Spark master URL; expected one of {FORMS}")


def _check_local(master: str) -> None:
    if _LOCAL_CLUSTER.fullmatch(master):
        return
    found = _LOCAL.fullmatch(master)
    if found is None:
        raise MasterURLError(f"{master}: not a local master; expected local, local[N] "
                             "(N cores, N >= 1) or local[*]")
    if found.group("n") is not None and found.group("n") != "*" and int(found.group("n")) < 1:
        raise MasterURLError(f"{master}: local mode needs at least one core: local[N] "
                             "with N >= 1, or local[*] for every core")


def _host_port(master: str, text: str, default: int | None) -> tuple[str, int]:
    host, sep, port = text.strip().rpartition(":")
    if not sep or "]" in port:     # no port (an IPv6 host without one ends in "]")
        host, port = text.strip(), ""
    host = host.strip("[]")
    if not port and default is not None:
        return host, default
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise MasterURLError(f"{master}: expected HOST:PORT after the scheme (a port "
                             f"from 1 to 65535); got {text.strip()!r}")
    return host, int(port)


def _probe_any(master: str, addresses: list[tuple[str, int]], nobody: str) -> None:
    """Return once one address accepts a TCP connection; else raise with the first
    address's reason."""
    reasons = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=PROBE_TIMEOUT):
                return
        except OSError as exc:
            reasons.append(_reason(exc))
    raise MasterUnreachableError(f"{master}: {nobody} ({reasons[0]})")


def _reason(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, TimeoutError):
        return f"no answer within {PROBE_TIMEOUT:g} s"
    if exc.errno == errno.ECONNREFUSED:
        return "connection refused"
    return exc.strerror or type(exc).__name__


def _check_yarn() -> None:
    """Spark's own rule (SparkSubmit): YARN's client reads the cluster's address from
    the Hadoop configuration directory named by one of these two variables."""
    names = ("HADOOP_CONF_DIR", "YARN_CONF_DIR")
    given = [(n, os.environ[n]) for n in names if os.environ.get(n)]
    if not given:
        raise MasterUnreachableError("yarn: neither HADOOP_CONF_DIR nor YARN_CONF_DIR is "
                                     "set: export one, naming the directory that holds the "
                                     "cluster's yarn-site.xml and core-site.xml")
    if not any(os.path.isdir(d) for _n, d in given):
        name, path = given[0]
        raise MasterUnreachableError(f"yarn: {name}={path} is not a directory (it must hold "
                                     "the cluster's yarn-site.xml and core-site.xml)")
