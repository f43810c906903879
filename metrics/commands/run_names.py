"""What a run is called in a command's output: its run tag, its file, or a given name.

Run tags repeat across files (a course's four Lucene runs all say ``STANDARD``), so
``relkit eval``'s rows, labelled by tag, could not be told apart; ``relkit compare``
names runs by file. Both take ``--names a,b,...`` (one per run, in order) and
``--name-from-file``, declared here once (:data:`NamesOption`,
:data:`NameFromFileOption`) and read by :func:`run_labels`
(:mod:`relkit.metrics.commands.run_naming`, importable from here too).

Standard library and typer only: ``relkit eval`` imports it before any work.
"""

from __future__ import annotations

from typing import Annotated

import typer

from relkit.metrics.commands.run_naming import run_labels, system_names

__all__ = ["NAMES_HELP", "NAME_FROM_FILE_HELP", "NameFromFileOption", "NamesOption",
           "run_labels", "system_names"]

NAMES_HELP = ("Comma-separated names for the runs, one per RUN file in order (default: "
              "each run's tag, or its file with --name-from-file)")
NAME_FROM_FILE_HELP = ("Name each run by its file (the stem; more of the path where two "
                       "stems are the same) instead of its run tag")

NamesOption = Annotated[str | None, typer.Option("--names", help=NAMES_HELP)]
NameFromFileOption = Annotated[bool, typer.Option("--name-from-file",
                                                  help=NAME_FROM_FILE_HELP)]
