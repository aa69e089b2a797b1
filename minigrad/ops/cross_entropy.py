"""``cross_entropy_loss`` (``F.cross_entropy``): an op of PyTorch's name (so autocast's policy
sees it, as PyTorch's Autocast layer does) composed, like PyTorch's ``cross_entropy_loss``, of
dispatched ops (so a dispatch mode sees ``_log_softmax`` and ``nll_loss_forward``, as a
``TorchDispatchMode`` does): ``log_softmax`` over the class dim, then
``nll_loss`` (class-index targets) or ``-(log_softmax * target).sum()`` (class probabilities), plus
the label-smoothing term. Graph nodes therefore read as PyTorch's (``NllLossBackward0`` over
``LogSoftmaxBackward0``, ``MaskedFillBackward0``, ``DivBackward1``...). Deliberate difference:
the target weights of a weighted, smoothed mean are picked by ``index`` (PyTorch: ``gather``), so
a weight that requires grad shows ``IndexBackward0`` where PyTorch shows ``GatherBackward0``.
"""
from __future__ import annotations

import math

import numpy as np

from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .loss import _check_reduction, _nll_shapes

def _class_weight_view(weight, ndim, class_dim):
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return dispatch("view", weight, tuple(shape))


def _ce_probs(input, target, weight, reduction, ls, class_dim, c):
    # PyTorch's cross_entropy_loss_prob_target, op for op (so the graph nodes match)
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {target.dtype.scalar_name}")
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = dispatch("log_softmax", input, class_dim)
    if ls > 0:
        target = dispatch("add.Scalar", dispatch("mul.Scalar", target, 1 - ls),
                          ls / c if c else math.inf)
    prod = dispatch("mul", logp, target)
    if weight is not None:
        w = _class_weight_view(weight, input.ndim, class_dim) if input.ndim > 1 else weight
        prod = dispatch("mul", prod, w)
    if reduction == "none":
        return dispatch("neg", dispatch("sum", prod, class_dim))
    total = dispatch("neg", dispatch("sum", prod))
    if reduction == "sum":
        return total
    rows = input.numel() // c if c else 0
    return dispatch("div.Scalar", total, rows if rows else float("nan"))


def _ce_smoothing(input, logp, target, weight, ignore_index, reduction, class_dim):
    # PyTorch's cross_entropy_loss_label_smoothing (the smoothing term), op for op
    ignore = np.asarray(target._data == ignore_index)
    if weight is not None:
        w = _class_weight_view(weight, input.ndim, class_dim)
        smooth = dispatch("sum", dispatch("mul", logp, w), class_dim)
    else:
        smooth = dispatch("sum", logp, class_dim)
    smooth = dispatch("masked_fill", dispatch("neg", smooth), Tensor._make(ignore), 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = np.ascontiguousarray(target._data[~ignore].reshape(-1).astype(np.int64))
            denom = dispatch("sum", dispatch("index", weight, Tensor._make(kept)))
        else:
            denom = dispatch("sum", Tensor._make(~ignore))
        return dispatch("div", dispatch("sum", smooth), denom)
    if reduction == "sum":
        return dispatch("sum", smooth)
    return smooth


@register_op("cross_entropy_loss")
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """``cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)`` of logits (``F.cross_entropy``), composed like PyTorch's
    ``cross_entropy_loss``: ``log_softmax`` over the class dim, then ``nll_loss`` for class-index
    targets or ``-(log_softmax * target).sum()`` for class-probability targets, plus the
    label-smoothing term.

    Shapes: input (C,), (N, C) or (N, C, d1, ...); target class indices (), (N,), (N, d1, ...)
    (int64/uint8) or probabilities of input's shape (floating). Output dtype: input's for
    class indices; promoted with target's for probabilities.

    Raises:
        RuntimeError: "expected target dtype to be Long or Byte, but got Float" (float targets
            of a non-matching shape), "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
            "ignore_index is not supported for floating point target", and nll_loss's errors.
        IndexError: a 0-dim input (PyTorch's "Dimension out of range ..." / "Dimension
            specified as 1 but tensor has no dimensions").
        ValueError, IndexError: as ``nll_loss``.
    """
    _check_reduction(reduction)
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError("cross_entropy(): argument 'input' and 'target' must be Tensors")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    ishape = input._data.shape      # a tuple: cheaper to read than Size
    class_dim = 0 if len(ishape) == 1 else 1
    if not ishape:
        # PyTorch: equal shapes mean class probabilities, whose checks come first
        if target.ndim == 0 and not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.scalar_name}")
        if target.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    c = ishape[class_dim]
    if ishape == target._data.shape:
        if ignore_index != -100:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _ce_probs(input, target, weight, reduction, label_smoothing, class_dim, c)
    _nll_shapes(input, target)
    logp = dispatch("log_softmax", input, class_dim)
    nll = dispatch("nll_loss", logp, target, weight, ignore_index, reduction)
    if label_smoothing <= 0.0:
        return nll
    ret = _ce_smoothing(input, logp, target, weight, ignore_index, reduction, class_dim)
    # C++ double division: label_smoothing / 0 classes is inf (the loss is then nan or empty)
    share = label_smoothing / c if c else math.inf
    return dispatch("add", dispatch("mul.Scalar", nll, 1 - label_smoothing),
                    dispatch("mul.Scalar", ret, share))
