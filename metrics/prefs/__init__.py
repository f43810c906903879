"""Preference judgments collected pairwise: the answers file, Bradley–Terry (with ties)
aggregation, agreement and intransitivity, and export to trec_eval's preference formats.

Modules: :mod:`.answers` (the record and its reader), :mod:`.bt` (Davidson's model by
maximum likelihood), :mod:`.summary` (majority per pair, agreement, intransitive triples),
:mod:`.export` (``prefs``, ``qrels_prefs`` and graded qrels), :mod:`.cli` (``relkit prefs``).
"""
