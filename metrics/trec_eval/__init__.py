"""trec_eval's own ways: its input modes (``-R prefs``, ``-R qrels_prefs``,
``-R qrels_jg``), their readers, and its text output (``%-22s\\t%s\\t%6.4f``).

The measures themselves live in :mod:`relkit.metrics.measures`; this package holds what
exists only to read and write as trec_eval does.
"""
