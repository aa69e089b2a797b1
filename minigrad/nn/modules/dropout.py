"""Dropout modules: ``Dropout``, ``Dropout1d``, ``Dropout2d``, ``Dropout3d``, ``AlphaDropout``,
``FeatureAlphaDropout`` (``torch.nn.modules.dropout``: same constructor arguments, ``repr`` and
train/eval behaviour). Each ``forward`` is the ``F`` function of its name with
``training=self.training``.
"""
from __future__ import annotations

from .. import functional as F
from ..module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """Holds ``p`` and ``inplace`` (``torch.nn.modules.dropout._DropoutNd``).

    Raises:
        ValueError: ``p`` outside [0, 1] ("dropout probability has to be between 0 and 1, but
            got 1.5").
    """

    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero elements with probability ``p`` in training, scaling the rest by ``1/(1-p)``
    (``torch.nn.Dropout``); identity in eval mode. Any shape."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Channel dropout of (N, C, L) or (C, L) input (``torch.nn.Dropout1d``)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Channel dropout of (N, C, H, W) or (C, H, W) input (``torch.nn.Dropout2d``)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W) input (``torch.nn.Dropout3d``)."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks (``torch.nn.AlphaDropout``)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (``torch.nn.FeatureAlphaDropout``)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
