"""What importing a module costs: the heavy libraries it must not load at import time.

Which package may import which is checked from the import graph by the contracts in
``pyproject.toml`` (``make contracts``). What they cannot say is *when*: pandas,
scipy or matplotlib are fine inside the function that draws a chart, not at import,
where every command would pay for them. Only a fresh interpreter's ``sys.modules``
tells, so each case runs in one.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

# case: (modules imported, registries then loaded as a command's help does, must not load)
CASES = {
    # The front door: `import relkit` names its exports and loads them on first use.
    "relkit": (["relkit"], [], {"numpy", "pandas", "pyarrow", "scipy", "sqlmodel",
                                "sqlalchemy", "textual", "typer", "matplotlib"}),
    # The evaluator is under every `relkit eval`: trec_eval-speed start-up.
    "metrics": (["relkit.metrics.evaluator"], ["relkit.metrics.measures.base"], {"pandas"}),
    # compare's help and argument checks; the tests and charts load their libraries late.
    "compare": (["relkit.metrics.compare.cli"], [], {"pandas", "matplotlib", "scipy"}),
    # pool-simulate --plot draws with matplotlib, only when asked.
    "pooling": (["relkit.pooling.cli", "relkit.pooling.simulate", "relkit.pooling.reuse",
                 "relkit.pooling.sample"], ["relkit.pooling.strategies"], {"matplotlib"}),
    # ir_datasets is an optional extra, loaded for an irds-* format only.
    "corpora": (["relkit.corpora.cli", "relkit.corpora.collection", "relkit.corpora.fetch",
                 "relkit.corpora.stats", "relkit.corpora.qrels", "relkit.corpora.loaders",
                 "relkit.corpora.writers"], [], {"ir_datasets", "pandas", "matplotlib"}),
    # The systems' CLI reads the registry at start-up; indexing and scoring load the rest.
    "systems": (["relkit.corpora.systems.cli", "relkit.corpora.systems.retrieve"],
                ["relkit.corpora.systems"], {"scipy", "sklearn", "bm25s", "Stemmer", "pandas"}),
    # Click logs: DuckDB and pyarrow when a command reads a log, matplotlib for --plot.
    "clicks": (["relkit.metrics.online.cli", "relkit.metrics.online.source",
                "relkit.metrics.online.duck",
                "relkit.metrics.online.validate", "relkit.metrics.online.stats",
                "relkit.metrics.online.report", "relkit.metrics.online.plot",
                "relkit.metrics.online.convert", "relkit.metrics.online.clickmodels",
                "relkit.metrics.online.clickmodels.commands"], [],
               {"duckdb", "pyarrow", "pandas", "numpy", "matplotlib"}),
    # A/B tests: the help, option checks and power arithmetic's module load none of the
    # numerical stack; numpy/scipy/DuckDB come when a command computes.
    "ab": (["relkit.metrics.online.ab.cli", "relkit.metrics.online.ab.srm",
            "relkit.metrics.online.ab.power", "relkit.metrics.online.ab.planning",
            "relkit.metrics.online.ab.users"], [],
           {"duckdb", "pyarrow", "pandas", "numpy", "scipy", "matplotlib"}),
    # The Spark engine: PySpark (and its JVM bridge) only when a session is asked for.
    "spark": (["relkit.metrics.spark", "relkit.metrics.spark.engine",
               "relkit.metrics.spark.task", "relkit.metrics.spark.inputs",
               "relkit.metrics.spark.options", "relkit.metrics.spark.session"], [],
              {"pyspark", "py4j", "pandas"}),
    # `relkit judge` draws the topic list (sqlite3, judging/store/light.py) before the store
    # is imported in a thread: the command, the app and its first screen load none of it.
    "judge-start": (["relkit.judging.tui.cli", "relkit.judging.tui.app",
                     "relkit.judging.tui.start", "relkit.judging.tui.topics",
                     "relkit.judging.store.light"], [],
                    {"sqlalchemy", "sqlmodel", "pydantic", "alembic", "psycopg"}),
    # ... and Enter at once draws the first document (judging/tui/lightview.py) before the
    # store is open: the judging screen and its modals load none of it either.
    "judge-first-document": (["relkit.judging.tui.cli", "relkit.judging.tui.app",
                              "relkit.judging.tui.lightview", "relkit.judging.tui.judge",
                              "relkit.judging.tui.modals"], [],
                             {"sqlalchemy", "sqlmodel", "pydantic", "alembic", "psycopg"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_import_loads_no_heavy_library(case: str) -> None:
    modules, registries, heavy = CASES[case]
    code = "\n".join([f"import sys, importlib, {', '.join(modules)}",
                      *(f"importlib.import_module({r!r}).REGISTRY.load()" for r in registries),
                      "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))"])
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    assert not loaded & heavy, f"importing {modules} loads {sorted(loaded & heavy)}"
