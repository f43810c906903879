"""Model names -> classes (``relkit clicks fit --model NAME``), in relkit's one
:class:`~relkit.metrics.core.registry.Registry` (the order of the help texts)."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry
from relkit.metrics.online.clickmodels.base import ClickModel
from relkit.metrics.online.clickmodels.cascade import SDBN, Cascade
from relkit.metrics.online.clickmodels.ccm import CCM
from relkit.metrics.online.clickmodels.ctr import DCTR, GCTR, RCTR, RandomClickModel
from relkit.metrics.online.clickmodels.dbn import DBN
from relkit.metrics.online.clickmodels.dcm import DCM
from relkit.metrics.online.clickmodels.pbm import PBM, UBM

MODELS: Registry[type[ClickModel]] = Registry("click model", RelkitError)
MODELS.register(RandomClickModel, GCTR, RCTR, DCTR, PBM, UBM, Cascade, SDBN, DBN, DCM, CCM)
