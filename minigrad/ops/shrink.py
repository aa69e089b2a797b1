"""Shrinkage and threshold activations and their fused backward kernels: ``hardshrink``,
``softshrink`` (both backward through ``*_backward`` kernels of their own name), ``threshold``
(backward: the existing ``threshold_backward``) and ``threshold_`` (node ``ThresholdBackward1``,
reading the input as it was before the write).

- ``hardshrink(x, lambd)`` = 0 where ``-lambd <= x <= lambd``, else ``x``: an exact selection,
  ``lambd`` converted to the input's dtype first (ATen's ``lambd.to<scalar_t>()``).
- ``softshrink(x, lambd)`` = ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else
  0 (``-0.0`` for a negative x in ATen's scalar tail; NaN passes through), in opmath with one
  rounding.
- ``hardshrink_backward`` / ``softshrink_backward(grad, x, lambd)`` = 0 where ``-lambd <= x <=
  lambd``, else ``grad`` (ATen's one ``shrink_backward`` kernel). A NaN ``x`` gives 0 in the
  vectorised body and ``grad`` in the scalar tail, as ATen's two lambdas.
- ``threshold(x, threshold, value)`` = ``value`` where ``x <= threshold``, else ``x``; dtype
  kept (integers too); for fp16/bf16 the comparison is in fp32 with ``threshold`` unrounded and
  ``value`` rounded to the input's dtype; otherwise both are converted to the input's dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import check_scalar
from .kernel import FLOAT_OPMATH, KEEP_DTYPE, PROMOTE_OPMATH, Kernel
from .piecewise_activation import _backward_check, _in_tail, float_only

# the largest finite value per dtype as C++'s default ostream prints it (softshrink's message)
_MAX_TEXT = {"Float": "3.40282e+38", "Double": "1.79769e+308", "Half": "65504",
             "BFloat16": "3.38953e+38"}


def _in_dtype(value, x, dtype):
    """A Python number as the input's dtype holds it (``Scalar.to<scalar_t>()``), then as an
    opmath/storage scalar of ``x``'s array dtype."""
    return x.dtype.type(np.asarray(value, np.float64).astype(dtype.np)) \
        if dtype.is_floating_point else x.dtype.type(value)


def _shrink_backward(dtype, g, x, lambd):
    lam = x.dtype.type(lambd)
    body = (x < -lam) | (x > lam)                  # vector lambda: NaN x gives 0
    tail = ~((x >= -lam) & (x <= lam))             # scalar lambda: NaN x gives grad
    keep = np.where(_in_tail(dtype, g, x), tail, body)
    return np.where(keep, g, x.dtype.type(0))


def _backward_via(op):
    """A shrink op's backward: its fused ``op(grad, input, lambd)`` kernel."""
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch(op, grad, x, 0.5 if ctx.lambd is None else ctx.lambd)
    return staticmethod(backward)


# ---------------------------------------------------------------------------------- hardshrink
@register_op("hardshrink")
class Hardshrink(Kernel):
    """``hardshrink(input, lambd=0.5)`` (``torch.hardshrink``, ``F.hardshrink``; node
    ``HardshrinkBackward0``): 0 where ``|x| <= lambd``, else ``x``; exact.

    Raises:
        NotImplementedError: integer or bool input ('"hardshrink_cpu" not implemented for ...').
    """

    rule = KEEP_DTYPE
    args = ("input", "lambd")
    saves = ("input",)
    keeps = ("lambd",)
    _backward_name = "HardshrinkBackward0"
    check = float_only("hardshrink_cpu")

    @staticmethod
    def kernel(dtype, x, lambd=0.5):
        lam = _in_dtype(lambd, x, dtype)
        inside = (x >= -lam) & (x <= lam)
        return np.where(inside, x.dtype.type(0), x)

    backward = _backward_via("hardshrink_backward")


@register_op("hardshrink_backward")
class HardshrinkBackward(Kernel):
    """``hardshrink_backward(grad_out, self, lambd)``: ``grad_out`` where ``|self| > lambd``,
    else 0 (``torch.ops.aten.hardshrink_backward``); exact. Differentiable in ``grad_out``
    (``HardshrinkBackwardBackward0``; ``self`` gets zeros)."""

    rule = PROMOTE_OPMATH
    args = ("grad_out", "self", "lambd")
    operands = 2
    saves = ("self",)
    keeps = ("lambd",)
    _backward_name = "HardshrinkBackwardBackward0"
    check = _backward_check("hardshrink_backward")

    @staticmethod
    def kernel(dtype, g, x, lambd):
        return _shrink_backward(dtype, g, x, lambd)

    @classmethod
    def backward(cls, ctx, gg):
        (x,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch(cls._op_name, gg, x, ctx.lambd) if nig[0] else None
        return a, (dispatch("zeros_like", gg) if nig[1] else None)


# ---------------------------------------------------------------------------------- softshrink
@register_op("softshrink")
class Softshrink(Kernel):
    """``softshrink(input, lambd=0.5)`` (``F.softshrink``; node ``SoftshrinkBackward0``):
    ``x - lambd`` for ``x > lambd``, ``x + lambd`` for ``x < -lambd``, else 0; fp32 for 16-bit,
    one rounding.

    Raises:
        RuntimeError: ``lambd`` outside ``[0, max of the dtype]`` (PyTorch's "lambda must be in
            range [0, 3.40282e+38] for input dtype Float, but found -1").
        NotImplementedError: integer or bool input.
    """

    rule = FLOAT_OPMATH
    args = ("input", "lambd")
    saves = ("input",)
    keeps = ("lambd",)
    _backward_name = "SoftshrinkBackward0"

    @staticmethod
    def check(input, lambd=0.5):
        float_only("softshrink_cpu").__func__(input)
        if isinstance(input, Tensor):
            hi = float(_dt.finfo(input.dtype).max)
            if not 0 <= lambd <= hi:
                name = input.dtype.scalar_name
                raise RuntimeError(f"lambda must be in range [0, {_MAX_TEXT.get(name, hi)}] "
                                   f"for input dtype {name}, but found {lambd:g}")

    @staticmethod
    def kernel(dtype, x, lambd=0.5):
        lam = x.dtype.type(lambd)
        zero = x.dtype.type(0)
        # the dead zone (measured on torch 2.13): +0.0 in the vectorised body, ``x * 0`` (-0.0
        # for negative x) in the scalar tail; NaN passes through in both
        dead = np.where(_in_tail(dtype, x), x * zero, np.where(x == x, zero, x))
        return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, dead))

    backward = _backward_via("softshrink_backward")


@register_op("softshrink_backward")
class SoftshrinkBackward(HardshrinkBackward):
    """``softshrink_backward(grad_output, self, lambd)``: the same kernel as
    ``hardshrink_backward`` (ATen's ``shrink_backward``); node ``SoftshrinkBackwardBackward0``."""

    args = ("grad_output", "self", "lambd")
    _backward_name = "SoftshrinkBackwardBackward0"
    _op_name = "softshrink_backward"        # (not inherited from hardshrink_backward)
    check = _backward_check("softshrink_backward")


# ---------------------------------------------------------------------------------- threshold
@register_op("threshold")
class Threshold(Kernel):
    """``threshold(input, threshold, value)`` (``torch.threshold``, ``F.threshold``; node
    ``ThresholdBackward0``): ``value`` where ``x <= threshold``, else ``x``; dtype kept, exact.

    Raises:
        NotImplementedError: bool input ('"threshold_cpu" not implemented for 'Bool'').
        RuntimeError: ``threshold`` or ``value`` out of the dtype's range ("value cannot be
            converted to type uint8_t without overflow").
    """

    rule = KEEP_DTYPE
    args = ("input", "threshold", "value")
    saves = ("input",)
    keeps = ("threshold",)
    _backward_name = "ThresholdBackward0"

    @staticmethod
    def check(input, threshold=None, value=None):
        if not isinstance(input, Tensor):
            return
        dt = input.dtype
        if dt is _dt.bool_:
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
        if dt.is_floating_point:        # 16-bit: threshold is taken as fp32, value as dt
            check_scalar(threshold, _dt.float32 if dt.itemsize == 2 else dt)
            check_scalar(value, dt)
            return
        info = _dt.iinfo(dt)
        for v in (threshold, value):
            if not info.min <= float(v) <= info.max:
                raise RuntimeError(f"value cannot be converted to type {dt.c10_name} without "
                                   "overflow")

    @staticmethod
    def kernel(dtype, x, threshold, value):
        v = _in_dtype(value, x, dtype)
        if dtype.is_floating_point and dtype.itemsize == 2:
            le = x.astype(np.float32) <= np.float32(threshold)
        else:
            le = x <= _in_dtype(threshold if dtype.is_floating_point else int(threshold), x,
                                dtype)
        return np.where(le, v, x)

    @staticmethod
    def backward(ctx, grad):
        (saved,) = ctx.saved_tensors
        return dispatch("threshold_backward", grad, saved, ctx.threshold)


class ThresholdResult(Threshold):
    """``threshold_``'s node (``ThresholdBackward1``): its backward reads the input as it was
    before the write (derivatives.yaml's ``original_self``; measured on torch 2.13: elements set
    to a ``value`` above the threshold get no gradient), which ``run_inplace`` hands the op as a
    copy."""

    _backward_name = "ThresholdBackward1"
