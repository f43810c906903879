"""Prediction-powered evaluation: few human labels, automatic labels for every pooled pair.

:mod:`~relkit.metrics.ppi.estimators` holds the estimators (PPI, PPI++, the classical
human-only one) under a declared sampling design; :mod:`~relkit.metrics.ppi.design` the
designs (simple random or stratified by automatic grade) and drawing a sample;
:mod:`~relkit.metrics.ppi.measures` turns runs into per-pair weights for the measures that
are linear in the labels (P@k, DCG@k) and estimates each system's mean.
"""
