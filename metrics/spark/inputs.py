"""What Spark reads for ``eval --engine spark``: the run lines (or Parquet rows) of many
runs in one DataFrame, split into (run, topic bucket) groups, and the qrels.

Spark only moves the raw lines: each task parses its group with relkit's own reader
(:mod:`relkit.metrics.spark.task`), so what a line means (whitespace, comments, scores,
errors) is decided by the same code as on one machine.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.borrowed import give_up, missing
from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.readers.shapes import COLUMN_NAMES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from relkit.metrics.data import Qrels

# A URL scheme (hdfs://, s3a://, file:/...): such paths are read by Spark (Hadoop's
# file systems); a plain path is a local file on one machine, or Spark's default file
# system on a cluster.
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# ASCII whitespace as Python's bytes.split() (and trec_eval's C parser) sees it.
_WS = "[ \\t\\n\\r\\x0B\\f]"


def has_scheme(path: str | os.PathLike[str]) -> bool:
    """True for ``hdfs://...``, ``s3a://...``, ``file:/...`` (not ``C:\\...``-style)."""
    text = os.fspath(path)
    return bool(_SCHEME.match(text)) and not re.match(r"^[A-Za-z]:[\\/]", text)


def is_parquet(path: str) -> bool:
    return path.rstrip("/").endswith((".parquet", ".parq", ".pq"))


@dataclass(frozen=True)
class RunInput:
    """One run: the path as the user typed it (for messages and labels) and what Spark
    reads (a URI)."""

    label: str
    uri: str

    @property
    def parquet(self) -> bool:
        return is_parquet(self.uri)


def read_qrels(path: str | os.PathLike[str], master: str | None = None) -> Qrels:
    """Qrels for the Spark engine: a plain path is read by relkit's reader, as on one
    machine; a URL (``hdfs://``, ``s3a://``) is fetched whole by Spark (``binaryFile``)
    and then read by the same reader, so errors name the same lines."""
    from relkit.metrics.data import Qrels

    text = os.fspath(path)
    if not has_scheme(text):
        return Qrels.read(path)
    from relkit.metrics.spark.session import get_session

    session = get_session(master)
    try:
        rows = session.read.format("binaryFile").load(text).select("content").collect()
    except Exception as exc:   # Spark's AnalysisException (PATH_NOT_FOUND...)
        raise InputError(f"{text}: cannot read it with Spark ({_first_line(exc)})") from None
    if len(rows) != 1:
        raise InputError(f"{text}: expected one qrels file; found {len(rows)}")
    data = bytes(rows[0][0])
    if is_parquet(text):
        import pyarrow.parquet as pq

        from relkit.metrics.readers.shapes import renamed

        frame = pq.read_table(io.BytesIO(data)).to_pandas()
        return Qrels.from_frame(renamed(frame, "qrels", text), text)
    buf = io.BytesIO(data)
    buf.name = text  # messages name the path as typed
    return Qrels.read(buf)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


GLOBS = "expanding run globs through Hadoop's file system (each argument is one run)"


def expand(session: SparkSession, paths: list[str]) -> list[RunInput]:
    """Each argument as runs: a file (or a Parquet directory) is one run, a glob
    (``hdfs://.../runs/*.parquet``) as many runs as it matches, in name order.

    Raises
    ------
    InputError
        An argument matches nothing (one line naming it as typed).
    """
    sc: Any = session.sparkContext
    gone = missing(sc, "_jvm", "_jsc")   # PySpark's private handles on the JVM
    if gone is not None:   # each argument one run, read (and checked) as it is
        give_up("pyspark", f"SparkContext.{gone}", GLOBS)
        return [RunInput(typed, typed) for typed in paths]
    jvm: Any = sc._jvm
    conf = sc._jsc.hadoopConfiguration()
    out: list[RunInput] = []
    for typed in paths:
        hpath = jvm.org.apache.hadoop.fs.Path(typed)
        try:
            statuses = hpath.getFileSystem(conf).globStatus(hpath)
        except Exception as exc:   # py4j's error: unknown scheme, no credentials...
            raise InputError(f"{typed}: cannot list it ({_first_line(exc)})") from None
        found = sorted(str(s.getPath().toString()) for s in (statuses or []))
        if not found:   # as the single-machine reader says it
            raise FormatError(typed, None, "an existing file", "no such file")
        if len(found) == 1:
            out.append(RunInput(typed, found[0]))
        else:
            out.extend(RunInput(uri, uri) for uri in found)
    return out


def _text_lines(session: SparkSession, uri: str) -> DataFrame:
    """A TREC text file's lines with a key that orders them as in the file:
    (start of the file split, row id within the split's partition)."""
    import pyspark.sql.functions as F

    return session.read.text(uri).select(
        F.col("value").alias("line"),
        F.col("_metadata.file_block_start").alias("blk"),
        F.monotonically_increasing_id().alias("mid"))


def line_number(session: SparkSession, uri: str, blk: int, mid: int, parquet: bool) -> int:
    """The 1-based line (Parquet: row) of the row keyed ``(blk, mid)`` in a file: the file
    is read alone again, as it was in the evaluation, so the keys are the same. Only
    called for an error, so the evaluation itself never pays for line numbers."""
    import pyspark.sql.functions as F

    lines = (session.read.parquet(uri).select(
        F.col("_metadata.file_block_start").alias("blk"),
        F.monotonically_increasing_id().alias("mid")) if parquet else _text_lines(session, uri))
    before = lines.where((F.col("blk") < blk) | ((F.col("blk") == blk) & (F.col("mid") < mid)))
    return int(before.count()) + 1


def _pick(columns: list[str], name: str) -> str | None:
    for candidate in COLUMN_NAMES["run"][name]:
        if candidate in columns:
            return candidate
    return None


def run_rows(session: SparkSession, runs: list[RunInput], buckets: int) -> DataFrame:
    """All runs' content rows in one DataFrame: ``run`` (index in ``runs``), ``bucket``
    (a hash of the topic id), ``blk``/``mid`` (file order), then ``line`` (TREC text) or
    ``doc``/``score``/``rid`` (Parquet). Blank and ``#`` lines are dropped here, as the
    reader drops them."""
    import pyspark.sql.functions as F

    first = F.regexp_extract(F.col("line"), f"^{_WS}*([^ \\t\\n\\r\\x0B\\f]+)", 1)
    parts = []
    for i, run in enumerate(runs):
        if run.parquet:
            df = session.read.parquet(run.uri)
            cols = df.columns
            picked = {k: _pick(cols, k) for k in ("query_id", "doc_id", "score", "run_id")}
            lacking = [k for k in ("query_id", "doc_id", "score") if picked[k] is None]
            if lacking:
                raise FormatError(run.label, None, "columns query_id, doc_id, score (or "
                                  "their usual names: qid, docno...)",
                                  f"columns {', '.join(cols)}")
            rid = (F.col(f"`{picked['run_id']}`").cast("string") if picked["run_id"]
                   else F.lit(os.path.basename(run.label.rstrip("/"))))
            part = df.select(
                F.lit(i).alias("run"),
                F.col(f"`{picked['query_id']}`").cast("string").alias("qid"),
                F.col("_metadata.file_block_start").alias("blk"),
                F.monotonically_increasing_id().alias("mid"),
                F.lit(None).cast("string").alias("line"),
                F.col(f"`{picked['doc_id']}`").cast("string").alias("doc"),
                F.col(f"`{picked['score']}`").cast("double").alias("score"),
                rid.alias("rid"))
        else:
            lines = _text_lines(session, run.uri)
            # the reader strips a UTF-8 byte order mark at the start of the file
            lines = lines.withColumn("line", F.regexp_replace("line", "^\ufeff", ""))
            lines = lines.withColumn("qid", first)
            lines = lines.where((F.col("qid") != "") & ~F.col("qid").startswith("#"))
            part = lines.select(
                F.lit(i).alias("run"), "qid", "blk", "mid", "line",
                F.lit(None).cast("string").alias("doc"),
                F.lit(None).cast("double").alias("score"),
                F.lit(None).cast("string").alias("rid"))
        parts.append(part)
    rows = parts[0]
    for part in parts[1:]:
        rows = rows.unionByName(part)
    return rows.withColumn("bucket", F.pmod(F.xxhash64("qid"), F.lit(buckets)).cast("int"))
