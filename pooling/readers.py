"""The pooling layer's readers of users' files, registered in :data:`READERS`.

Names as dotted strings, seeds inline: see :mod:`relkit.metrics.core.readers`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relkit.metrics.core.readers import READERS, Reader


def _read_doc_texts(path: Path) -> Any:
    from relkit.pooling.cal.texts import read_texts

    return read_texts(path, "documents")


def _read_topic_texts(path: Path) -> Any:
    from relkit.pooling.cal.texts import read_texts

    return read_texts(path, "topics")


READERS.register(
    Reader("pool", ("pool file",), "relkit.pooling.pool:Pool.read",
           b"topic\tdoc\tpriority\tprovenance\n101\tD006\t1.0\tbm25:1,ql:2\n"
           b"101\tD008\t0.5\tbm25:2\n102\tD001\t1\tql:1\n", "pool.tsv"),
    Reader("pool-sample", ("pool sample",), "relkit.pooling.sample:read_sample",
           b"topic\tdoc\tstratum\tprobability\n101\tD006\t1\t1.0\n101\tD008\t2\t0.5\n",
           "sample.tsv"),
    Reader("run-groups", ("run groups",), "relkit.pooling.groups:read_groups",
           b"# run group priority\nbm25 lexical 1\nql lexical 2\ndense neural\n", "groups.txt"),
    Reader("cal-texts", ("documents' or topics' text",), "relkit.pooling.cal.texts:read_texts",
           b'{"_id": "D006", "title": "Solar", "text": "panel output"}\n'
           b"D008\theat pump running costs\n", "docs.jsonl",
           call="relkit.pooling.readers:_read_doc_texts"),
    # SMART tagged lines (Cranfield's cran.all.1400 and cran.qry): documents by .I,
    # topics by position.
    Reader("cal-texts-smart", ("documents' text (SMART)",),
           "relkit.pooling.cal.texts:read_texts",
           b".I 1\n.T\nexperimental investigation\n.A\nbrenckman,m.\n.B\nj. ae. scs. 25\n"
           b".W\nexperimental investigation of the\naerodynamics of a wing\n.I 2\n.T\n"
           b"simple shear flow\n.W\nsimple shear flow past a flat plate\n", "cran.all.1400",
           call="relkit.pooling.readers:_read_doc_texts"),
    Reader("cal-topics-smart", ("topics' text (SMART)",),
           "relkit.pooling.cal.texts:read_texts",
           b".I 001\n.W\nwhat similarity laws must be obeyed\n.I 002\n.W\n"
           b"what are the structural and aeroelastic problems\n", "cran.qry",
           call="relkit.pooling.readers:_read_topic_texts"),
)
