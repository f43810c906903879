"""A depth pool kept as arrays (relkit.pooling.columns) writes the same bytes as the
entry-by-entry writer, and has the same entries, length and sizes."""

from __future__ import annotations

import io
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics.data import Run
from relkit.pooling.depth import depth_pool
from relkit.pooling.pool import Pool

_docs = st.lists(st.tuples(st.sampled_from(["d1", "D2", "d10", "é3", "x:y", "0042"]),
                           st.sampled_from([0.5, 1.0, 2.0])),
                 min_size=1, max_size=6, unique_by=lambda x: x[0])
_runs = st.dictionaries(st.sampled_from(["r1", "r2", "b-3", "ü4"]),
                        st.dictionaries(st.sampled_from(["1", "2", "10", "q1", "007"]), _docs,
                                        min_size=1, max_size=3),
                        min_size=1, max_size=4)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, st.none() | st.integers(1, 5))
def test_column_pool_equals_entry_pool(spec: dict[str, dict[str, list[tuple[str, float]]]],
                                       depth: int | None) -> None:
    runs = {name: Run.read("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, docs in topics.items()
                                   for d, s in docs))
            for name, topics in spec.items()}
    lazy = depth_pool(runs, depth)
    assert "_columns" in lazy.__dict__ and "entries" not in lazy.__dict__
    n, sizes = len(lazy), lazy.sizes()
    fast = io.StringIO()
    lazy.write(fast)
    entries = Pool(lazy.entries)           # builds the entries, then the plain writer
    slow = io.StringIO()
    entries.write(slow)
    assert fast.getvalue() == slow.getvalue()
    assert n == len(entries) and sizes == entries.sizes()
    assert lazy == entries


def test_column_pool_writes_a_file_and_stdout(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = {"a": Run.read("1 Q0 d2 1 2.0 a\n1 Q0 d1 2 1.0 a\n2 Q0 d1 1 1.0 a\n"),
            "b": Run.read("1 Q0 d1 1 5.0 b\n")}
    expected = "topic\tdoc\tpriority\tprovenance\n1\td1\t1.0\ta:2,b:1\n1\td2\t1.0\ta:1\n" \
               "2\td1\t1.0\ta:1\n"
    depth_pool(runs, 2).write(tmp_path / "p.tsv")
    assert (tmp_path / "p.tsv").read_text() == expected
    depth_pool(runs, 2).write(sys.stdout)
    assert capsys.readouterr().out == expected
