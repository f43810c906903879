"""relkit: build and use IR test collections.

Installed, relkit is one package whose layers are sub-packages, bottom to top:
:mod:`relkit.metrics` (runs, qrels, measures, evaluation), :mod:`relkit.corpora` and
:mod:`relkit.pooling` (on metrics), :mod:`relkit.judging` (store, TUI, agreement, the CLI).
In the repository they are the top-level folders of the same names; ``pyproject.toml``
maps them here. This file lives in ``judging/_relkit/`` because the repository's top level
holds only the layers, and it must stay free of imports: ``relkit --version`` reads it.
"""

__version__ = "0.2.0"
