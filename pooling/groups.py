"""Pooling by group: one (or the best k) runs per team, as TREC pools.

TREC pools a fixed number of runs per participating group, chosen by the
priority the group gave its submissions (Voorhees & Harman, *TREC*, 2005,
ch. 2: "the pools were formed from the runs the groups ranked highest"), so a
team with ten runs does not weigh ten times a team with one.

Where the groups come from:

* a map file of ``run group [priority]`` lines (``#`` comments and blank lines
  skipped). ``priority`` is an int, 1 the run pooled first; without it, a
  group's runs are in the order of the file's lines;
* or a run-name prefix: the group is the run's name up to the first ``sep``
  (``uwat-bm25`` with ``-``: ``uwat``; a name without ``sep`` is its own
  group), the runs of a group in command-line order.

The rule (:func:`select_runs`): for each group, its runs sorted by priority
(then by the map's line order, or for prefixes the command-line order), the
first ``k`` kept. The kept runs keep the caller's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from relkit.pooling.errors import PoolingError


@dataclass(frozen=True)
class Groups:
    """``group[run]`` and ``order[run]`` (smaller: pooled first) for the runs known."""

    group: dict[str, str]
    order: dict[str, tuple[int, int]]
    source: str = "--group-prefix"


def read_groups(path: str | Path) -> Groups:
    """A ``run group [priority]`` map file (priority: an int, 1 first)."""
    from relkit.metrics.core.errors import check_utf8, open_error

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise open_error(path, exc) from None
    group: dict[str, str] = {}
    order: dict[str, tuple[int, int]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        check_utf8(str(path), n, line)
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in (2, 3):
            raise PoolingError(f"{path}:{n}: expected 'run group [priority]', got {line!r}")
        run = parts[0]
        if run in group:
            raise PoolingError(f"{path}:{n}: run {run!r} again (each run once)")
        prio = 0
        if len(parts) == 3:
            try:
                prio = int(parts[2])
            except ValueError:
                raise PoolingError(f"{path}:{n}: expected an int priority (1 first), got "
                                   f"{parts[2]!r}") from None
        group[run] = parts[1]
        order[run] = (prio, n)
    return Groups(group, order, str(path))


def prefix_groups(runs: Sequence[str], sep: str) -> Groups:
    """Groups by run-name prefix up to the first ``sep``, in the order of ``runs``."""
    if not sep:
        raise PoolingError("the group prefix separator must not be empty")
    return Groups({r: r.split(sep, 1)[0] for r in runs},
                  {r: (0, i) for i, r in enumerate(runs)})


def select_runs(runs: Sequence[str], groups: Groups, k: int | None) -> list[str]:
    """The first ``k`` runs of each group by priority (None: every run), in ``runs`` order.

    A run the groups do not name is an error (a map file must list every run).
    """
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise PoolingError(f"The 'runs per group' must be an int >= 1; got {k!r}")
    missing = [r for r in runs if r not in groups.group]
    if missing:
        raise PoolingError(f"{groups.source}: no group for run {missing[0]!r}"
                           + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    members: dict[str, list[str]] = {}
    for r in runs:
        members.setdefault(groups.group[r], []).append(r)
    keep: set[str] = set()
    for rs in members.values():
        keep.update(sorted(rs, key=lambda r: groups.order[r])[:k])
    return [r for r in runs if r in keep]


def parse_run_depths(items: Sequence[str], runs: Mapping[str, object], default: int
                     ) -> dict[str, int] | int:
    """``--depth-of RUN=K`` (repeatable) over a default depth: a per-run mapping.

    Returns the default itself when no item is given (one depth for all).
    """
    from relkit.metrics.core.params import parse_assignments

    given = parse_assignments(items, "--depth-of", PoolingError)
    if not given:
        return default
    out = dict.fromkeys(runs, default)
    for run, value in given.items():
        if run not in runs:
            from difflib import get_close_matches

            close = get_close_matches(run, list(runs), n=1)
            raise PoolingError(f"no run named {run!r}" + (f"; did you mean {close[0]!r}?"
                                                          if close else ""))
        try:
            k = int(value)
        except ValueError:
            k = 0
        if k < 1:
            raise PoolingError(f"the depth of run {run!r} must be an int >= 1; got {value!r}")
        out[run] = k
    return out


def parse_topic_budgets(items: Sequence[str]) -> dict[str, int]:
    """``--budget-of TOPIC=N`` (repeatable): judgments for these topics."""
    from relkit.metrics.core.params import parse_assignments

    out = {}
    for topic, value in parse_assignments(items, "--budget-of", PoolingError).items():
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n < 1:
            raise PoolingError(f"the budget of topic {topic!r} must be an int >= 1; "
                               f"got {value!r}")
        out[topic] = n
    return out
