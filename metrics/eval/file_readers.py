"""The metrics layer's readers of users' files, registered in :data:`READERS`.

Each entry names its reader by a dotted string (nothing is imported here) and carries a
small valid file, the seed the fuzz tests mutate (see :mod:`relkit.metrics.core.readers`).
The ``_read_*`` functions below read a file to the end as the commands do, for readers
that return something lazy or need more than a path; they import when called.
"""

from __future__ import annotations

import gzip
import io
import tempfile
from pathlib import Path
from typing import Any

from relkit.metrics.core.readers import READERS, Reader

RUN = (b"101 Q0 D190 1 28.725618 bm25\n101 Q0 D166 2 28.124688 bm25\n"
       b"101 Q0 D252 3 19.192589 bm25\n102 Q0 D001 1 12.5 bm25\n102 Q0 D007 2 11 bm25\n")
QRELS = b"101 0 D006 3\n101 0 D008 0\n101 0 D012 1\n102 0 D001 2\n102 0 D007 0\n"
LOG_CSV = (b"impression_id,user_id,variant,query_id,rank,doc_id,clicked,ts,dwell_s\n"
           b"i1,u1,control,q1,1,d1,1,2024-01-01 10:00:00,12.5\n"
           b"i1,u1,control,q1,2,d2,0,2024-01-01 10:00:00,\n"
           b"i2,u2,treatment,q1,1,d2,0,2024-01-01 11:00:00,\n"
           b"i2,u2,treatment,q1,2,d1,1,2024-01-01 11:00:00,40\n")
LISTS_TSV = (b"query_id\trank\tdoc_id\tteam\n101\t1\tD190\tA\n101\t2\tD001\tB\n"
             b"102\t1\tD007\tB\n")


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def run_gz_seed() -> bytes:
    """A gzipped run."""
    return _gz(RUN)


def log_tsv_seed() -> bytes:
    """The CSV click log, tab-separated."""
    return LOG_CSV.replace(b",", b"\t")


def log_jsonl_seed() -> bytes:
    """The CSV click log as JSON lines."""
    import csv
    import json

    rows = csv.DictReader(io.StringIO(LOG_CSV.decode()))
    return b"".join(json.dumps({k: v for k, v in r.items() if v}).encode() + b"\n"
                    for r in rows)


def _parquet(csv_bytes: bytes, sep: str = ",") -> bytes:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    table = pacsv.read_csv(io.BytesIO(csv_bytes),
                           parse_options=pacsv.ParseOptions(delimiter=sep))
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def log_parquet_seed() -> bytes:
    """The CSV click log as Parquet."""
    return _parquet(LOG_CSV)


def lists_parquet_seed() -> bytes:
    """The interleaved lists as Parquet (ids as strings)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table({"query_id": ["101", "101"], "rank": [1, 2],
                             "doc_id": ["D190", "D001"], "team": ["A", "B"]}), out)
    return out.getvalue()


def run_parquet_seed() -> bytes:
    """A run as Parquet (trec columns)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(pa.table({"query_id": ["101", "101", "102"], "doc_id": ["D1", "D2", "D1"],
                             "score": [2.5, 1.5, 3.0]}), out)
    return out.getvalue()


def _read_log(path: Path) -> Any:
    from relkit.metrics.online.source import open_log

    log = open_log(path)
    log.check()
    return log


def _read_assignments(path: Path) -> Any:
    from relkit.metrics.online.source import open_assignments

    return open_assignments(path)


def _read_yandex(path: Path) -> Any:
    from relkit.metrics.online.convert import from_yandex

    with tempfile.TemporaryDirectory() as tmp:
        return from_yandex(path, Path(tmp) / "out.parquet")


READERS.register(
    Reader("run", ("run",), "relkit.metrics.data:read_run", RUN, "run.txt"),
    Reader("run-gz", ("run",), "relkit.metrics.data:read_run",
           "relkit.metrics.eval.file_readers:run_gz_seed", "run.txt.gz"),
    Reader("run-parquet", ("run",), "relkit.metrics.data:read_run",
           "relkit.metrics.eval.file_readers:run_parquet_seed", "run.parquet"),
    Reader("qrels", ("qrels",), "relkit.metrics.data:read_qrels", QRELS, "qrels.txt"),
    Reader("subtopics", ("subtopics",), "relkit.metrics.diversity.subtopics:SubtopicQrels.read",
           b"101 1 D006 1\n101 2 D006 0\n101 2 D008 1\n102 1 D001 1\n", "subtopics.txt"),
    Reader("qrels_jg", ("qrels_jg",), "relkit.metrics.trec_eval.jg:read_qrels_jg",
           b"101 u1 D006 3\n101 u2 D006 1\n101 u1 D008 0\n102 u1 D001 2\n", "qrels_jg.txt"),
    Reader("prefs", ("prefs",), "relkit.metrics.trec_eval.prefs_read:read_prefs",
           b"101 u1 s1 D006 2\n101 u1 s1 D008 1\n101 u1 s1 D012 0\n102 u1 s1 D001 1\n"
           b"102 u1 s1 D007 0\n", "prefs.txt"),
    Reader("qrels_prefs", ("qrels_prefs",),
           "relkit.metrics.trec_eval.prefs_read:read_qrels_prefs", QRELS, "qrels.txt"),
    Reader("prels", ("prels",), "relkit.metrics.inferred.prels:Prels.read",
           b"101 0 D006 1 1\n101 0 D008 2 0\n102 0 D001 1 -1\n", "prels.txt"),
    Reader("zscores", ("zscores",), "relkit.metrics.eval.run:_load_zscores",
           b"101 map 0.31 0.12\n102 map 0.25 0.10\n", "zscores.txt"),
    Reader("click-log-csv", ("click log",), "relkit.metrics.online.source:open_log",
           LOG_CSV, "log.csv", call="relkit.metrics.eval.file_readers:_read_log"),
    Reader("click-log-tsv", ("click log",), "relkit.metrics.online.source:open_log",
           "relkit.metrics.eval.file_readers:log_tsv_seed", "log.tsv",
           call="relkit.metrics.eval.file_readers:_read_log"),
    Reader("click-log-jsonl", ("click log",), "relkit.metrics.online.source:open_log",
           "relkit.metrics.eval.file_readers:log_jsonl_seed", "log.jsonl",
           call="relkit.metrics.eval.file_readers:_read_log"),
    Reader("click-log-parquet", ("click log",), "relkit.metrics.online.source:open_log",
           "relkit.metrics.eval.file_readers:log_parquet_seed", "log.parquet",
           call="relkit.metrics.eval.file_readers:_read_log"),
    Reader("ab-assignments", ("A/B assignments",),
           "relkit.metrics.online.source:open_assignments",
           b"unit_id,variant\nu1,control\nu2,treatment\n", "assign.csv",
           call="relkit.metrics.eval.file_readers:_read_assignments"),
    Reader("yandex-log", ("Yandex click log",), "relkit.metrics.online.convert:from_yandex",
           b"1\t0\tQ\t0\t10\t5\t11\t12\t13\n1\t3\tC\t0\t12\n2\tM\t3\t77\n"
           b"2\t0\tQ\t0\t10\t5\t12\t11\t13\n", "yandex.txt",
           call="relkit.metrics.eval.file_readers:_read_yandex"),
    Reader("interleave-lists-tsv", ("interleaved lists",),
           "relkit.metrics.online.interleave.lists:read_lists", LISTS_TSV, "lists.tsv"),
    Reader("interleave-lists-jsonl", ("interleaved lists",),
           "relkit.metrics.online.interleave.lists:read_lists",
           b'{"query_id": "101", "rank": 1, "doc_id": "D190", "team": "A"}\n'
           b'{"query_id": "101", "rank": 2, "doc_id": "D001", "team": "B"}\n', "lists.jsonl"),
    Reader("interleave-lists-parquet", ("interleaved lists",),
           "relkit.metrics.online.interleave.lists:read_lists",
           "relkit.metrics.eval.file_readers:lists_parquet_seed", "lists.parquet"),
    Reader("click-model", ("click model",), "relkit.metrics.online.clickmodels.store:load",
           b'{"relkit_click_model": 1, "model": "pbm", "max_rank": 2, "pairs": '
           b'{"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "impressions": [3, 3]}, '
           b'"params": {"alpha": [0.5, 0.25], "gamma": [1.0, 0.5]}, "default": 0.5, '
           b'"fit": {}}\n', "model.json"),
    Reader("prefs-answers", ("preference answers",),
           "relkit.metrics.prefs.answers:read_answers",
           b"topic_id\tleft\tright\tanswer\tassessor\n101\tD006\tD008\tleft\tann\n"
           b"101\tD008\tD012\tneither\tann\n102\tD001\tD007\tequal\tbob\n", "answers.tsv"),
)
