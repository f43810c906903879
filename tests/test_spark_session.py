"""The Spark session relkit starts: local mode, Arrow on, one session reused."""

from __future__ import annotations

import pytest

# Starting Spark costs tens of seconds: not in the inner loop (make check).
pytestmark = pytest.mark.slow


def test_session_is_local_with_arrow(spark) -> None:
    from relkit.metrics.spark.session import get_session

    assert spark.sparkContext.master == "local[2]"
    assert spark.conf.get("spark.sql.execution.arrow.pyspark.enabled") == "true"
    # No master given: the active session is reused, not a second one started.
    assert get_session() is spark
    assert spark.range(5).selectExpr("sum(id)").collect()[0][0] == 10
