"""The table options of the commands that write a table, declared once: ``--format``, ``-o``.

``relkit corpora``, ``systems``, ``pool-*`` and ``interleave`` write their tables through
:mod:`relkit.metrics.core.tables` (its registry of formats, its writer); a command takes
the two options as

    fmt: TableFormat = "tsv",
    output: TableOutput = None,

so their names, spelling and help are the same everywhere. They are ``typer`` types, so
they live here, in the layer every CLI may import that may import typer (as
:mod:`relkit.metrics.commands.numopt`), not in :mod:`relkit.metrics.core`, which stays
standard library (the import contracts in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from relkit.metrics.core.tables import FORMAT_HELP, OUTPUT_HELP

# The format of the table (one of relkit.metrics.core.tables.TABLE_FORMATS); the default
# is the command's own (every table command's is "tsv").
TableFormat = Annotated[str, typer.Option("--format", help=FORMAT_HELP)]
# Where the table goes (default: stdout).
TableOutput = Annotated[Path | None, typer.Option("-o", "--output", help=OUTPUT_HELP)]
