"""What a run is called in a command's output: its run tag, its file, or a given name.

Run tags repeat across files (a course's four Lucene runs all say ``STANDARD``), so
``relkit eval``'s rows, labelled by tag, could not be told apart; ``relkit compare``
names runs by file. Both take ``--names a,b,...`` (one per run, in order) and
``--name-from-file`` (declared in :mod:`relkit.metrics.commands.run_names`), read by
:func:`run_labels` here.

Standard library only: ``relkit eval``'s fast entry imports it without typer.
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def system_names(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Short unique names for run files (run tags often repeat).

    Parameters
    ----------
    paths : Sequence of str or Path
        The run files.

    Returns
    -------
    list of str
        The file stems when they are unique; otherwise the last two path
        components (then three...), as far as needed to tell the files apart.

    Examples
    --------
    >>> from relkit.metrics.commands.run_naming import system_names
    >>> system_names(["runs/bm25.txt", "runs/lm.txt"])
    ['bm25', 'lm']
    >>> system_names(["a/bm25.txt", "b/bm25.txt"])
    ['a/bm25.txt', 'b/bm25.txt']
    """
    from pathlib import PurePath  # here: relkit eval names one run without pathlib

    parts = [PurePath(p).parts for p in paths]
    for depth in range(1, max((len(p) for p in parts), default=1) + 1):
        names = ["/".join(p[-depth:]) for p in parts]
        names = [n.rsplit(".", 1)[0] if depth == 1 and "." in n[1:] else n for n in names]
        if len(set(names)) == len(names):
            return names
    return [str(p) for p in paths]


def run_labels(paths: Sequence[str | os.PathLike[str]], names: str | None, from_file: bool
               ) -> list[str] | None:
    """The label of each run file, or ``None``: label each run by its run tag.

    Parameters
    ----------
    paths : Sequence of str or Path
        The run files, as given (``-`` is stdin, named ``stdin`` from its file).
    names : str or None
        ``--names``: comma-separated, one per run, all different.
    from_file : bool
        ``--name-from-file``: :func:`system_names` of the files.

    Raises
    ------
    OptionError
        Both options at once, a count that does not match the runs, an empty or
        repeated name, or a name with white space (a TREC run tag is one word).

    Examples
    --------
    >>> from relkit.metrics.commands.run_naming import run_labels
    >>> run_labels(["a/run.txt", "b/run.txt"], None, True)
    ['a/run.txt', 'b/run.txt']
    >>> run_labels(["x.txt", "y.txt"], "bm25,lm", False)
    ['bm25', 'lm']
    >>> run_labels(["x.txt", "y.txt"], "bm25", False)
    Traceback (most recent call last):
    ...
    relkit.metrics.core.options.OptionError: Invalid value for --names: expected 2 names ...
    """
    from relkit.metrics.core.options import OptionError

    if names is not None and from_file:
        raise OptionError("--names", "give --names or --name-from-file, not both")
    if from_file:
        return [n if str(p) != "-" else "stdin"
                for p, n in zip(paths, system_names(paths), strict=True)]
    if names is None:
        return None
    given = [n.strip() for n in names.split(",")]
    if len(given) != len(paths):
        raise OptionError("--names", f"expected {len(paths)} name{'s' * (len(paths) != 1)} "
                          f"(one per run); got {len(given)}: {names!r}")
    for n in given:
        if not n or any(c.isspace() for c in n):
            raise OptionError("--names", f"a run name is one word, not empty; got {n!r}")
    twice = sorted({n for n in given if given.count(n) > 1})
    if twice:
        raise OptionError("--names", f"each run needs its own name; {', '.join(twice)} "
                          "given twice")
    return given
