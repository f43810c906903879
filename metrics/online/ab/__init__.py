"""A/B tests over click logs: SRM, ratio metrics at the user, CUPED, power, monitoring.

The statistics (:mod:`.stats`, :mod:`.power`, :mod:`.sequential`) take per-unit
sufficient statistics (numpy arrays of per-user sums); :mod:`.users` builds them from a
click log with DuckDB, so Python never sees the log's rows.
"""
