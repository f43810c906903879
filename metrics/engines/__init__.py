"""relkit's built-in single-machine engines (``local``, ``duckdb``); the Spark engine is
:mod:`relkit.metrics.spark`. Found through :data:`relkit.metrics.core.engines.ENGINES`,
never imported by the code that uses them."""
