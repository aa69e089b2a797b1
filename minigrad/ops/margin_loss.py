"""Margin and embedding losses: ``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss``, ``triplet_margin_loss`` (composite ops, composed of dispatched ops
exactly as PyTorch's ``aten/src/ATen/native/Loss.cpp``, so graphs and 16-bit roundings follow
PyTorch's), and ``multi_margin_loss`` (a fused kernel with ``multi_margin_loss_backward``,
fp32/fp64 only, as PyTorch's CPU kernel).

Each composite is registered under its aten name so that autocast's policy sees it (PyTorch's
CPU and CUDA lists run them in fp32).
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from .loss import _check_reduction, quiet_wrap

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "MultiMarginLoss", "MultiMarginLossBackward"]

_EPSILON = 1e-12


def _apply_reduction(loss, reduction):
    """PyTorch's ``apply_loss_reduction``: ``mean()``, ``sum()`` or the loss itself."""
    _check_reduction(reduction)
    if reduction == "mean":
        return dispatch("mean", loss)
    if reduction == "sum":
        return dispatch("sum", loss)
    return loss


def _sizes(t):
    return list(t.shape)


@register_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean')`` =
    reduce(``max(0, -target * (input1 - input2) + margin)``) (``torch.margin_ranking_loss``).

    Raises:
        RuntimeError: shapes that do not broadcast. ValueError: an unknown reduction.
    """
    _check_reduction(reduction)
    out = dispatch("add", dispatch("mul", dispatch("neg", target),
                                   dispatch("sub", input1, input2)), margin)
    return _apply_reduction(dispatch("clamp_min", out, 0), reduction)


@register_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """``hinge_embedding_loss(input, target, margin=1.0, reduction='mean')``: ``x`` where
    ``target == 1``, ``max(0, margin - x)`` where ``target == -1`` (the sum of both for other
    target values, as PyTorch), reduced (``torch.hinge_embedding_loss``).

    Raises:
        RuntimeError: shapes that do not broadcast. ValueError: an unknown reduction.
    """
    _check_reduction(reduction)
    zeros = dispatch("zeros_like", input)
    margin_clamp = dispatch("clamp_min", dispatch("rsub.Scalar", input, margin), 0)
    output_margin = dispatch("where", dispatch("ne", target, 1), margin_clamp, zeros)
    output_self = dispatch("where", dispatch("ne", target, -1), input, zeros)
    return _apply_reduction(dispatch("add", output_margin, output_self), reduction)


@register_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')``:
    ``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1``, with ``cos = sum(x1 * x2) / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))``
    over the last dim, reduced (``torch.cosine_embedding_loss``).

    Shapes: inputs (N, D) with target (N,), or (D,) with a 0-D target.

    Raises:
        RuntimeError: "0D or 1D target tensor expected, multi-target not supported", "1D target
            tensor expects 2D input tensors, but found inputs with sizes [3] and [3].".
        ValueError: an unknown reduction.
    """
    _check_reduction(reduction)
    td = target.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {_sizes(input1)} and {_sizes(input2)}.")
    if td == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {_sizes(input1)} and {_sizes(input2)}.")
    prod_sum = dispatch("sum", dispatch("mul", input1, input2), td)
    mag1 = dispatch("add", dispatch("sum", dispatch("mul", input1, input1), td), _EPSILON)
    mag2 = dispatch("add", dispatch("sum", dispatch("mul", input2, input2), td), _EPSILON)
    denom = dispatch("sqrt", dispatch("mul", mag1, mag2))
    cos = dispatch("div", prod_sum, denom)
    zeros = dispatch("zeros_like", cos)
    pos = dispatch("rsub.Scalar", cos, 1)
    neg = dispatch("clamp_min", dispatch("sub", cos, margin), 0)
    out = dispatch("add", dispatch("where", dispatch("eq", target, 1), pos, zeros),
                   dispatch("where", dispatch("eq", target, -1), neg, zeros))
    return _apply_reduction(out, reduction)


@register_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction="mean"):
    """``triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
    swap=False, reduction='mean')`` = reduce(``max(d(a, p) - d(a, n) + margin, 0)``) with
    ``d = pairwise_distance(., ., p, eps)``; ``swap`` uses ``min(d(a, n), d(p, n))``
    (``torch.triplet_margin_loss``).

    Raises:
        RuntimeError: "The anchor, positive, and negative tensors are expected to have the same
            number of dimensions, but got: anchor 2D, positive 1D, and negative 2D inputs".
        ValueError: an unknown reduction.
    """
    _check_reduction(reduction)
    a, pd, nd = anchor.ndim, positive.ndim, negative.ndim
    if not a == pd == nd:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pd}D, "
                           f"and negative {nd}D inputs")
    dist_pos = dispatch("pairwise_distance", anchor, positive, p, eps)
    dist_neg = dispatch("pairwise_distance", anchor, negative, p, eps)
    if swap:
        dist_neg = dispatch("minimum", dist_neg,
                            dispatch("pairwise_distance", positive, negative, p, eps))
    out = dispatch("clamp_min", dispatch("sub", dispatch("add", dist_pos, margin), dist_neg), 0)
    return _apply_reduction(out, reduction)


# ---------------------------------------------------------------------------- multi_margin_loss

def _mm_prepare(input, target, p, weight):
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    if not input.dtype.is_floating_point or input.dtype.itemsize == 2:
        raise NotImplementedError(f'"multi_margin_loss_cpu_kernel" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    nd = input.ndim
    dim = 1 if nd == 0 else input.shape[-1]
    nframe = 1 if nd <= 1 else input.shape[0]
    if not (nd <= 2 and (target.ndim <= 1) and target.numel() == nframe):
        raise RuntimeError(f"inconsistent target size, expected {nframe} but got "
                           f"{_sizes(target)}")
    if nd == 2 and input.shape[1] == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {_sizes(input)}")
    x = input._data.reshape(nframe, dim)
    t = target._data.reshape(nframe).astype(np.int64)
    if ((t < 0) | (t >= dim)).any():
        raise IndexError("target out of range")
    w = None
    if weight is not None:
        if weight.numel() != dim:
            raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                               f"{_sizes(weight)}")
        w = weight._data.reshape(dim).astype(x.dtype)
    return x, t, w, nframe, dim


@register_op("multi_margin_loss")
class MultiMarginLoss(Function):
    """``multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction='mean')``:
    per sample ``sum_{i != y} w[y] * max(0, margin - x[y] + x[i])**p / C``, reduced
    (``torch._C._nn.multi_margin_loss``; node ``MultiMarginLossBackward0``). Input (C,) or
    (N, C) of fp32/fp64 (PyTorch's CPU kernel has no 16-bit version); target class indices.
    Double backward is not implemented (as PyTorch).

    Raises:
        RuntimeError: "only p == 1 and p == 2 supported", "inconsistent target size, expected 3
            but got [2]", weight requiring grad. IndexError: "target out of range".
        NotImplementedError: fp16/bf16 or integer input.
    """

    _backward_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, input, target, p=1, margin=1.0, weight=None, reduction="mean"):
        _check_reduction(reduction)
        if ctx.needs_input_grad[4]:
            raise RuntimeError("The function 'multi_margin_loss' is not differentiable with "
                               "respect to argument 'weight'. This input cannot have "
                               "requires_grad True.")
        x, t, w, nframe, dim = _mm_prepare(input, target, p, weight)
        cd = x.dtype.type
        rows = np.arange(nframe)
        with np.errstate(all="ignore"):
            z = cd(margin) - x[rows, t][:, None] + x
            z[rows, t] = 0
            h = np.where(z > 0, z if p == 1 else z * z, cd(0))
            if w is not None:
                h = h * w[t][:, None]
            per = np.zeros(nframe, x.dtype)
            for d in range(dim):                  # PyTorch's order: sequential over classes
                per = per + h[:, d]
            per = per / cd(dim)
        ctx.save_for_backward(input, target, weight)
        ctx.p, ctx.margin, ctx.reduction = p, margin, reduction
        if reduction == "none":
            return quiet_wrap(per.reshape(target.shape if input.ndim == 2 else ()), input.dtype)
        s = cd(0)
        for v in per:                             # sequential, in the dtype
            s = cd(s + v)
        if reduction == "mean":
            s = cd(s / cd(nframe))
        return quiet_wrap(np.asarray(s), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, t, w = ctx.saved_tensors
        return (dispatch("multi_margin_loss_backward", grad, x, t, ctx.p, ctx.margin, w,
                         ctx.reduction), None, None, None, None, None)


@register_op("multi_margin_loss_backward")
class MultiMarginLossBackward(Function):
    """``multi_margin_loss_backward(grad_output, input, target, p, margin, weight,
    reduction)``: the gradient of ``multi_margin_loss`` w.r.t. its input, as PyTorch's CPU
    kernel (``g = 1/(N*C)`` for 'mean' else ``1/C``; ``g`` or ``2*g*z`` per violated margin,
    their negated sum at the target). Not differentiable (PyTorch: ``NotImplemented``)."""

    _backward_name = "MultiMarginLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, target, p, margin, weight, reduction):
        x, t, w, nframe, dim = _mm_prepare(input, target, p, weight)
        cd = x.dtype.type
        rows = np.arange(nframe)
        g = cd(1.0 / (nframe * dim)) if reduction == "mean" else cd(1.0 / dim)
        with np.errstate(all="ignore"):
            z = cd(margin) - x[rows, t][:, None] + x
            h = np.where(z > 0, g if p == 1 else cd(2) * g * z, cd(0)).astype(x.dtype)
            if w is not None:
                h = h * w[t][:, None]
            h[rows, t] = 0
            acc = np.zeros(nframe, x.dtype)
            for d in range(dim):
                acc = acc - h[:, d]
            h[rows, t] = acc
            go = grad_output._data.astype(x.dtype)
            h = h * (go.reshape(nframe, 1) if reduction == "none" and go.ndim else go)
        return quiet_wrap(h.reshape(input.shape), input.dtype)

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("the derivative for 'multi_margin_loss_backward' is not implemented.")
