"""The losses of ``minigrad.nn.functional`` beyond cross entropy / NLL / MSE (``F.l1_loss``,
``F.binary_cross_entropy``, ``F.kl_div``...), with ``torch.nn.functional``'s signatures and its
Python-level steps (size checks and warnings, the legacy ``size_average``/``reduce`` flags,
broadcasting, ``kl_div``'s 'batchmean'); ``functional.py`` re-exports them. The kernels are the
ops of PyTorch's names in ``minigrad/ops/regression_loss.py``, ``binary_loss.py``,
``margin_loss.py`` and ``distribution_loss.py``; ``gaussian_nll_loss`` and
``multilabel_soft_margin_loss`` are Python compositions in PyTorch too and are composed here;
``ctc_loss`` picks the aten overload (``minigrad/ops/ctc_loss.py``) by the lengths' type.
"""
from __future__ import annotations

import math
import warnings

from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch
from ..tensor import Tensor
from ._activation_functional import logsigmoid

__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "soft_margin_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "triplet_margin_loss"]
__all__ += ["ctc_loss"]


def _legacy(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        from .functional import _legacy_reduction
        return _legacy_reduction(size_average, reduce)
    return reduction


def _size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _broadcast(input, target):
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    from ..ops._util import broadcast_shapes
    shape = broadcast_shapes(input.shape, target.shape)
    return dispatch("expand", input, shape), dispatch("expand", target, shape)


def _weighted(loss, weight, input, reduction, mean_by_weight):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = dispatch("mul", loss, weight)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return dispatch("sum", loss)
    if reduction == "mean":
        if mean_by_weight:
            return dispatch("div", dispatch("sum", loss), dispatch("sum", weight))
        return dispatch("mean", loss)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
            weight=None):
    """Mean absolute error (``F.l1_loss``): the ``l1_loss`` op on broadcast inputs (with
    PyTorch's size-mismatch warning); ``weight`` (input's shape) weighs each element and 'mean'
    then divides by ``weight.sum()``.

    Raises:
        ValueError: "Weights and input must have the same size.", an unknown reduction.
    """
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _broadcast(input, target)
    if weight is not None:
        loss = dispatch("abs", dispatch("sub", a, b))
        return _weighted(loss, weight, input, reduction, mean_by_weight=True)
    return dispatch("l1_loss", a, b, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """Smooth L1 (``F.smooth_l1_loss``): quadratic below ``beta``, linear above; ``beta=0``
    is ``l1_loss`` (as PyTorch). Inputs broadcast with PyTorch's size-mismatch warning.

    Raises:
        RuntimeError: a negative ``beta``. ValueError: an unknown reduction.
    """
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _broadcast(input, target)
    if beta == 0.0:
        return dispatch("l1_loss", a, b, reduction)
    return dispatch("smooth_l1_loss", a, b, reduction, beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Huber loss (``F.huber_loss``): ``0.5 * z**2`` below ``delta``, ``delta * (z - 0.5 *
    delta)`` above; ``weight`` (input's shape) weighs the per-element losses.

    Raises:
        RuntimeError: ``delta <= 0``. ValueError: an unknown reduction, a weight of another size.
    """
    _size_warning(input, target)
    a, b = _broadcast(input, target)
    if weight is None:
        return dispatch("huber_loss", a, b, reduction, delta)
    loss = dispatch("huber_loss", a, b, "none", delta)
    return _weighted(loss, weight, input, reduction, mean_by_weight=False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """Binary cross entropy of probabilities ``input`` in [0, 1] (``F.binary_cross_entropy``);
    ``weight`` broadcasts to the target's shape.

    Raises:
        ValueError: "Using a target size (...) that is different to the input size (...) is
            deprecated. Please ensure they have the same size.", an unknown reduction.
        RuntimeError: values outside [0, 1], mixed dtypes (the op's errors).
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None:
        from ..ops._util import broadcast_shapes
        weight = dispatch("expand", weight, broadcast_shapes(target.shape, weight.shape))
    return dispatch("binary_cross_entropy", input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight=None):
    """Binary cross entropy of logits (``F.binary_cross_entropy_with_logits``), numerically
    stable through ``log_sigmoid``; ``pos_weight`` weighs the positive term per class.

    Raises:
        ValueError: "Target size (...) must be the same as input size (...)", an unknown
            reduction.
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    return dispatch("binary_cross_entropy_with_logits", input, target, weight, pos_weight,
                    reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """KL divergence of log-probabilities ``input`` from ``target`` (``F.kl_div``);
    ``reduction='batchmean'`` divides the sum by the batch size; 'mean' (the default) warns as
    PyTorch does.

    Raises:
        RuntimeError: integer inputs. ValueError: an unknown reduction.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
        red = reduction
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = "sum" if reduction == "batchmean" else reduction
    out = dispatch("kl_div", input, target, red, log_target=log_target)
    if reduction == "batchmean" and input.ndim != 0:
        out = dispatch("div", out, input.shape[0])
    return out


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean"):
    """Poisson negative log-likelihood (``F.poisson_nll_loss``); ``input`` is the log-rate when
    ``log_input``, else the rate; ``full`` adds Stirling's term.

    Raises:
        ValueError: "foo is not a valid value for reduction".
    """
    reduction = _legacy(size_average, reduce, reduction)
    return dispatch("poisson_nll_loss", input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """Gaussian negative log-likelihood (``F.gaussian_nll_loss``), composed as PyTorch's
    Python function: ``0.5 * (log(var) + (input - target)**2 / var)`` with ``var`` clamped at
    ``eps`` (in place, under no-grad, on a clone); ``var`` a float, input's shape, or one
    dimension short/of size 1 (homoscedastic).

    Raises:
        ValueError: "var has negative entry/entries", "var is of incorrect size",
            "foo is not valid".
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = dispatch("mul", dispatch("ones_like", input), var)
    elif bool(dispatch("any", dispatch("lt", var, 0)).item()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = dispatch("unsqueeze", var, -1)
        elif input.ndim == var.ndim and \
                sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = dispatch("clone", var)
    with no_grad():
        dispatch("clamp_", var, min=eps)
    sq = dispatch("pow.Tensor_Scalar", dispatch("sub", input, target), 2)
    loss = dispatch("mul", dispatch("add", dispatch("log", var), dispatch("div", sq, var)), 0.5)
    if full:
        loss = dispatch("add", loss, 0.5 * math.log(2 * math.pi))
    if reduction == "mean":
        return dispatch("mean", loss)
    if reduction == "sum":
        return dispatch("sum", loss)
    return loss


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    """``1 - cos`` for ``target == 1``, ``max(0, cos - margin)`` for ``target == -1``
    (``F.cosine_embedding_loss``); see the ``cosine_embedding_loss`` op for shapes and errors."""
    reduction = _legacy(size_average, reduce, reduction)
    return dispatch("cosine_embedding_loss", input1, input2, target, margin, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    """``max(0, -target * (input1 - input2) + margin)`` (``F.margin_ranking_loss``).

    Raises:
        RuntimeError: "margin_ranking_loss : All input tensors should have same dimension but
            got sizes: input1: minigrad.Size([3]), input2: ..., target: ... ".
    """
    reduction = _legacy(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    return dispatch("margin_ranking_loss", input1, input2, target, margin, reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``x`` for ``target == 1``, ``max(0, margin - x)`` for ``target == -1``
    (``F.hinge_embedding_loss``)."""
    reduction = _legacy(size_average, reduce, reduction)
    return dispatch("hinge_embedding_loss", input, target, margin, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``log(1 + exp(-target * input))`` (``F.soft_margin_loss``); target of +-1."""
    reduction = _legacy(size_average, reduce, reduction)
    return dispatch("soft_margin_loss", input, target, reduction)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """Multi-class hinge loss (``F.multi_margin_loss``) of scores (N, C) or (C,) at class
    indices; fp32/fp64 only (as PyTorch's CPU kernel).

    Raises:
        ValueError: "only p == 1 and p == 2 supported", "weight must be one-dimensional".
    """
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return dispatch("multi_margin_loss", input, target, p, margin, weight, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """Multi-label one-versus-all logistic loss (``F.multilabel_soft_margin_loss``), composed as
    PyTorch's Python function: ``-(t * logsigmoid(x) + (1 - t) * logsigmoid(-x))``, times
    ``weight``, averaged over the class (last) dim, then reduced over samples.

    Raises:
        ValueError: "foo is not valid".
    """
    reduction = _legacy(size_average, reduce, reduction)
    loss = dispatch("neg", dispatch("add", dispatch("mul", target, logsigmoid(input)),
                                    dispatch("mul", dispatch("rsub.Scalar", target, 1),
                                             logsigmoid(dispatch("neg", input)))))
    if weight is not None:
        loss = dispatch("mul", loss, weight)
    class_dim = input.ndim - 1
    c = input.shape[class_dim]
    loss = dispatch("div", dispatch("sum", loss, class_dim), c)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return dispatch("mean", loss)
    if reduction == "sum":
        return dispatch("sum", loss)
    raise ValueError(reduction + " is not valid")


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """Triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with pairwise distances
    (``F.triplet_margin_loss``).

    Raises:
        ValueError: "margin must be greater than 0, got 0".
    """
    reduction = _legacy(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return dispatch("triplet_margin_loss", anchor, positive, negative, margin, p, eps, swap,
                    reduction)


_CTC_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """Connectionist temporal classification loss (``F.ctc_loss``).

    Shapes: ``log_probs`` (T, N, C) or unbatched (T, C), log-softmax outputs, fp32/fp64;
    ``targets`` (N, S) padded or (sum(target_lengths),) concatenated class indices (not
    ``blank``); ``input_lengths`` / ``target_lengths`` (N,) int tensors or int sequences (the
    ``ctc_loss.Tensor`` / ``ctc_loss.IntList`` overloads, as ``torch.ctc_loss`` picks them).
    Output: (N,) for "none" (a 0-dim tensor unbatched), else a scalar: "sum", or "mean" of each
    loss divided by its target length (at least 1). ``zero_infinity`` replaces infinite losses
    (an impossible alignment) and their gradients by zeros.

    Raises:
        ValueError: an unknown reduction ("foo is not a valid value for reduction").
        RuntimeError / NotImplementedError: the ``_ctc_loss`` op's checks (fp16/bf16 log_probs,
            blank out of range, lengths or targets of the wrong size).
    """
    if reduction not in _CTC_REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    lengths_are_tensors = isinstance(input_lengths, Tensor) and \
        isinstance(target_lengths, Tensor)
    op = "ctc_loss.Tensor" if lengths_are_tensors else "ctc_loss.IntList"
    if not lengths_are_tensors:
        input_lengths, target_lengths = _int_list(input_lengths), _int_list(target_lengths)
    return dispatch(op, log_probs, targets, input_lengths, target_lengths, blank,
                    _CTC_REDUCTIONS[reduction], zero_infinity)


def _int_list(v):
    if isinstance(v, Tensor):
        return [int(x) for x in v.reshape(-1).tolist()]
    return [int(x) for x in v]
