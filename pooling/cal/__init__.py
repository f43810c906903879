"""Continuous active learning (CAL): a classifier over the documents' text picks
what to judge next, as in Cormack & Grossman's Baseline Model Implementation
(BMI, TREC Total Recall 2015-16).

One idea per module: :mod:`.texts` (the documents' and topics' text, read or
given), :mod:`.features` (tf-idf or hashed features of a collection),
:mod:`.batches` (BMI's growing batch size), :mod:`.model` (the classifier
trained on the judgments so far), :mod:`.strategy` (the adaptive policy the
``cal`` strategy registers). scikit-learn is imported only when a model is
trained or features are built.
"""
