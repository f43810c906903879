"""``relkit clicks simulate``'s work: simulated users on the runs' result pages, written
as a long-form click log.

Each impression picks a run uniformly at random, then one of its topics uniformly, and
shows its top ``depth`` documents; the clicks come from a fitted click model's
parameters or from a preset user over the qrels' grades (Hofmann et al. 2013). The
command parses and prints; :func:`simulate_log` checks, draws and writes, and never
prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError


@dataclass(frozen=True, kw_only=True)
class SimulatedLog:
    """What was written: impressions, clicks and rows of the log at ``output``."""

    sessions: int
    clicks: int
    rows: int
    output: Path

    def summary(self) -> str:
        """The command's one line."""
        return (f"{self.sessions:,} impressions, {self.clicks:,} clicks, {self.rows:,} rows "
                f"-> {self.output}")


def _check(runs: list[Path], output: Path, model: Path | None, preset: str | None,
           qrels: Path | None) -> None:
    from relkit.metrics.core.errors import InputError, check_output
    from relkit.metrics.online.clickmodels.simulate import PRESETS

    # files first: a missing one is a failure (exit 1), whatever else is wrong
    for f in (*runs, model, qrels):
        if f is not None and not f.is_file():
            raise InputError(f"{f}: {not_a_file(f)}")
    if (model is None) == (preset is None):
        raise OptionError("--model", "give exactly one of --model and --preset")
    check_output(output)
    if preset is not None:
        if preset not in PRESETS:
            raise OptionError("--preset", f"expected {', '.join(PRESETS)}; got {preset!r}")
        if qrels is None:
            raise OptionError("--qrels", "--preset needs --qrels (the grades)")


def _draw_pages(page_run: list[int], n_runs: int, sessions: int, rng: Any) -> Any:
    """The page of each impression: a run uniformly, then one of its topics uniformly."""
    import numpy as np

    page_run_a = np.asarray(page_run)
    run_of = rng.integers(0, n_runs, sessions)
    per_run = [np.flatnonzero(page_run_a == i) for i in range(n_runs)]
    pick = np.empty(sessions, dtype=np.int64)
    for i, idx in enumerate(per_run):
        mine = run_of == i
        pick[mine] = idx[rng.integers(0, len(idx), int(mine.sum()))] if len(idx) else -1
    if (pick < 0).any():
        raise OptionError("--runs", "a run ranks no documents")
    return pick


def _preset_clicks(preset: str, qrels: Path, pair: Any, queries: list[str],
                   docs: list[str], rng: Any) -> Any:
    import numpy as np

    from relkit.metrics.core.errors import InputError
    from relkit.metrics.data import Qrels
    from relkit.metrics.online.clickmodels.simulate import preset_probabilities, simulate_dbn

    judged = Qrels.read(qrels).to_dict()
    if not judged:  # every grade 0: a log of no clicks, silently
        raise InputError(f"{qrels}: no judgments (the preset's clicks follow them)")
    g = np.asarray([judged.get(q, {}).get(d, 0) for q, d in zip(queries, docs,
                                                                strict=True)] + [0])
    top = max((v for t in judged.values() for v in t.values()), default=1)
    click_p, stop_p = preset_probabilities(preset, g, int(top))
    cell = np.where(pair >= 0, pair, len(queries))
    return simulate_dbn(click_p[cell], stop_p[cell], 1.0, pair >= 0, rng)


def _model_clicks(model: Path, pair: Any, queries: list[str], docs: list[str],
                  rng: Any) -> Any:
    import numpy as np

    from relkit.metrics.online.clickmodels.data import ClickData
    from relkit.metrics.online.clickmodels.simulate import simulate_clicks
    from relkit.metrics.online.clickmodels.store import load

    m, _ = load(model)
    data = ClickData(pair, np.zeros(pair.shape, dtype=bool),
                     np.asarray(queries, dtype=object), np.asarray(docs, dtype=object))
    codes = m.recode(data)
    # a pair the model never saw is still shown: it takes the default parameters
    codes = np.where((pair >= 0) & (codes < 0), len(m.queries), codes)
    click = simulate_clicks(m, codes, rng)
    click &= pair >= 0
    return click


def simulate_log(runs: list[Path], output: Path, *, model: Path | None = None,
                 preset: str | None = None, qrels: Path | None = None,
                 sessions: int = 10_000, depth: int = 10, seed: int = 0) -> SimulatedLog:
    """Draw ``sessions`` impressions of ``runs``' pages and write their clicks to
    ``output`` (Parquet, long form); exactly one of ``model`` and ``preset`` (with
    ``qrels``) drives the users.

    Raises
    ------
    InputError
        A file that does not exist (before any option is checked), qrels without
        judgments.
    OptionError
        Options that cannot be taken, runs that rank no documents.
    """
    import numpy as np

    from relkit.metrics.online.clickmodels.pages import page_matrix, run_pages, write_log

    _check(runs, output, model, preset, qrels)
    queries, docs, names, pages, page_run = run_pages(runs, depth)
    if not pages:
        raise OptionError("--runs", "the runs rank no documents")
    rng = np.random.default_rng(seed)
    pick = _draw_pages(page_run, len(runs), sessions, rng)
    pair = page_matrix(pages, depth)[pick]
    if preset is not None:
        assert qrels is not None  # _check
        click = _preset_clicks(preset, qrels, pair, queries, docs, rng)
    else:
        assert model is not None
        click = _model_clicks(model, pair, queries, docs, rng)
    rows = write_log(output, pair, click, queries, docs,
                     [names[page_run[p]] for p in pick])
    return SimulatedLog(sessions=sessions, clicks=int(click.sum()), rows=rows, output=output)
