"""Named actions and their default keys, in one place; grade keys come from the scale.

A TOML file can rebind any action (``[keys]`` table, action = "key")::

    [keys]
    flag = "x"
    back = "h"

The file is ``$RELKIT_KEYMAP``, else ``~/.config/relkit/keys.toml`` if it
exists, or the one given with ``relkit judge --keymap FILE``.

An action added since a keymap was written may have a default key the keymap already
gives another action (``d``, the definitions, came after keymaps binding ``d``): then
the keymap wins and the new action takes its :data:`YIELDS_TO` key, which its help line
says, rather than the keymap being refused.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from relkit.corpora.types import RelevanceScale
from relkit.metrics.core.errors import RelkitError


class KeymapError(RelkitError):
    """A keymap file is malformed or binds one key twice."""


@dataclass(frozen=True)
class Action:
    name: str
    key: str
    description: str
    short: str = ""  # the footer's label (the footer has 80 columns for all keys)


# The judging screen's actions (besides the grade keys).
DEFAULTS: tuple[Action, ...] = (
    Action("flag", "f", "Flag / unflag the document", "Flag"),
    Action("note", "n", "Write a note", "Note"),
    Action("skip", "s", "Skip: set aside, with an optional reason (r reaches it again)",
           "Skip"),
    Action("later", "l", "Judge later: to the end of the topic", "Later"),
    Action("back", "b", "Previous document", "Back"),
    Action("forward", "right", "Next document (no grade)", "Next"),
    Action("next_unjudged", "u", "Jump to the next unjudged", "Unjudged"),
    Action("revise", "r", "Revise an earlier judgment", "Revise"),
    Action("undo", "z", "Undo: back to the document just saved, to judge it again", "Undo"),
    Action("topic", "t", "Whole topic statement (again: back to the document)", "Topic"),
    Action("definitions", "d", "The grades' definitions under the document: shown or hidden "
           "(shown from 40 rows up)", "Defs"),
    Action("find", "slash", "Find in the document (Enter: back to it; n / N: next / "
           "previous match; Esc closes)", "Find"),
    Action("help", "question_mark", "Help: every key", "Help"),
    Action("topics", "escape", "Back to the topic list", "Topics"),
)


# Actions added after keymaps existed: the key each takes when a keymap gives its
# default key to another action.
YIELDS_TO = {"definitions": "D"}


def default_path() -> Path | None:
    env = os.environ.get("RELKIT_KEYMAP")
    if env:
        return Path(env)
    p = Path(os.path.expanduser("~/.config/relkit/keys.toml"))
    return p if p.is_file() else None


def load(path: Path | None, scale: RelevanceScale) -> dict[str, Action]:
    """The actions with their keys, overrides applied and clashes refused."""
    actions = {a.name: a for a in DEFAULTS}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise KeymapError(f"{path}: not a readable TOML keymap ({exc})") from None
        keys = data.get("keys") or {}
        if not isinstance(keys, dict):
            raise KeymapError(f"{path}: [keys] must be a table of action = \"key\"")
        for name, key in keys.items():
            if name not in actions:
                raise KeymapError(f"{path}: unknown action {name!r}; "
                                  f"known: {sorted(actions)}")
            if not isinstance(key, str) or not key:
                raise KeymapError(f"{path}: the key for {name!r} must be a string")
            actions[name] = Action(name, key, actions[name].description, actions[name].short)
        taken = {key: name for name, key in keys.items()}
        for name, other in YIELDS_TO.items():
            mine = actions[name]
            if name not in keys and mine.key in taken and other not in taken:
                actions[name] = Action(name, other, f"{mine.description} (on {other}: "
                                       f"your keymap gives {mine.key} to {taken[mine.key]})",
                                       mine.short)
    used: dict[str, str] = {grade_key(g): f"grade {g}" for g in scale.values}
    for a in actions.values():
        if a.key in used:
            raise KeymapError(f"{path or 'default keymap'}: key {a.key!r} is bound to both "
                              f"{used[a.key]} and {a.name!r}")
        used[a.key] = a.name
    return actions


def grade_key(value: int) -> str:
    """The key for a grade: its digit (grades 0-9); others are not on the keyboard."""
    if 0 <= value <= 9:
        return str(value)
    raise KeymapError(f"grade {value} has no digit key (grades 0-9 only)")
