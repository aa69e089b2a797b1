"""Loss modules: ``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss`` (``torch.nn`` losses: same
constructor arguments, the class weight kept as a buffer named ``weight``)."""
from __future__ import annotations

from .. import functional as F
from ..functional import _legacy_reduction
from ..module import Module

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy between logits and class indices or probabilities
    (``torch.nn.CrossEntropyLoss``); ``forward(input, target)`` calls ``F.cross_entropy``.

    Args:
        weight: per-class weights, shape (C,), or None.
        ignore_index: target value that contributes nothing (class-index targets only).
        reduction: "none" | "mean" | "sum".
        label_smoothing: in [0, 1].
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities at class indices (``torch.nn.NLLLoss``)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error (``torch.nn.MSELoss``); reduction "none" | "mean" | "sum"."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)
