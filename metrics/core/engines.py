"""The one door to relkit's engines: the :class:`Engine` protocol and :data:`ENGINES`.

An engine is where the heavy sums run: ``local`` (numpy, in this process), ``duckdb``
(DuckDB reads the click logs, out of core; the sums are numpy's) and ``spark`` (Apache
Spark: runs, click logs and EM sums on a cluster). Every engine does the same three
things, and callers ask for them by the protocol's public names only:

- evaluate runs to per-topic values (summed by :meth:`Evaluator.finish`, the one code
  that prints the numbers);
- give the sufficient statistics of one EM iteration of a chain click model (the model
  owns its M-step: :class:`relkit.metrics.online.clickmodels.sums.ChainModel`);
- read a click log to a relation (checked against the one click-log contract of
  :mod:`relkit.metrics.online.fields`).

Today only the evaluation is asked for through the protocol (by ``Evaluator`` and
``relkit eval`` for an engine other than ``local``); ``clicks fit`` and ``ab analyze``
call the local code directly and, on Spark, the Spark engine's own ``fit_clicks`` and
``user_table`` (docs/engines.md, "What the commands use today").

Callers never import an engine: they look it up here by the name a user typed
(``--engine spark``, ``Evaluator(engine="spark")``). The built-in engines are the
providers of :data:`ENGINES`, imported on first use (so the engine modules may import
the evaluator and the click models they run, and nothing imports them back: the
contracts in pyproject.toml check it). A name that is not built in is looked up, and
loaded, in the entry-point group ``relkit.engines`` (see docs/engines.md): a third-party
package adds an engine without editing relkit.

Standard library only (the contracts on :mod:`relkit.metrics.core`): the protocol names
relkit's types in strings, without importing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry

# The entry-point group third-party engines register in (``pyproject.toml``:
# ``[project.entry-points."relkit.engines"] name = "package.module:Engine"``).
GROUP = "relkit.engines"


class EngineError(RelkitError):
    """An unknown engine, or one that cannot do what it was asked."""


@runtime_checkable
class Engine(Protocol):
    """What every engine does; a third-party engine implements the same names.

    Attributes
    ----------
    name
        What ``--engine`` and ``engine=`` call it.
    """

    @property
    def name(self) -> str: ...

    def read_qrels(self, source: Any, master: str | None) -> Any:
        """The qrels at ``source`` (a path this engine reads) as a ``Qrels``."""
        ...

    def evaluate(self, evaluator: Any, runs: Sequence[Any], zscores: Any = None
                 ) -> list[tuple[str, Any]]:
        """Each run's label (its path, or the file a glob matched) and ``Result``: the
        per-topic values of ``evaluator``'s measures, summed by ``evaluator.finish``."""
        ...

    def em_sums(self, model: Any, sessions: Any, theta: Any, into: dict[str, Any]
                ) -> dict[str, Any]:
        """The sufficient statistics of one EM iteration of the chain click ``model`` at
        parameters ``theta`` over ``sessions`` (this engine's distinct sessions), added
        into ``into``; with ``theta`` None, the model's fixed counts."""
        ...

    def read_click_log(self, path: Any, *, mapping: dict[str, str] | None = None,
                       master: str | None = None) -> Any:
        """The click log at ``path`` as this engine's relation, after the click-log
        contract's checks (columns, types, one result per rank...)."""
        ...


class EngineRegistry(Registry[Engine]):
    """:class:`Registry` of engines, which also finds third-party engines by entry point.

    A name that no built-in engine has is looked up in the entry-point group
    :data:`GROUP`, and only then: installed plugins are not imported for the built-in
    engines. The entry point names an engine object or a class (called with no
    arguments); it is registered under its entry-point name on first use.
    """

    def lookup(self, name: str) -> Engine:
        self.load()
        if self._fold(name) not in self._keys:
            self._load_plugin(name)
        return super().lookup(name)

    def _load_plugin(self, name: str) -> None:
        found = entry_points(group=GROUP, name=name)
        for ep in found:
            # A broken plugin is one line naming it, whether its import, its class's
            # constructor or its ``name`` raises: plugin code runs only inside this try.
            try:
                obj = ep.load()
                engine = obj() if isinstance(obj, type) else obj
                called = engine.name if isinstance(engine, Engine) else None
            except Exception as exc:
                raise EngineError(f"engine {name!r} (entry point {ep.value!r}) could not "
                                  f"be loaded: {type(exc).__name__}: {exc}") from None
            if called is None:
                raise EngineError(f"engine {name!r} (entry point {ep.value!r}) is not an "
                                  "Engine (see docs/engines.md)")
            if called != name:
                raise EngineError(f"engine {name!r} (entry point {ep.value!r}) calls itself "
                                  f"{called!r}")
            self.register(engine)
            return

    def installed(self) -> list[str]:
        """The built-in engines' names, then those of the installed plugins."""
        plugins = sorted({ep.name for ep in entry_points(group=GROUP)} - set(self.names()))
        return [*self.names(), *plugins]


ENGINES: EngineRegistry = EngineRegistry(
    "engine", EngineError,
    providers=("relkit.metrics.engines.local", "relkit.metrics.engines.duckdb",
               "relkit.metrics.spark.spark_engine"))


def engine(name: str) -> Engine:
    """The engine called ``name`` (built in, or a plugin's); else :class:`EngineError`."""
    return ENGINES.lookup(name)
