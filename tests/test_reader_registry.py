"""Every module that reads files is a registered reader, a helper of one, or says why not.

:data:`relkit.metrics.core.readers.READERS` is what tests/test_reader_fuzz.py fuzzes; a
reader missing from it escapes the bad-input standard unseen. So the source is scanned
for calls that read a file (``open(``, ``read_text``, ``read_csv``, DuckDB's
``read_parquet``, ``tomllib.load``...), and every module making one must be the module of
a registered reader, a helper listed below with the readers that go through it, or
listed as reading no user's file, with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT
from relkit.metrics.core.readers import READERS

LAYERS = ("metrics", "pooling", "corpora", "judging")
# A call that reads a file. Builtin open (not Store.open) unless it opens for writing.
READ = re.compile(r"(?<![\w.])(?<!def )open\(|\.read_text\(|\.read_bytes\(|\bread_csv\b|"
                  r"\bread_json|\bread_parquet\b|\bread_table\(|tomllib\.loads?\(|json\.load\(|"
                  r"gzip\.open\(|(?<![\w.])read_bytes\(|\bopen_text\(")
WRITE = re.compile(r"""["'](w|wb|wt|a|x)["']|write_|os\.devnull""")

# Modules that read users' files on behalf of registered readers (fuzzed through them).
HELPERS = {
    "relkit.metrics.readers.io": ("run", "qrels"),
    "relkit.metrics.readers.sources": ("run", "qrels", "subtopics", "qrels_jg", "prefs"),
    "relkit.metrics.readers.arrow_reader": ("run", "qrels"),  # files past the small-file path
    # relkit eval's large runs in blocks: the run reader's rows, or that reader decides
    # (compared in tests/test_run_stream.py)
    "relkit.metrics.readers.run_stream": ("run",),
    "relkit.metrics.readers.shapes": ("run-parquet",),
    "relkit.metrics.online.duck": ("click-log-csv", "click-log-parquet", "ab-assignments"),
    "relkit.corpora.textio": ("trec-docs", "trec-qrels", "csv-docs"),
}
# Modules that read files, but no file a user names, or not in this process.
NOT_USERS = {
    "relkit.metrics.eval.file_readers": "builds the fuzz seeds",
    "relkit.metrics.spark.inputs": "Spark reads the files on the cluster "
                                   "(tests/test_spark_eval.py)",
    "relkit.corpora.fetch": "checks and unpacks its own downloads",
    "relkit.judging.store.revisions": "the package's Alembic scripts (their revision ids)",
    "relkit.judging.store.migrate": "its own backup copy of the database (to fsync it)",
    "relkit.judging.serve.page": "the package's own page bundle",
    "relkit.judging.tui.tcss": "the package's own style sheets (judging/tui/*.tcss)",
    "relkit.judging.poolruns": "hashes the run files an adaptive pool records (read by "
                               "the run readers)",
    "relkit.metrics.core.atomic": "writes files (its docstring's example reads one back)",
    "relkit.metrics.spark.session": "appends to its own JVM log file",
    "relkit.judging.serve.limits": "reads /proc/PID/status of its own session processes",
}


def module_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["relkit", *parts])


def reading_modules() -> dict[str, str]:
    """module -> its first line that reads a file."""
    found = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for line in path.read_text(encoding="utf-8").splitlines():
                code = line.split("#", 1)[0]
                if READ.search(code) and not WRITE.search(code):
                    found[module_of(path)] = line.strip()
                    break
    return found


def test_every_module_reading_files_is_registered_or_says_why() -> None:
    registered = {READERS[n].function.partition(":")[0] for n in READERS}
    missing = {m: line for m, line in reading_modules().items()
               if m not in registered and m not in HELPERS and m not in NOT_USERS}
    assert not missing, ("register these readers in relkit.<layer>.readers (with a seed), "
                         f"or list them here with a reason: {missing}")


def test_the_lists_name_real_modules_and_readers() -> None:
    modules = set(reading_modules())
    for m in [*HELPERS, *NOT_USERS]:
        assert m in modules, f"{m} reads no file any more: drop it from the lists"
    for readers in HELPERS.values():
        assert set(readers) <= set(READERS), readers


def test_every_reader_resolves_and_reads_its_kind() -> None:
    from relkit.metrics.core.readers import resolve

    for name in READERS:
        r = READERS[name]
        assert callable(resolve(r.function)) and callable(r.reader()), name
        assert r.kinds and r.filename and r.seed_bytes(), name


def test_the_registry_loads_no_reader_module() -> None:
    """Registering costs nothing: the registry's modules import no reader."""
    import subprocess
    import sys

    code = ("import sys; from relkit.metrics.core.readers import READERS; READERS.load(); "
            "print(' '.join(sorted(sys.modules)))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    functions = {READERS[n].function.partition(":")[0] for n in READERS}
    assert not loaded & functions, sorted(loaded & functions)
