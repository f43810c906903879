"""The corpora layer's readers of users' files, registered in :data:`READERS`.

Names as dotted strings, seeds inline: see :mod:`relkit.metrics.core.readers`. The
loaders are generators: the fuzz test reads them to the end.
"""

from __future__ import annotations

from relkit.metrics.core.readers import READERS, Reader

_L = "relkit.corpora.loaders"
_T = "relkit.corpora.tabular"
TREC_DOCS = (b"<DOC>\n<DOCNO> D1 </DOCNO>\n<TITLE>Solar</TITLE>\n<TEXT>\nsome text\n</TEXT>\n"
             b"</DOC>\n<DOC>\n<DOCNO>D2</DOCNO>\n<TEXT>more</TEXT>\n</DOC>\n")
TREC_TOPICS = (b"<top>\n<num> Number: 101\n<title> solar panel output\n\n<desc> Description:\n"
               b"How much?\n\n<narr> Narrative:\nFigures.\n</top>\n\n<top>\n<num> 102\n"
               b"<title> heat pumps\n</top>\n")
SMART = b".I 1\n.T\nsolar panels\n.W\nsome text on panels\n.I 2\n.W\nheat pumps\n"
MANIFEST = b"""name = "tiny"
title = "A manifest whose parts are not read"
scale = "trec-dl"

[docs]
path = "docs.jsonl"
format = "jsonl-docs"

[topics]
path = "topics.trec"
format = "trec-topics"

[qrels]
path = "qrels.txt"
format = "trec-qrels"
"""

READERS.register(
    Reader("trec-docs", ("docs",), f"{_L}:trec_docs", TREC_DOCS, "docs.trec"),
    Reader("trec-topics", ("topics",), f"{_L}:trec_topics", TREC_TOPICS, "topics.trec"),
    Reader("smart-docs", ("docs",), f"{_L}:smart_docs", SMART, "docs.all"),
    Reader("smart-topics", ("topics",), f"{_L}:smart_topics", SMART, "query.text"),
    Reader("jsonl-docs", ("docs",), f"{_L}:jsonl_docs",
           b'{"_id": "D001", "title": "Showers", "text": "An electric shower"}\n'
           b'{"_id": "D002", "text": "Electric cars"}\n', "docs.jsonl"),
    Reader("jsonl-topics", ("topics",), f"{_L}:jsonl_topics",
           b'{"_id": "101", "text": "solar panels"}\n{"_id": "102", "text": "heat pumps"}\n',
           "queries.jsonl"),
    Reader("tsv-topics", ("topics",), f"{_L}:tsv_topics",
           b"101\tsolar panels\n102\theat pumps\n", "topics.tsv"),
    Reader("csv-docs", ("docs",), f"{_T}:csv_docs",
           b"id,title,text\nD1,Solar,some text\nD2,,more text\n", "docs.csv"),
    Reader("tsv-docs", ("docs",), f"{_T}:tsv_docs",
           b"id\ttitle\ttext\nD1\tSolar\tsome text\nD2\t\tmore text\n", "docs.tsv"),
    Reader("csv-topics", ("topics",), f"{_T}:csv_topics",
           b"id,text\n101,solar panels\n102,heat pumps\n", "topics.csv"),
    Reader("trec-qrels", ("qrels",), "relkit.corpora.qrels:trec_qrels",
           b"101 0 D006 3\n101 0 D008 0\n102 0 D001 2\n", "qrels.txt"),
    Reader("beir-qrels", ("qrels",), "relkit.corpora.qrels:beir_qrels",
           b"query-id\tcorpus-id\tscore\n101\tD006\t2\n102\tD001\t1\n", "test.tsv"),
    Reader("smart-rel", ("qrels",), "relkit.corpora.qrels:smart_rel",
           b"1 1 0 0\n1 3 0 0\n2 2 0 0\n", "qrels.text"),
    Reader("manifest", ("collection manifest",), "relkit.corpora.collection:Collection.load",
           MANIFEST, "collection.toml"),
)
