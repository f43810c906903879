"""Model names -> classes (``relkit clicks fit --model NAME``)."""

from __future__ import annotations

from relkit.metrics.online.clickmodels.base import ClickModel
from relkit.metrics.online.clickmodels.cascade import SDBN, Cascade
from relkit.metrics.online.clickmodels.ccm import CCM
from relkit.metrics.online.clickmodels.ctr import DCTR, GCTR, RCTR, RandomClickModel
from relkit.metrics.online.clickmodels.dbn import DBN
from relkit.metrics.online.clickmodels.dcm import DCM
from relkit.metrics.online.clickmodels.pbm import PBM, UBM

MODELS: dict[str, type[ClickModel]] = {
    cls.name: cls for cls in (RandomClickModel, GCTR, RCTR, DCTR, PBM, UBM, Cascade, SDBN, DBN,
                               DCM, CCM)
}
