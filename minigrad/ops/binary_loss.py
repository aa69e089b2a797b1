"""Losses of binary targets: ``binary_cross_entropy`` (+ ``binary_cross_entropy_backward``),
``binary_cross_entropy_with_logits`` and ``soft_margin_loss`` (+ ``soft_margin_loss_backward``).

Numerics, as PyTorch's CPU kernels (``aten/src/ATen/native/Loss.cpp``):
- ``binary_cross_entropy`` is a scalar ``cpu_kernel`` in ``scalar_t``: for fp16/bf16 every
  ``c10::Half``/``BFloat16`` operation rounds, and ``log``/``log1p`` run in fp32 (here: correctly
  rounded) and round; ``(t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)``. Its backward
  ``grad * (x - t) / max((1 - x) * x, EPSILON)`` likewise (``EPSILON = 1e-12`` is 0 in fp16).
- ``binary_cross_entropy_with_logits`` and ``soft_margin_loss`` are chains of whole-tensor ATen
  ops inside one kernel (``log_sigmoid``, ``mul_``, ``sub_``...; ``neg``, ``mul_``, ``exp_``,
  ``log1p_``): each step rounds once into the storage dtype.
- 'mean'/'sum' reduce the stored per-element losses in fp32 and round once.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes
from .loss import _check_reduction, _rounder, apply_reduction, quiet_wrap
from .smooth_activation import LogSigmoid, _exp, _log1p

__all__ = ["BinaryCrossEntropy", "BinaryCrossEntropyBackward", "BinaryCrossEntropyWithLogits",
           "SoftMarginLoss", "SoftMarginLossBackward"]

_EPSILON = 1e-12


def _log(a):
    return np.log(a) if a.dtype == np.float64 else np.log(a.astype(np.float64)).astype(a.dtype)


def _not_differentiable(ctx, index, op, arg):
    if ctx.needs_input_grad[index]:
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument "
                           f"'{arg}'. This input cannot have requires_grad True.")


def _same_dtype(expected, *others):
    for t in others:
        if t is not None and t.dtype is not expected.dtype:
            raise RuntimeError(f"Found dtype {t.dtype.scalar_name} but expected "
                               f"{expected.dtype.scalar_name}")


def _load(t, dt):
    return t._data.astype(dt.np).astype(_dt.opmath_dtype(dt).np)


def _check_tensors(op, **named):
    for name, t in named.items():
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")


# ---------------------------------------------------------------------------- binary_cross_entropy

@register_op("binary_cross_entropy")
class BinaryCrossEntropy(Function):
    """``binary_cross_entropy(input, target, weight=None, reduction='mean')``: per element
    ``-w * (t * log(x) + (1 - t) * log(1 - x))`` with each log clamped at -100, reduced
    (``torch._C._nn.binary_cross_entropy``; ``F.binary_cross_entropy`` checks the sizes and
    expands ``weight``). Input, target and weight share one dtype and one shape; differentiable
    in input and target (``BinaryCrossEntropyBackward0``), not in weight.

    Raises:
        RuntimeError: "all elements of input should be between 0 and 1" (and of target),
            "Found dtype Double but expected Float", weight requiring grad.
        ValueError: an unknown reduction.
    """

    _backward_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, input, target, weight=None, reduction="mean"):
        _check_reduction(reduction)
        _check_tensors("binary_cross_entropy", input=input, target=target, weight=weight)
        _same_dtype(input, target, weight)
        _not_differentiable(ctx, 2, "binary_cross_entropy", "weight")
        dt = input.dtype
        if not dt.is_floating_point:
            raise NotImplementedError(f'"binary_cross_entropy" not implemented for '
                                      f"'{dt.scalar_name}'")
        if input.shape != target.shape:
            raise RuntimeError(f"The size of tensor a ({input.shape}) must match the size of "
                               f"tensor b ({target.shape})")
        x, t = _load(input, dt), _load(target, dt)
        if not ((x >= 0) & (x <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not ((t >= 0) & (t <= 1)).all():
            raise RuntimeError("all elements of target should be between 0 and 1")
        rnd = _rounder(dt)
        cd = x.dtype.type
        lo = cd(-100)
        with np.errstate(all="ignore"):
            a = np.maximum(rnd(_log1p(-x)), lo)
            b = np.maximum(rnd(_log(x)), lo)
            loss = rnd(rnd(rnd(t - cd(1)) * a) - rnd(t * b))
            if weight is not None:
                loss = rnd(loss * np.broadcast_to(_load(weight, dt), loss.shape))
        ctx.save_for_backward(input, target, weight)
        ctx.reduction = reduction
        return apply_reduction(loss, reduction, dt)

    @staticmethod
    def backward(ctx, grad):
        x, t, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = dispatch("binary_cross_entropy_backward", grad, x, t, w, ctx.reduction) \
            if n[0] else None
        gt = _bce_target_grad(grad, x, t, w, ctx.reduction) if n[1] else None
        return gx, gt, None, None


def _bce_target_grad(grad, x, t, w, reduction):
    """PyTorch's ``binary_cross_entropy_target_backward``: ``-logit(x) * grad [* w] [/ n]``
    (``logit`` composed as ``log(x / (1 - x))``: three roundings in 16-bit where PyTorch's
    fused ``logit`` has one)."""
    logit = dispatch("log", dispatch("div", x, dispatch("rsub.Scalar", x, 1)))
    g = dispatch("mul", dispatch("neg", logit), grad)
    if w is not None:
        g = dispatch("mul", g, w)
    if reduction == "mean":
        g = dispatch("div", g, t.numel())
    return g


@register_op("binary_cross_entropy_backward")
class BinaryCrossEntropyBackward(Function):
    """``binary_cross_entropy_backward(grad_output, input, target, weight, reduction)``:
    ``grad * (x - t) / max((1 - x) * x, 1e-12)`` (every step rounded in 16-bit, as ATen's
    scalar kernel), times ``weight``, divided by ``numel`` for 'mean'; input's shape and dtype
    (``BinaryCrossEntropyBackwardBackward0``)."""

    _backward_name = "BinaryCrossEntropyBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, target, weight=None, reduction="mean"):
        dt = input.dtype
        rnd = _rounder(dt)
        x, t = _load(input, dt), _load(target, dt)
        g = np.broadcast_to(_load(grad_output, dt), x.shape)
        cd = x.dtype.type
        eps = rnd(cd(_EPSILON))
        with np.errstate(all="ignore"):
            den = np.maximum(rnd(rnd(cd(1) - x) * x), eps)
            out = rnd(rnd(g * rnd(x - t)) / den)
            if weight is not None:
                out = rnd(out * np.broadcast_to(_load(weight, dt), x.shape))
            if reduction == "mean":
                out = out / _dt.opmath_dtype(dt).np.type(x.size)
        ctx.save_for_backward(grad_output, input, target, weight)
        ctx.reduction = reduction
        return quiet_wrap(out, dt)

    @staticmethod
    def backward(ctx, gg):
        # derivatives.yaml: binary_cross_entropy_double_backward{,_grad_output,_target}
        g, x, t, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        one_minus = dispatch("rsub.Scalar", x, 1)
        den = dispatch("clamp_min", dispatch("mul", one_minus, x), _EPSILON)
        scale = gg if w is None else dispatch("mul", gg, w)
        if ctx.reduction == "mean":
            scale = dispatch("div", scale, x.numel())
        dg = dx = dt_ = None
        if n[0]:
            dg = dispatch("mul", dispatch("div", dispatch("sub", x, t), den), scale)
            if ctx.reduction != "none":
                dg = dispatch("sum", dg)
        if n[1]:
            # d/dx (x - t) / (x (1 - x)) = (x (1 - x) - (x - t)(1 - 2x)) / (x (1 - x))^2
            num = dispatch("sub", dispatch("mul", one_minus, x),
                           dispatch("mul", dispatch("sub", x, t),
                                    dispatch("rsub.Scalar", dispatch("mul", x, 2), 1)))
            dx = dispatch("mul", dispatch("div", num, dispatch("mul", den, den)),
                          dispatch("mul", scale, g))
        if n[2]:
            dt_ = dispatch("neg", dispatch("div", dispatch("mul", scale, g), den))
        return dg, dx, dt_, None, None


# ---------------------------------------------------------------------------- with logits

@register_op("binary_cross_entropy_with_logits")
class BinaryCrossEntropyWithLogits(Function):
    """``binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction='mean')``: ``(1 - t) * x - log_sigmoid(x) * (1 + (pos_weight - 1) * t)``, times
    ``weight``, reduced (``torch.binary_cross_entropy_with_logits``), step by step as PyTorch's
    kernel. weight and pos_weight broadcast; the result promotes input with target (PyTorch's
    in-place steps keep the first operand's dtype); node ``BinaryCrossEntropyWithLogitsBackward0``,
    whose backward is composed of dispatched ops as PyTorch's.

    Raises:
        RuntimeError: weight or pos_weight requiring grad; shapes that do not broadcast.
        NotImplementedError: an integer input ('"log_sigmoid_cpu" not implemented for 'Long'').
        ValueError: an unknown reduction.
    """

    _backward_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, input, target, weight=None, pos_weight=None, reduction="mean"):
        _check_reduction(reduction)
        _check_tensors("binary_cross_entropy_with_logits", input=input, target=target,
                       weight=weight, pos_weight=pos_weight)
        op = "binary_cross_entropy_with_logits"
        _not_differentiable(ctx, 2, op, "weight")
        _not_differentiable(ctx, 3, op, "pos_weight")
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for "
                                      f"'{input.dtype.scalar_name}'")
        xd = input.dtype
        # (1 - target) keeps target's dtype, then .mul_(input) computes in place in it
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{target.dtype.scalar_name}")
        rt = target.dtype
        rx = _rounder(xd)
        rr = _rounder(rt)
        shapes = [input.shape, target.shape] + [w.shape for w in (weight, pos_weight)
                                                if w is not None]
        shape = broadcast_shapes(*shapes)
        if tuple(shape) != tuple(target.shape):
            dispatch("expand", target, shape)       # raises PyTorch's in-place broadcast error
        with np.errstate(all="ignore"):
            x = _load(input, xd)
            ls = rx(LogSigmoid.kernel(xd, x))
            cd = _dt.opmath_dtype(_dt.promote_types(rt, xd)).np
            t = _load(target, rt).astype(cd)
            if pos_weight is not None:
                pd = _dt.promote_types(pos_weight.dtype, rt)
                rp, rpw = _rounder(pd), _rounder(pos_weight.dtype)
                pw = _load(pos_weight, pos_weight.dtype).astype(cd)
                lw = rp(rp(rpw(pw - 1) * t) + 1)
                ls = rx(ls * lw)
            loss = rr(rr(rr(cd.type(1) - t) * x.astype(cd)) - ls)
            if weight is not None:
                loss = rr(loss * _load(weight, weight.dtype).astype(cd))
            loss = np.broadcast_to(loss, shape)
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.reduction = reduction
        return apply_reduction(loss, reduction, rt)

    @staticmethod
    def backward(ctx, grad):
        x, t, w, pw = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = gt = None
        if n[0]:        # binary_cross_entropy_with_logits_backward
            if pw is not None:
                pt = dispatch("mul", pw, t)
                gx = dispatch("sub", dispatch("mul", dispatch("sub", dispatch("add", pt, 1), t),
                                              dispatch("sigmoid", x)), pt)
            else:
                gx = dispatch("sub", dispatch("sigmoid", x), t)
            gx = _scale_back(dispatch("mul", gx, grad), w, ctx.reduction, x.numel())
        if n[1]:        # binary_cross_entropy_with_logits_target_backward
            if pw is not None:
                gt = dispatch("sub", dispatch("log_sigmoid", dispatch("neg", x)),
                              dispatch("mul", dispatch("log_sigmoid", x), pw))
                gt = dispatch("mul", gt, grad)
            else:
                gt = dispatch("mul", dispatch("neg", x), grad)
            gt = _scale_back(gt, w, ctx.reduction, t.numel())
        return gx, gt, None, None, None


def _scale_back(g, w, reduction, numel):
    if w is not None:
        g = dispatch("mul", g, w)
    if reduction == "mean":
        g = dispatch("div", g, numel)
    return g


# ---------------------------------------------------------------------------- soft_margin_loss

@register_op("soft_margin_loss")
class SoftMarginLoss(Function):
    """``soft_margin_loss(input, target, reduction='mean')`` = reduce(``log1p(exp(-input *
    target))``) (``torch._C._nn.soft_margin_loss``), each step rounded as PyTorch's chain
    ``neg_out(input).mul_(target).exp_().log1p_()``; input's dtype, differentiable in input only
    (``SoftMarginLossBackward0``).

    Raises:
        RuntimeError: target requiring grad; shapes that do not broadcast to input's.
        ValueError: an unknown reduction.
    """

    _backward_name = "SoftMarginLossBackward0"

    @staticmethod
    def forward(ctx, input, target, reduction="mean"):
        _check_reduction(reduction)
        _check_tensors("soft_margin_loss", input=input, target=target)
        _not_differentiable(ctx, 1, "soft_margin_loss", "target")
        dt = input.dtype
        if not dt.is_floating_point:
            raise NotImplementedError(f'"neg_cpu" not implemented for \'{dt.scalar_name}\'')
        if input.shape != target.shape:
            dispatch("expand", target, input.shape)
        rnd = _rounder(dt)
        with np.errstate(all="ignore"):
            x = _load(input, dt)
            cd = x.dtype.type
            t = target._data.astype(np.float64).astype(x.dtype)
            loss = rnd(_log1p(rnd(_exp(rnd(-x * t)))))
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        return apply_reduction(np.broadcast_to(loss, input.shape).astype(cd), reduction, dt)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        return dispatch("soft_margin_loss_backward", grad, x, t, ctx.reduction), None, None


@register_op("soft_margin_loss_backward")
class SoftMarginLossBackward(Function):
    """``soft_margin_loss_backward(grad_output, input, target, reduction)`` =
    ``((-norm * t) * z / (1 + z)) * grad`` with ``z = exp(-t * x)``, each step rounded in the
    dtype (the order measured against torch 2.13); node ``SoftMarginLossBackwardBackward0``."""

    _backward_name = "SoftMarginLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, target, reduction):
        dt = input.dtype
        rnd = _rounder(dt)
        with np.errstate(all="ignore"):
            x = _load(input, dt)
            cd = x.dtype.type
            t = target._data.astype(np.float64).astype(x.dtype)
            t = np.broadcast_to(rnd(t), x.shape)
            norm = 1.0 / x.size if reduction == "mean" and x.size else 1.0
            z = rnd(_exp(rnd(-t * x)))
            g = np.broadcast_to(_load(grad_output, dt), x.shape)
            # measured against torch 2.13: ((-norm * t) * z / (1 + z)) * grad, each rounded
            gi = rnd(rnd(rnd(rnd(cd(-norm) * t) * z) / rnd(z + cd(1))) * g)
        ctx.save_for_backward(grad_output, input, target)
        ctx.reduction = reduction
        return quiet_wrap(gi, dt)

    @staticmethod
    def backward(ctx, gg):
        # derivatives.yaml: soft_margin_loss_double_backward{,_grad_output}
        g, x, t = ctx.saved_tensors
        n = ctx.needs_input_grad
        dg = dx = None
        if n[0]:
            dg = dispatch("soft_margin_loss_backward", gg, x, t, ctx.reduction)
            if ctx.reduction != "none":
                dg = dispatch("sum", dg)
        if n[1]:
            norm = 1.0 / x.numel() if ctx.reduction == "mean" and x.numel() else 1.0
            z = dispatch("exp", dispatch("mul", dispatch("neg", t), x))
            zp = dispatch("add", z, 1)
            d2 = dispatch("div", dispatch("mul", dispatch("mul", t, t), z),
                          dispatch("mul", zp, zp))
            dx = dispatch("mul", dispatch("mul", d2, norm), dispatch("mul", gg, g))
        return dg, dx, None, None
