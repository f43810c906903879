"""Click models (Chuklin, Markov & de Rijke, *Click Models for Web Search*, 2015).

A click log is read once into integer-coded arrays (:mod:`.data`: sessions x ranks of
query-document pair codes and clicks); every model is fitted on those arrays with
numpy, by counting or by vectorised EM (no loop over sessions). Modules:

- :mod:`.data` -- :class:`~.data.ClickData`, reading a log with DuckDB, the held-out split;
- :mod:`.base` -- the model interface, log-likelihood and perplexity per rank;
- :mod:`.ctr` -- GCTR, RCTR, DCTR and the random click model (counting);
- :mod:`.cascade` -- the cascade model and SDBN (counting);
- :mod:`.pbm` -- PBM and UBM (EM); :mod:`.dbn` -- DBN, :mod:`.dcm` -- DCM, :mod:`.ccm` --
  CCM (EM), all three on the E-step of :mod:`.chain`;
- :mod:`.store` -- the versioned JSON model file; :mod:`.simulate` -- simulated users;
- :mod:`.labels` -- click-based relevance grades as qrels.

numpy is imported by these modules; nothing here is imported by ``relkit --help``.
"""
