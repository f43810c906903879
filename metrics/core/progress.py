"""One progress bar for every command: transient, on stderr, only on a terminal.

Silent in pipes, CI and tests; gone before results are written, so stdout
never interleaves with it. Library code takes a plain callback
(``progress(done, total)``); only the CLI builds a bar (library code raises,
only the CLI prints). rich is imported only when a bar is shown.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import Any


class Bar:
    """``with Bar("indexing docs.trec") as bar: ... bar.update(done, total)``.

    ``total=None`` shows a running count instead of a percentage. ``size=True``
    counts bytes (shown as sizes and a transfer speed: downloads) instead of
    ``unit``; :meth:`update`'s ``label`` renames the line as the work moves on
    (the file being fetched).
    """

    def __init__(self, label: str, total: int | None = None, unit: str = "", *,
                 size: bool = False) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.size = size
        self._bar: Any = None
        self._task: Any = None
        self._shown = label       # the label on screen

    def __enter__(self) -> Bar:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TransferSpeedColumn,
            )

            counts = ([DownloadColumn(), TransferSpeedColumn()] if self.size else
                      [MofNCompleteColumn(), TextColumn(self.unit)])
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), *counts,
                                 TimeElapsedColumn(), console=Console(
                                     stderr=True,  # NO_COLOR (no-color.org): plain
                                     color_system=None if os.environ.get("NO_COLOR")
                                     else "auto"),
                                 transient=True, redirect_stdout=False,
                                 redirect_stderr=False)
            self._bar.__enter__()
            self._task = self._bar.add_task(self.label, total=self.total)
        return self

    def update(self, done: int, total: int | None = None, label: str | None = None) -> None:
        """Set the count done (and the total when it becomes known, the label if given)."""
        if self._bar is not None:
            # A new label is drawn at once: between two of rich's timed refreshes (10 a
            # second) a quick step would otherwise never be named on screen.
            description = label if label is not None else self.label
            renamed, self._shown = description != self._shown, description
            self._bar.update(self._task, completed=done,
                             total=total if total is not None else self.total,
                             description=description, refresh=renamed)

    def __call__(self, done: int, total: int | None = None, label: str | None = None) -> None:
        self.update(done, total, label)

    def note(self, line: str) -> None:
        """Write one line to stderr: above the bar while it shows, plainly otherwise."""
        if self._bar is None:
            sys.stderr.write(line + "\n")
        else:  # written past rich, the line would be drawn over by the bar's next refresh
            self._bar.console.print(line, markup=False, highlight=False, emoji=False,
                                    soft_wrap=True)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)
