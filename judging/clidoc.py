"""The CLI reference (docs/cli.md), generated from the commands themselves.

    python -m relkit.judging.clidoc > docs/cli.md

Walks the Typer app through Click, so every command, option and default in
the reference is the one the code has; tests/test_docs.py fails when the file
is stale.
"""

from __future__ import annotations

from typing import Any

import typer

from relkit.judging.cli import COMMANDS, full_app

CONVENTIONS = """## Conventions (every command)

- **Exit status**: 0 done; 1 a failure (bad input in a file, a file that cannot be read
  or written, a database that is not one), one line on stderr naming it; 2 a usage
  error: an unknown option, a missing argument, or a value an option cannot take
  (`--depth abc`, `--format xml`, `--strategy dpeth`, `-m ndgc@10`). `--debug` (before
  the command) shows the traceback. A closed pipe (`relkit eval ... | head -1`) ends the
  command quietly with status 0.
- **stdout is data, stderr is diagnostics**: `--quiet` silences the diagnostics and the
  progress bars (not the data, not the errors).
- **Several files after one option**: an option that takes files (`agree --runs`) takes
  every value up to the next option, so a shell glob works: `relkit agree a.qrels
  b.qrels --runs runs/*.txt`. Put positional arguments before it, or end the list with
  `--`: `relkit agree --runs runs/*.txt -- a.qrels b.qrels`. `--runs=FILE` is one value.
- **One name per idea**: `--db` is the judging database wherever one is meant
  (`$RELKIT_DB` by default, except for `pool`, whose `--into` is an alias); `-o/--output`
  writes a command's table to a file and `--format` chooses how (`tsv`, `csv`, `json`,
  `markdown`; `eval`, `compare`, `agree` and `status` have formats of their own).
- **stdin**: `-` for the qrels reads them from stdin (`relkit eval - run.txt < qrels`;
  `compare` and the `pool-*` diagnostics too); `relkit eval qrels -` reads a run; not
  both.
- **Colour**: `NO_COLOR` set (no-color.org) makes every help and table plain text.
"""


# Typer vendors Click privately (typer._click), so commands are walked by duck typing.
def _walk(cmd: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    out = [(path, cmd)]
    for name in sorted(getattr(cmd, "commands", {}) or {}):
        out += _walk(cmd.commands[name], path + [name])
    return out


def _param(p: Any) -> str:
    if p.param_type_name == "argument":
        rep = " (repeatable)" if p.nargs == -1 else ""
        name = (p.metavar or p.name).upper()
        return f"| `{name}` | argument{rep} | {getattr(p, 'help', '') or ''} |"
    names = ", ".join(f"`{o}`" for o in p.opts + p.secondary_opts)
    default = "" if p.default in (None, False, (), [], "") or p.is_flag and not p.default \
        else f" (default: `{p.default}`)"
    env = f" (env: `{p.envvar}`)" if p.envvar else ""
    kind = "option (required)" if p.required else "option"
    return f"| {names} | {kind} | {(p.help or '').replace('|', '/')}{default}{env} |"


def cli_markdown() -> str:
    root = typer.main.get_command(full_app())
    lines = ["# relkit command reference", "",
             "Generated from the commands by `python -m relkit.judging.clidoc > docs/cli.md`;",
             "`relkit COMMAND --help` shows the same.", "", CONVENTIONS]
    lines += ["## Commands by task", "", "As `relkit --help` groups them.", ""]
    by_section: dict[str, list[str]] = {}
    for name, entry in COMMANDS.items():
        by_section.setdefault(entry.section, []).append(f"[`{name}`](#relkit-{name})")
    lines += [f"- **{section}**: {', '.join(names)}" for section, names in by_section.items()]
    lines.append("")
    for path, cmd in _walk(root, ["relkit"]):
        if cmd.hidden:
            continue
        lines += [f"## `{' '.join(path)}`", ""]
        if cmd.help:
            lines += [cmd.help.strip(), ""]
        params = [p for p in cmd.params if not getattr(p, "hidden", False)
                  and p.name not in ("help", "install_completion", "show_completion")]
        if params:
            lines += ["| parameter | kind | meaning |", "|---|---|---|"]
            lines += [_param(p) for p in params]
            lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(cli_markdown(), end="")
