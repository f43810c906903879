"""Online evaluation: click logs (reading, validating, summarising) and A/B tests.

Everything here aggregates with DuckDB (imported lazily, inside the functions that read
a log), so importing the package stays cheap; Python sees aggregates only.
"""
