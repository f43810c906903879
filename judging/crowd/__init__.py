"""Crowd labels to qrels: aggregating many noisy workers' labels into one per item.

A label table (:class:`relkit.judging.crowd.table.LabelTable`: item, worker,
label as integer codes) comes from a file or from the judging database; the
methods in :data:`relkit.judging.crowd.methods.METHODS` (majority vote, Wawa,
Dawid-Skene, GLAD, MACE) turn it into an :class:`~relkit.judging.crowd.result.Aggregate`
(a label and a distribution per item, and per-worker estimates). Nothing here
touches the database: the same code serves files and the store.
"""
