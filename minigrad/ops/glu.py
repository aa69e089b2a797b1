"""``glu`` (gated linear unit) and its fused backward ``glu_backward``, as PyTorch's CPU kernels
(``aten/src/ATen/native/cpu/Activation.cpp``)."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap_dim
from .activation import Sigmoid
from .loss import _rounder, quiet_wrap


def _halves(input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"glu(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"glu_cpu" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    a = opmath(input, input.dtype)
    return d, np.split(a, 2, axis=d)


@register_op("glu")
class Glu(Function):
    """``glu(input, dim=-1)`` = ``a * sigmoid(b)`` where ``a, b`` are the two halves of
    ``input`` along ``dim`` (``F.glu``; node ``GluBackward0``). 16-bit computes in fp32 and
    rounds once.

    Raises:
        RuntimeError: "glu does not support scalars because halving size must be even",
            "Halving dimension must be even, but dimension 1 is size 3".
        IndexError: ``dim`` out of range. NotImplementedError: integer input.
    """

    _backward_name = "GluBackward0"

    @staticmethod
    def forward(ctx, input, dim=-1):
        d, (a, b) = _halves(input, dim)
        with np.errstate(all="ignore"):
            out = a * Sigmoid.kernel(input.dtype, b)
        ctx.save_for_backward(input)
        ctx.dim = d
        return quiet_wrap(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("glu_backward", grad, x, ctx.dim), None


@register_op("glu_backward")
class GluBackward(Function):
    """``glu_backward(grad_output, input, dim)``: ``[s * g, (1 - s) * s * a * g]`` with
    ``s = sigmoid(b)`` stored in input's dtype first (PyTorch's ``sigmoid_out`` into the first
    half of the result), each half rounded once; node ``GluBackwardBackward0``."""

    _backward_name = "GluBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, dim):
        d, (a, b) = _halves(input, dim)
        dt = input.dtype
        rnd = _rounder(dt)
        g = opmath(grad_output, dt)
        with np.errstate(all="ignore"):
            s = rnd(Sigmoid.kernel(dt, b))
            one = s.dtype.type(1)
            gb = (one - s) * s * a * g
            ga = s * g
        ctx.save_for_backward(grad_output, input)
        ctx.dim = d
        return quiet_wrap(np.concatenate([rnd(ga), rnd(gb)], axis=d).astype(
            _dt.opmath_dtype(dt).np), dt)

    @staticmethod
    def backward(ctx, gg):
        # glu_double_backward{,_grad_output}, composed of dispatched ops
        g, x = ctx.saved_tensors
        n = ctx.needs_input_grad
        half = x.shape[ctx.dim] // 2
        a, b = dispatch("split", x, [half, half], ctx.dim)
        gga, ggb = dispatch("split", gg, [half, half], ctx.dim)
        s = dispatch("sigmoid", b)
        ds = dispatch("mul", s, dispatch("rsub.Scalar", s, 1))       # s (1 - s)
        dg = dx = None
        if n[0]:
            dg = dispatch("add", dispatch("mul", gga, s),
                          dispatch("mul", dispatch("mul", ggb, ds), a))
        if n[1]:
            da = dispatch("mul", dispatch("mul", ggb, ds), g)
            one_2s = dispatch("rsub.Scalar", dispatch("mul", s, 2), 1)
            db = dispatch("mul", dispatch("mul", ds, g),
                          dispatch("add", gga, dispatch("mul", dispatch("mul", ggb, a), one_2s)))
            dx = dispatch("cat", [da, db], ctx.dim)
        return dg, dx, None
