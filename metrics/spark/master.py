"""A Spark master URL checked before the JVM starts: what Spark would reject after a
minute and a page of stack trace is refused here in one line, within seconds.

Spark itself parses the URL only once the driver JVM runs (``SparkContext``), and a
standalone master that does not answer is retried for about a minute (three
registration attempts of 20 s each, fixed in Spark's code, not a setting) before the
job dies with a JVM trace. So :func:`check_master` does what can be done without the
JVM: the URL's form (the forms ``SparkContext`` accepts, as Spark 4 parses them), the
configuration YARN's client needs, and one TCP connection to each ``spark://`` master
and ``k8s://`` API server, bounded by :data:`PROBE_TIMEOUT`. A ``spark://`` address
that accepts the connection is also sent one Spark RPC request (:func:`_rpc_answers`):
something that accepts connections but never answers (a firewall's tarpit, a hung
process) is refused after :data:`ANSWER_TIMEOUT` instead of Spark's minute.

Two kinds of error, so a command can tell a usage error from a failure:
:class:`MasterURLError` (the URL is not one Spark takes: the command line's fault) and
:class:`MasterUnreachableError` (a valid URL that this machine cannot use now).
Standard library only: nothing here needs PySpark.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import socket
import struct

from relkit.metrics.core.errors import RelkitError

# Seconds to wait for a TCP connection to a master: a master on the network answers in
# milliseconds; a firewall that drops packets is refused after this long.
PROBE_TIMEOUT = 3.0
# Seconds to wait for the master's answer to the RPC probe: its network layer answers
# in milliseconds on its I/O thread, however busy the master is registering others.
ANSWER_TIMEOUT = 5.0
# The endpoint the probe asks for: no Spark process has one of this name, so a master
# answers at once with an RpcFailure ("Could not find relkit-master-probe.") and logs
# nothing but the connection's end (an INFO line any client's disconnect gives).
PROBE_ENDPOINT = "relkit-master-probe"

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
        ``yarn`` without ``HADOOP_CONF_DIR``/``YARN_CONF_DIR``, a ``spark://`` master /
        ``k8s://`` API server that no TCP connection reaches, or a ``spark://`` address
        that accepts the connection but answers nothing within :data:`ANSWER_TIMEOUT`.
    """
    if master.startswith("local"):
        _check_local(master)
    elif master.startswith("spark://"):
        _probe_any(master, [_host_port(master, part, None)
                            for part in master[len("spark://"):].split(",")],
                   "no Spark master answers there", rpc=True)
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


def _probe_any(master: str, addresses: list[tuple[str, int]], nobody: str, *,
               rpc: bool = False) -> None:
    """Return once one address accepts a TCP connection (and, with ``rpc``, answers
    :func:`_rpc_answers`); else raise with the first address's reason."""
    reasons = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=PROBE_TIMEOUT) as sock:
                if not rpc or _rpc_answers(sock, host, port):
                    return
                reasons.append(f"{host}:{port} accepts connections but sent no answer "
                               f"to a Spark RPC request within {ANSWER_TIMEOUT:g} s")
        except OSError as exc:
            reasons.append(_reason(exc))
    raise MasterUnreachableError(f"{master}: {nobody} ({reasons[0]})")


def _rpc_answers(sock: socket.socket, host: str, port: int) -> bool:
    """Whether the peer answers one Spark RPC request within :data:`ANSWER_TIMEOUT`.

    Any answer counts: a Spark master's RpcFailure frame, and equally a reply or a
    closed connection from a master with authentication or TLS on (which refuses the
    plain request) or from another program; those go on to Spark, which says what is
    wrong. Only silence is refused: Spark would wait a minute on it. A master slow to
    register applications still answers here (the frame is answered by its network
    layer, before any endpoint's queue).
    """
    sock.settimeout(ANSWER_TIMEOUT)
    try:
        sock.sendall(_rpc_request(host, port))
        first = sock.recv(8)
    except TimeoutError:
        return False
    except OSError:            # reset by the peer: it answered, by refusing
        return True
    # Read the rest of the frame (its length leads it): closing with unread bytes would
    # reset the connection, which a master logs as a WARN with a stack trace.
    with contextlib.suppress(OSError):
        size = int.from_bytes(first + _read(sock, 8 - len(first)), "big") if first else 0
        if 8 < size <= 1 << 20:
            _read(sock, size - 8)
    return True   # a frame, other bytes, or a closed connection: all answers


def _read(sock: socket.socket, n: int) -> bytes:
    """Up to ``n`` bytes (fewer if the peer closes first)."""
    chunks = []
    while n > 0:
        chunk = sock.recv(min(n, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _rpc_request(host: str, port: int) -> bytes:
    """One frame of Spark's transport protocol (network-common's MessageEncoder): an
    ``RpcRequest`` whose body is what ``NettyRpcEnv``'s ``RequestMessage.serialize``
    writes (sender: none; receiver: ``host:port`` and :data:`PROBE_ENDPOINT`; content:
    a Java-serialized string)."""
    def utf(text: str) -> bytes:   # java.io.DataOutput.writeUTF (ASCII here)
        data = text.encode()
        return struct.pack(">H", len(data)) + data

    content = b"\xac\xed\x00\x05" + b"\x74" + utf("relkit")   # stream header, a String
    body = (b"\x00" + b"\x01" + utf(host) + struct.pack(">i", port)
            + utf(PROBE_ENDPOINT) + content)
    rpc_request, request_id = 3, 1
    header = struct.pack(">bqi", rpc_request, request_id, len(body))
    return struct.pack(">q", 8 + len(header) + len(body)) + header + body


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
