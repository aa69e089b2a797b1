"""Activations and their fused backward kernels: tanh, sigmoid, relu, tanh_backward,
sigmoid_backward, threshold_backward.

Forward: 16-bit inputs compute in fp32 and round once; fp32 ``tanh`` computes in float64 and
``sigmoid`` as PyTorch's ``1 / (1 + exp(-x))`` with ``exp`` rounded to fp32 (both within 1 ulp of
PyTorch's vectorised kernels, usually equal). Integer inputs of tanh/sigmoid give float32.

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
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._binary import _r16, arr, check_binary, fma64
from ._util import wrap


def _float_in(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    rt = x.dtype if x.dtype.is_floating_point else _dt.get_default_dtype()
    return rt, arr(x, rt)


@register_op("tanh")
class Tanh(Function):
    """``tanh(input)`` (``torch.tanh``); backward is ``tanh_backward(grad, result)``."""

    _backward_name = "TanhBackward0"

    @staticmethod
    def forward(ctx, input):
        rt, a = _float_in(input, "tanh")
        if rt is _dt.float32:
            a = a.astype(np.float64)
        out = wrap(np.tanh(a), rt)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("tanh_backward", grad, out)


@register_op("sigmoid")
class Sigmoid(Function):
    """``sigmoid(input)`` = 1 / (1 + exp(-input)) (``torch.sigmoid``); backward is
    ``sigmoid_backward(grad, result)``."""

    _backward_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, input):
        rt, a = _float_in(input, "sigmoid")
        with np.errstate(over="ignore"):
            if rt is _dt.float64:
                e = np.exp(-a)
            else:   # fp32 and 16-bit: PyTorch's fp32 steps around a correctly rounded exp
                e = np.exp(-a.astype(np.float64)).astype(np.float32)
            out = wrap(1 / (1 + e), rt)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("sigmoid_backward", grad, out)


@register_op("relu")
class Relu(Function):
    """``relu(input)`` = max(input, 0), dtype kept (``torch.relu``); backward is
    ``threshold_backward(grad, result, 0)``.

    Raises:
        RuntimeError: for bool input ("Boolean inputs not supported for relu").
    """

    _backward_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, input):
        if not isinstance(input, Tensor):
            raise TypeError(f"relu(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if input.dtype is _dt.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        d = input._data
        # branch-free (np.where on a random sign mask is ~20x slower). -0.0 and NaN are kept, as
        # in torch: np.maximum(0, d) returns d on ties for fp32/fp64 (not for NumPy's fp16 loop),
        # so 16-bit types select by bit mask instead.
        if input.dtype.itemsize >= 4:
            out = np.maximum(np.zeros((), d.dtype), d)
        else:
            out = _select_or_zero(~_sign_test(d, strict=True), d)
        out = Tensor._make(out, input.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("threshold_backward", grad, out, 0)


def _bw_prep(grad, y, op):
    check_binary(grad, y, op)
    if not isinstance(y, Tensor):
        raise TypeError(f"{op}(): argument 'output' (position 2) must be Tensor, not "
                        f"{type(y).__name__}")
    rt = _dt.result_type(grad, y)
    return rt, arr(grad, rt), arr(y, rt)


@register_op("tanh_backward")
class TanhBackward(Function):
    """``tanh_backward(grad_output, output)`` = grad * (1 - output**2), PyTorch's fused kernel
    (``torch.ops.aten.tanh_backward``); differentiable (``TanhBackwardBackward0``)."""

    _backward_name = "TanhBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output):
        rt, g, y = _bw_prep(grad_output, output, "tanh_backward")
        if rt is _dt.float64:
            d = fma64(-y, y, 1.0)
        else:
            y64 = y.astype(np.float64)
            d = (1 - y64 * y64).astype(np.float32)
        ctx.save_for_backward(grad_output, output)
        return wrap(g * d, rt)

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
class SigmoidBackward(Function):
    """``sigmoid_backward(grad_output, output)`` = grad * (1 - output) * output, PyTorch's
    fused kernel (``torch.ops.aten.sigmoid_backward``); fp16 rounds each step as PyTorch's
    CPU kernel does. Differentiable (``SigmoidBackwardBackward0``)."""

    _backward_name = "SigmoidBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output):
        rt, g, y = _bw_prep(grad_output, output, "sigmoid_backward")
        if rt is _dt.float16:
            out = _r16(_r16(1 - y, rt) * g, rt) * y
        else:
            out = g * (1 - y) * y
        ctx.save_for_backward(grad_output, output)
        return wrap(out, rt)

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
    not_nan = (i & 0x7FFF) <= em
    if strict:
        return (i < 0) & (i != -32768) & not_nan
    return (i <= 0) & not_nan


def _select_or_zero(keep, g):
    """``g`` where ``keep`` else +0.0, exactly (inf/nan in dropped places give 0, never -0.0 or
    nan as ``g * keep`` would), branch-free: AND the bits with an all-ones/all-zeros mask."""
    it = _INT_OF.get(g.dtype.itemsize)
    if it is None or g.dtype.kind not in "fV":
        return np.where(keep, g, np.zeros((), g.dtype))
    mask = -(np.asarray(keep).astype(it))
    if not g.flags.c_contiguous:
        g = g.copy()
    return (g.view(it) & mask).view(g.dtype)


@register_op("threshold_backward")
class ThresholdBackward(Function):
    """``threshold_backward(grad_output, self, threshold)``: 0 where ``self <= threshold``,
    else ``grad_output`` (``torch.ops.aten.threshold_backward``; NaN in ``self`` passes the
    gradient). Differentiable in ``grad_output`` (``ThresholdBackwardBackward0``)."""

    _backward_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, self, threshold):
        check_binary(grad_output, self, "threshold_backward")
        rt = _dt.result_type(grad_output, self)
        g = grad_output._data if grad_output.dtype is rt else arr(grad_output, rt)
        s = self._data
        if threshold == 0 and s.dtype.itemsize == 2 and self.dtype.is_floating_point:
            le = _sign_test(s, strict=False)
        else:
            le = (s.astype(np.float32) if self.dtype is _dt.bfloat16 else s) <= threshold
        out = _select_or_zero(~le, g)
        ctx.save_for_backward(self)
        ctx.threshold = threshold
        return wrap(out, rt)

    @staticmethod
    def backward(ctx, gg):
        (s,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("threshold_backward", gg, s, ctx.threshold) if nig[0] else None
        b = dispatch("zeros_like", gg) if len(nig) > 1 and nig[1] else None
        return a, b
