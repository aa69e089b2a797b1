"""Distance modules (``torch.nn.modules.distance``): ``PairwiseDistance`` and
``CosineSimilarity``, with PyTorch's constructor arguments and attributes."""
from __future__ import annotations

from .. import functional as F
from ..module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim (``torch.nn.PairwiseDistance``).

    Args:
        p: the norm degree (default 2). eps: added to the difference (default 1e-6).
        keepdim: keep the reduced dim (default False).
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim`` (``torch.nn.CosineSimilarity``).

    Args:
        dim: the dim reduced (default 1). eps: the smallest norm divided by (default 1e-8).
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
