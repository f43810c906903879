"""A value an option cannot take: a usage error (exit 2), not a failure (exit 1).

The ``relkit`` commands tell the two apart: ``--format xml`` or ``--strategy dpeth`` is
the command line's fault and exits 2, like every usage error; a missing file, a database
that is not one or bad data in a file exit 1. Library code raises its own errors
(``unknown pooling strategy 'dpeth'``) without knowing about options; a command checks
an option's value inside :func:`option_value`, which re-raises them as
:class:`OptionError` naming the option as the user typed it. The CLI root turns that
into click's usage error (``relkit pool: error: Invalid value for --strategy: ...``).

Standard library only: every layer's CLI imports it (see the contracts on
``relkit.metrics.core`` in pyproject.toml).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from relkit.metrics.core.errors import RelkitError


class OptionError(RelkitError):
    """``option``'s value cannot be taken: ``message`` says why (exit status 2)."""

    exit_code = 2

    def __init__(self, option: str | None, message: str) -> None:
        # option None: the options together cannot be taken (click's "Invalid value: ...")
        super().__init__(f"Invalid value for {option}: {message}" if option is not None
                         else f"Invalid value: {message}")
        self.option = option
        self.message = message


@contextlib.contextmanager
def option_value(option: str) -> Iterator[None]:
    """Errors raised in the block are about ``option``'s value (a usage error).

    >>> with option_value("--budget"):
    ...     raise RelkitError("expected ints")
    Traceback (most recent call last):
    ...
    relkit.metrics.core.options.OptionError: Invalid value for --budget: expected ints
    """
    try:
        yield
    except OptionError:
        raise
    except RelkitError as exc:
        raise OptionError(option, str(exc)) from None
