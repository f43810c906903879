"""The agreement library builds each statistic's record once (issue 34, the test loop).

On the TREC 2010 crowd file ``relkit agree`` made about a million statistics, and each
was copied twice after it was made (``dataclasses.replace`` in ``Stat.with_intervals``
and ``Stat.with_parts``): 39 s of a 105 s run. These tests pin the cheaper path to the
numbers of the per-table one (``ci.normal`` on each table, as before), and the garbage
collector's pause to its promise (back on afterwards, also after an error).
"""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest

from relkit.judging.agreement import ci, pairwise, result


def _tables(seed: int = 3, n: int = 400, k: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, size=(n, k, k))
    t[:20] = 0                                  # no common item
    t[20:40] = 0
    t[20:40, 1, 1] = rng.integers(1, 5, 20)     # one grade each: kappa undefined
    t[40:50] = 0
    t[40:50, 0, 0] = 1                          # a single item
    return t


def test_no_record_is_copied_after_it_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    def copied(*args: object, **kwargs: object) -> None:
        raise AssertionError("a Stat was copied after it was made")

    monkeypatch.setattr(result, "replace", copied)
    monkeypatch.setattr(dataclasses, "replace", copied)
    values = np.array([0.0, 1.0, 2.0])
    for st in pairwise.REGISTRY.values():
        if not st.binary_only:
            pairwise.measure_many(st, _tables(), values, replicates=0)


@pytest.mark.parametrize("interval", ["normal", "t"])
def test_each_record_is_what_the_per_table_path_gives(interval: str) -> None:
    """Values, P_a / P_e and the analytic interval of every table, against the
    statistic's own functions and ``ci.analytic`` called on each table alone."""
    values = np.array([0.0, 1.0, 2.0])
    tables = _tables()
    for st in pairwise.REGISTRY.values():
        if st.binary_only:
            continue
        got = pairwise.measure_many(st, tables, values, replicates=0, interval=interval,
                                    level=0.9)
        vals, ses = st.compute(tables, values), st.se(tables, values)  # type: ignore[misc]
        parts = st.parts(tables, values) if st.parts is not None else None
        defined = 0
        for i, s in enumerate(got):
            if s.status != "ok":
                continue
            defined += 1
            assert s.value == float(vals[i])
            if np.isfinite(ses[i]):
                want = ci.analytic(float(vals[i]), float(ses[i]), 0.9, st.bounds, interval,
                                   s.n - 1 if st.t_reference else None)
                assert s.analytic == want, (st.name, i)
            else:
                assert s.analytic is None
            if parts is not None:
                pa, pe = float(parts[0][i]), float(parts[1][i])
                assert s.pa == (pa if np.isfinite(pa) else None)
                assert s.pe == (pe if np.isfinite(pe) else None)
            elif st.name == "percent_agreement":
                assert (s.pa, s.pe) == (s.value, None)
            else:
                assert (s.pa, s.pe) == (None, None)
        assert defined > 300, st.name
        assert sum(s.status == "undefined" for s in got) >= 20   # the empty tables at least


def test_clipped_ends_are_the_bounds() -> None:
    """A table where the normal interval runs past [-1, 1] (or [0, 1]): clipped."""
    t = np.array([[[9, 0], [0, 1]]])
    for name in ("cohen_kappa", "percent_agreement"):
        s = pairwise.measure_many(pairwise.get(name), t, np.array([0.0, 1.0]),
                                  replicates=0)[0]
        assert s.analytic is not None and s.analytic.high == 1.0


def test_the_collector_is_back_after_the_pause() -> None:
    from relkit.judging.agreement.result import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), gc_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled(), "a collector the caller turned off stays off"
    finally:
        gc.enable()


def test_overlapping_pauses_in_threads_end_with_the_last() -> None:
    """Two reports computed at once (threads): the first to finish must not switch the
    collector back on under the other, and it is on again when both have ended."""
    import threading

    from relkit.judging.agreement.result import gc_paused

    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second() -> None:
        first_in.wait(10)
        with gc_paused():
            second_in.set()
            first_out.wait(10)
            seen.append(gc.isenabled())   # the first pause has ended: still off here

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen == [False]
    assert gc.isenabled()
