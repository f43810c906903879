"""Agreement between assessors: kappa and friends, with confidence intervals.

The statistics (:mod:`.pairwise`, :mod:`.multi`, :mod:`.ci`) are pure
functions over a long frame of ``assessor, topic, doc, grade`` turned into
:class:`~relkit.judging.agreement.frame.Ratings`; they import neither the store nor
the TUI. Only :func:`relkit.judging.agreement.frame.from_store` reads the database.
"""
