"""``relkit interleave simulate``'s work: its options checked in one place, then the
simulation.

:func:`simulate_runs` checks what it was asked in the order a user meets the
problems: a missing file first (a failure, exit 1, whatever else is wrong), then each
option value (a usage error naming the option), then the output's options, and only
then reads the runs (:func:`~relkit.metrics.online.interleave.simsetup.prepare`) and
runs the experiments (:func:`~relkit.metrics.online.interleave.simulate.simulate`).
The command writes the table and the plot; this module never prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError

# simulate's defaults (the same as relkit.metrics.online.interleave.simulate's, which
# imports numpy: a test keeps them equal)
SIM_METHODS = ("team-draft", "balanced", "probabilistic", "optimized")
SIM_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


@dataclass(frozen=True, kw_only=True)
class SimRequest:
    """What ``relkit interleave simulate`` was asked (its options, by their names)."""

    runs: Sequence[Path]
    qrels: Path
    preset: str | None = None
    model: Path | None = None
    methods: str = ",".join(SIM_METHODS)
    impressions: str = ",".join(str(n) for n in SIM_GRID)
    trials: int = 100
    depth: int = 10
    cutoff: int | None = None
    names: str | None = None
    seed: int = 0
    fmt: str = "tsv"
    output: Path | None = None
    plot: Path | None = None


@dataclass(frozen=True)
class Simulation:
    """The experiments' rows at each number of impressions of ``grid``."""

    request: SimRequest
    grid: list[int]
    rows: list[Any]

    def header(self) -> list[str]:
        """The table's columns."""
        from relkit.metrics.online.interleave.simulate import header

        return header(self.grid)

    def table(self) -> list[list[Any]]:
        """The table's rows."""
        from relkit.metrics.online.interleave.simulate import table_rows

        return table_rows(self.rows)

    def draw(self, path: Path) -> None:
        """The agreement against impressions (mean over pairs), as SVG at ``path``."""
        from relkit.metrics.online.interleave.simplot import agreement_plot

        r = self.request
        who = r.preset or (r.model.name if r.model is not None else "")
        agreement_plot(self.rows, path,
                       title=f"{len(r.runs)} runs, {who} users, depth {r.depth}")


def names_list(text: str) -> list[str]:
    """The non-empty items of a comma-separated list, stripped."""
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_grid(text: str) -> list[int]:
    """``--impressions``: distinct whole numbers >= 1, sorted."""
    try:
        grid = sorted({int(x) for x in names_list(text)})
    except ValueError:
        raise OptionError("--impressions", f"expected comma-separated whole numbers such "
                          f"as 10,100,1000; got {text!r}") from None
    if not grid or grid[0] < 1:
        raise OptionError("--impressions", f"expected numbers >= 1; got {text!r}")
    return grid


def parse_methods(text: str) -> list[str]:
    """``--methods``: known interleaving methods, at least one."""
    chosen = names_list(text)
    for name in chosen:
        if name not in SIM_METHODS:
            from relkit.metrics.core.registry import did_you_mean

            raise OptionError("--methods", f"unknown method {name!r}"
                              f"{did_you_mean(name, SIM_METHODS)}; expected some of "
                              f"{', '.join(SIM_METHODS)}")
    if not chosen:
        raise OptionError("--methods", "expected at least one method")
    return chosen


def run_labels(r: SimRequest) -> list[str] | None:
    """``--names`` (one per run), None when not given; every run's name must differ."""
    if len(r.runs) < 2:
        raise OptionError("RUNS", f"expected at least two runs; got {len(r.runs)}")
    labels = names_list(r.names) if r.names else None
    if labels is not None and len(labels) != len(r.runs):
        raise OptionError("--names", f"expected {len(r.runs)} names (one per run); got "
                          f"{len(labels)}")
    shown = labels or [Path(p).name.rsplit(".", 1)[0] or Path(p).name for p in r.runs]
    twice = sorted({n for n in shown if shown.count(n) > 1})
    if twice:   # the table's rows would not say which run is which
        raise OptionError("--names" if labels else "RUNS",
                          f"two runs are named {twice[0]!r}: give each run its own name "
                          "with --names A,B,...")
    return labels


def _check_users(r: SimRequest) -> None:
    from relkit.metrics.online.clickmodels.simulate import PRESETS

    if (r.model is None) == (r.preset is None):
        raise OptionError("--preset", "give exactly one of --preset (perfect, navigational "
                          "or informational) and --model FILE")
    if r.preset is not None and r.preset not in PRESETS:
        raise OptionError("--preset", f"expected {', '.join(PRESETS)}; got {r.preset!r}")


def _check_outputs(r: SimRequest) -> None:
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.tables import check_table_options

    check_table_options(r.fmt, r.output)
    if r.plot is not None:
        check_output(r.plot, "--plot")
        if r.plot.suffix.lower() != ".svg":
            raise OptionError("--plot", f"expected a file name ending in .svg; got "
                              f"{str(r.plot)!r}")


def simulate_runs(r: SimRequest) -> Simulation:
    """Check ``r`` (see the module), read its runs and qrels and run the experiments.

    Raises
    ------
    InputError
        A file that does not exist (before any option is checked).
    OptionError
        An option value it cannot take.
    TopicMismatch
        The runs do not rank the same topics, or one has no judgments.
    """
    from relkit.metrics.core.errors import InputError
    from relkit.metrics.core.progress import Bar
    from relkit.metrics.online.interleave.simsetup import prepare
    from relkit.metrics.online.interleave.simulate import simulate

    # files first: a missing one is a failure (exit 1), whatever else is wrong
    for f in (*r.runs, r.qrels, r.model):
        if f is not None and not f.is_file():
            raise InputError(f"{f}: {not_a_file(f)}")
    chosen = parse_methods(r.methods)
    grid = parse_grid(r.impressions)
    _check_users(r)
    labels = run_labels(r)
    _check_outputs(r)
    setup = prepare(list(r.runs), r.qrels, r.depth, r.cutoff or r.depth,  # paths, not text
                    preset=r.preset, model_path=r.model, names=labels)
    with Bar("simulating", total=None, unit="impressions") as bar:
        rows = simulate(setup, chosen, grid, r.trials, r.seed, progress=bar)
    return Simulation(r, grid, rows)
