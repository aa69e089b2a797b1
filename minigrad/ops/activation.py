"""Activations and their fused backward kernels: tanh, sigmoid, relu, tanh_backward,
sigmoid_backward, threshold_backward.

Each is a ``Kernel`` (``minigrad/ops/kernel.py``) declaring its rule. Forward: ``tanh`` computes
a correctly rounded fp32 value (float64 maths) and rounds it once more into 16-bit storage;
``sigmoid`` is PyTorch's ``1 / (1 + exp(-x))`` in fp32 with ``exp`` rounded to fp32 (both within
1 ulp of PyTorch's vectorised kernels, usually equal). Integer inputs of tanh/sigmoid give
float32.

Backward kernels are ops of their own so that 16-bit rounding matches PyTorch bit for bit
(measured on PyTorch 2.13 CPU):
- ``tanh_backward(g, y)`` = ``g * (1 - y*y)`` with ``1 - y*y`` a single-rounding fma in fp32,
  one rounding at the end for 16-bit.
- ``sigmoid_backward(g, y)`` = ``g * (1 - y) * y`` left to right in fp32 (bf16, fp32: one
  rounding at the end); **fp16 rounds every step**: ``round(round(round(1 - y) * g) * y)``.
- ``threshold_backward(g, x, t)`` = ``0 where x <= t else g`` (exact).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._binary import _r16, fma64
from .kernel import EXACT, FLOAT_FP64, FLOAT_OPMATH, KEEP_DTYPE, PROMOTE_OPMATH, Kernel


@register_op("tanh")
class Tanh(Kernel):
    """``tanh(input)`` (``torch.tanh``); backward is ``tanh_backward(grad, result)``."""

    rule = FLOAT_FP64
    saves = ("result",)
    _backward_name = "TanhBackward0"

    @staticmethod
    def kernel(dtype, a):
        return np.tanh(a)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("tanh_backward", grad, out)


@register_op("sigmoid")
class Sigmoid(Kernel):
    """``sigmoid(input)`` = 1 / (1 + exp(-input)) (``torch.sigmoid``); backward is
    ``sigmoid_backward(grad, result)``. fp32 and 16-bit take PyTorch's fp32 steps around a
    correctly rounded fp32 ``exp``."""

    rule = FLOAT_OPMATH
    saves = ("result",)
    _backward_name = "SigmoidBackward0"

    @staticmethod
    def kernel(dtype, a):
        if dtype is _dt.float64:
            e = np.exp(-a)
        else:
            e = np.exp(-a.astype(np.float64)).astype(np.float32)
        return 1 / (1 + e)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("sigmoid_backward", grad, out)


@register_op("relu")
class Relu(Kernel):
    """``relu(input)`` = max(input, 0), dtype kept (``torch.relu``); backward is
    ``threshold_backward(grad, result, 0)``.

    Raises:
        RuntimeError: for bool input ("Boolean inputs not supported for relu").
    """

    rule = KEEP_DTYPE
    saves = ("result",)
    _backward_name = "ReluBackward0"

    @staticmethod
    def check(input):
        if isinstance(input, Tensor) and input.dtype is _dt.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")

    @staticmethod
    def kernel(dtype, d):
        # branch-free (np.where on a random sign mask is ~20x slower). -0.0 and NaN are kept, as
        # in torch: np.maximum(0, d) returns d on ties for fp32/fp64 (not for NumPy's fp16 loop),
        # so 16-bit types select by bit mask instead.
        if d.dtype.itemsize >= 4:
            return np.maximum(_zeros_for(d), d)
        return _select_or_zero(_sign_test(d, strict=True), d, drop=True)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("threshold_backward", grad, out, 0)


def _zeros_for(d):
    """The zero ``relu`` takes the maximum with: a 0-d zero, or for a C-contiguous ``d`` with
    rows of 16 or more a zero row broadcast over the leading dims. The values are the same
    (NumPy's maximum treats ties and NaN alike in both loops: checked on every fp32 bit
    pattern), and so is the C-contiguous result; but a 0-d operand sends NumPy's maximum to its
    scalar loop, 2-4x slower than its vectorised array-array loop."""
    if d.ndim and d.shape[-1] >= 16 and d.flags.c_contiguous:
        return np.zeros(d.shape[-1], d.dtype)
    return np.zeros((), d.dtype)


def _check_output(grad_output, output, op=None):
    if not isinstance(output, Tensor):
        raise TypeError(f"{op}(): argument 'output' (position 2) must be Tensor, not "
                        f"{type(output).__name__}")


@register_op("tanh_backward")
class TanhBackward(Kernel):
    """``tanh_backward(grad_output, output)`` = grad * (1 - output**2), PyTorch's fused kernel
    (``torch.ops.aten.tanh_backward``): ``1 - y*y`` is one fma in fp32 (computed exactly in
    float64 here), one rounding at the end. Differentiable (``TanhBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "output")
    operands = 2
    saves = ("grad_output", "output")
    _backward_name = "TanhBackwardBackward0"

    @staticmethod
    def check(grad_output, output):
        _check_output(grad_output, output, "tanh_backward")

    @staticmethod
    def kernel(dtype, g, y):
        if dtype is _dt.float64:
            d = fma64(-y, y, 1.0)
        else:
            y64 = y.astype(np.float64)
            d = (1 - y64 * y64).astype(np.float32)
        return g * d

    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("tanh_backward", gg, y) if nig[0] else None
        b = None
        if nig[1]:
            b = dispatch("mul", gg, dispatch("mul", dispatch("mul", y, -2.0), g))
        return a, b


@register_op("sigmoid_backward")
class SigmoidBackward(Kernel):
    """``sigmoid_backward(grad_output, output)`` = grad * (1 - output) * output, PyTorch's
    fused kernel (``torch.ops.aten.sigmoid_backward``), left to right in fp32 with one rounding
    at the end, except that **fp16 rounds every step** as PyTorch's CPU kernel does:
    ``round(round(round(1 - y) * g) * y)``. Differentiable (``SigmoidBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "output")
    operands = 2
    saves = ("grad_output", "output")
    _backward_name = "SigmoidBackwardBackward0"

    @staticmethod
    def check(grad_output, output):
        _check_output(grad_output, output, "sigmoid_backward")

    @staticmethod
    def kernel(dtype, g, y):
        if dtype is _dt.float16:
            return _r16(_r16(1 - y, dtype) * g, dtype) * y
        return g * (1 - y) * y

    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("sigmoid_backward", gg, y) if nig[0] else None
        b = None
        if nig[1]:
            b = dispatch("mul", dispatch("mul", gg, g),
                         dispatch("add", dispatch("mul", y, -2), 1))
        return a, b


_INT_OF = {2: np.int16, 4: np.int32, 8: np.int64}
_EXP_MASK16 = {np.dtype(np.float16): 0x7C00, _dt.bfloat16.np: 0x7F80}


def _sign_test(d, strict):
    """``d < 0`` (strict) or ``d <= 0`` for a 16-bit float array, exactly as the float comparison
    (-0.0 is not < 0, NaN compares False), computed on the int16 bits: NumPy's float16/bfloat16
    comparisons convert every element and are ~10x slower."""
    em = _EXP_MASK16.get(d.dtype)
    if em is None:
        return d < 0 if strict else d <= 0
    i = d.view(np.int16) if d.flags.c_contiguous else d.copy().view(np.int16)
    if strict:
        # the negative numbers are the bit patterns 0x8001 (the smallest subnormal) to
        # 0x8000 | em (-inf), read unsigned (-0.0 is 0x8000, the negative NaNs lie above): one
        # wrapping subtract moves them to [0, em), so one comparison tells (2 passes, not 6)
        return np.subtract(i.view(np.uint16), np.uint16(0x8001)) < np.uint16(em)
    not_nan = (i & 0x7FFF) <= em
    return (i <= 0) & not_nan


def _select_or_zero(keep, g, drop=False):
    """``g`` where ``keep`` else +0.0, exactly (inf/nan in dropped places give 0, never -0.0 or
    nan as ``g * keep`` would), branch-free: AND the bits with an all-ones/all-zeros mask.
    ``drop=True``: ``keep`` holds the places to zero instead (saves the caller's ``~``)."""
    it = _INT_OF.get(g.dtype.itemsize)
    keep = np.asarray(keep)
    if it is None or g.dtype.kind not in "fV":
        return np.where(~keep if drop else keep, g, np.zeros((), g.dtype))
    # a bool's byte is 0 or 1: widening those bytes is NumPy's fast integer cast (its bool ->
    # int cast is ~2x slower); then 1 -> all ones (keep) as -1, or as 1 - 1 = 0 (drop)
    mask = keep.view(np.uint8).astype(it)
    if drop:
        np.subtract(mask, 1, out=mask)
    else:
        np.negative(mask, out=mask)
    if not g.flags.c_contiguous:
        g = g.copy()
    if mask.shape == g.shape:
        return np.bitwise_and(g.view(it), mask, out=mask).view(g.dtype)
    return (g.view(it) & mask).view(g.dtype)


@register_op("threshold_backward")
class ThresholdBackward(Kernel):
    """``threshold_backward(grad_output, self, threshold)``: 0 where ``self <= threshold``,
    else ``grad_output`` (``torch.ops.aten.threshold_backward``; NaN in ``self`` passes the
    gradient); an exact selection. Differentiable in ``grad_output``
    (``ThresholdBackwardBackward0``)."""

    rule = EXACT
    args = ("grad_output", "self", "threshold")
    operands = 2
    saves = ("self",)
    keeps = ("threshold",)
    _backward_name = "ThresholdBackwardBackward0"

    @staticmethod
    def check(grad_output, self, threshold):
        _check_output(grad_output, self, "threshold_backward")

    @staticmethod
    def kernel(dtype, g, s, threshold):
        if threshold == 0 and s.dtype.itemsize == 2 and dtype.is_floating_point:
            le = _sign_test(s, strict=False)
        else:
            le = (s.astype(np.float32) if dtype is _dt.bfloat16 else s) <= threshold
        return _select_or_zero(le, g, drop=True)

    @staticmethod
    def backward(ctx, gg):
        (s,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("threshold_backward", gg, s, ctx.threshold) if nig[0] else None
        b = dispatch("zeros_like", gg) if len(nig) > 1 and nig[1] else None
        return a, b
