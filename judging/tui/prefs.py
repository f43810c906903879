"""What the judging screens remember across runs: the theme, and the reading width.

A small TOML file in the user's config directory, ``$XDG_CONFIG_HOME/relkit/tui.toml``
(``~/.config/relkit/tui.toml`` when the variable is unset)::

    theme = "textual-light"
    reading_width = 100   # cells of document text at most; 0: the whole pane

The app writes ``theme`` when the assessor changes it (command palette, ``ctrl+p``);
``reading_width`` is set by hand. A file that cannot be read is an error naming it,
like a keymap; one that cannot be written costs only the memory of the theme.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from relkit.judging.tui.docview import READING_WIDTH
from relkit.metrics.core.errors import RelkitError


class PrefsError(RelkitError):
    """The preferences file is malformed."""


@dataclass(frozen=True)
class Prefs:
    theme: str | None = None
    reading_width: int = READING_WIDTH


def default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "relkit" / "tui.toml"


def load(path: Path | None) -> Prefs:
    """The preferences in ``path`` (defaults if there is no such file, or no path)."""
    if path is None or not path.is_file():
        return Prefs()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PrefsError(f"{path}: not a readable TOML file ({exc})") from None
    theme = data.get("theme")
    width = data.get("reading_width", READING_WIDTH)
    if theme is not None and not isinstance(theme, str):
        raise PrefsError(f"{path}: theme must be a string; got {theme!r}")
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise PrefsError(f"{path}: reading_width must be a whole number of cells >= 0 "
                         f"(0: no limit); got {width!r}")
    return Prefs(theme, width)


def save(path: Path, prefs: Prefs, **changes: object) -> Prefs:
    """Write ``prefs`` with ``changes`` to ``path``; the new preferences.

    The file is replaced whole (written beside it, then renamed): a crash never
    leaves half a file. Errors writing it are the caller's to ignore.
    """
    new = replace(prefs, **changes)  # type: ignore[arg-type]
    lines = ["# relkit judge: remembered across runs (relkit.judging.tui.prefs)"]
    if new.theme is not None:
        lines.append(f"theme = {json.dumps(new.theme)}")  # a TOML basic string
    lines.append(f"reading_width = {new.reading_width}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
    return new
