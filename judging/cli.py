"""The one ``relkit`` command. Each package contributes its sub-commands here.

Errors: a relkit error (bad input, unknown measure...) prints one line on
stderr and exits 1; a usage error exits 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import sys

import typer

from corpora.cli import app as corpora_app
from corpora.systems.cli import app as systems_app
from judging.agreement.cli import app as agree_app
from judging.commands import app as store_app
from judging.commands import export_app, import_app
from judging.demo import app as demo_app
from judging.tui.cli import app as tui_app
from metrics.cli import app as metrics_app
from metrics.compare.cli import app as compare_app
from pooling.cli import app as pooling_app

app = typer.Typer(
    name="relkit",
    help="Build and use IR test collections: pool, judge, agree, evaluate.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
app.registered_commands.extend(metrics_app.registered_commands)
app.registered_commands.extend(compare_app.registered_commands)
app.registered_commands.extend(store_app.registered_commands)
app.registered_commands.extend(tui_app.registered_commands)
app.registered_commands.extend(demo_app.registered_commands)
app.registered_commands.extend(agree_app.registered_commands)
app.registered_commands.extend(pooling_app.registered_commands)
app.add_typer(export_app, name="export")
app.add_typer(import_app, name="import")
app.add_typer(corpora_app, name="corpora")
app.add_typer(systems_app, name="systems")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"relkit {version('relkit')}")
        raise typer.Exit()


@app.callback()
def root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors"),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit"),
) -> None:
    """relkit: exact, fast IR evaluation and test-collection building."""


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app, turning relkit errors into one line."""
    from metrics.errors import RelkitError

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        app(args=args, standalone_mode=False)
    except RelkitError as exc:
        if debug:
            raise
        sys.stderr.write(f"relkit: error: {exc}\n")
        return 1
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("relkit: aborted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        # Usage errors (bad option, missing argument) carry show() and exit_code.
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            return int(exc.exit_code)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
