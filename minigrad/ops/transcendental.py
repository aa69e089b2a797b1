"""Transcendental unary math: log1p, expm1, log2, log10, rsqrt, sin, cos, tan, asin, acos, atan,
sinh, cosh, asinh, acosh, atanh, exp2, and the binary atan2 and hypot.

PyTorch's CPU kernels for these call a vectorised fp32 (or fp64) function (MKL's vector math or
Sleef) that is within an ulp or so of the correctly rounded value; 16-bit inputs are converted
to fp32, the function applied, and the result rounded once. Here every one of them is a
``Kernel`` with rule ``FLOAT_FP64``: computed in float64, rounded to a correctly rounded fp32,
then (16-bit) once more into storage. fp16/bf16 results match PyTorch bit for bit on all 65,536
inputs of each format except where stated in the op's docstring; fp32 within 2 ulp. ``rsqrt`` is
ATen's ``1 / sqrt(x)`` in opmath (two fp32 roundings, then one into 16 bits). Integer inputs give
the default float dtype.

Backward formulas from ``derivatives.yaml``, as dispatched ops (double backward works).
"""
from __future__ import annotations

import math

import numpy as np

from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from .kernel import FLOAT_FP64, FLOAT_OPMATH, Kernel


def _d(name, *args):
    return dispatch(name, *args)


def _unary(name, fn, grad_fn, saves, node, doc):
    """Register the ``FLOAT_FP64`` unary op ``name`` computing ``fn(a, dtype)`` (float64 arrays;
    ``dtype`` the result dtype) with
    backward ``grad_fn(grad, saved)`` and graph node ``node``."""

    def kernel(dtype, a):
        return fn(a, dtype)

    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad_fn(grad, s)

    op = type(name.capitalize(), (Kernel,), {
        "__doc__": doc, "__module__": __name__, "rule": FLOAT_FP64, "saves": (saves,),
        "_backward_name": node, "kernel": staticmethod(kernel),
        "backward": staticmethod(backward)})
    return register_op(name, op)


_LN2, _LN10 = math.log(2), math.log(10)
_EXP_OVERFLOW32 = 88.72283935546875      # fp32 ln(FLT_MAX): where an fp32 exp overflows


def _f(npfn):
    return lambda a, dtype: npfn(a)


def _hyperbolic(npfn, kernel):
    """sinh/cosh: 16-bit inputs run through Sleef's fp32 ``sinhf``/``coshf`` in ATen's vector
    body, which overflow to inf once the fp32 ``exp(|x|)`` inside does (bf16 +-89.0, whose
    sinh/cosh would fit in bf16); the scalar tail uses ``std::sinh``, which does not."""
    def fn(a, dtype):
        out = npfn(a)
        if dtype.itemsize == 2:
            over = np.abs(a) > _EXP_OVERFLOW32
            tail = _nx.tail_mask(a.shape, (a.shape,), _nx.loop_step(dtype, kernel))
            if tail is not None:
                over &= ~tail
            out = np.where(over, np.copysign(np.inf, out), out)
        return out
    return fn

Log1p = _unary("log1p", _f(np.log1p), lambda g, x: _d("div", g, _d("add", x, 1)), "input",
               "Log1PBackward0", """``log1p(input)`` = log(1 + x) (``torch.log1p``,
    ``torch.special.log1p``); backward ``grad / (x + 1)``.""")
Expm1 = _unary("expm1", _f(np.expm1), lambda g, y: _d("mul", g, _d("add", y, 1)), "result",
               "Expm1Backward0", """``expm1(input)`` = exp(x) - 1 (``torch.expm1``,
    ``torch.special.expm1``); backward ``grad * (result + 1)``.""")
Log2 = _unary("log2", _f(np.log2), lambda g, x: _d("div", g, _d("mul", x, _LN2)), "input",
              "Log2Backward0", """``log2(input)`` (``torch.log2``); backward
    ``grad / (x * ln 2)``.""")
Log10 = _unary("log10", _f(np.log10), lambda g, x: _d("div", g, _d("mul", x, _LN10)), "input",
               "Log10Backward0", """``log10(input)`` (``torch.log10``); backward
    ``grad / (x * ln 10)``.""")
Sin = _unary("sin", _f(np.sin), lambda g, x: _d("mul", g, _d("cos", x)), "input", "SinBackward0",
             """``sin(input)`` (``torch.sin``); backward ``grad * cos(x)``. fp16: 2 of
    65,536 inputs differ by 1 ulp (+-300.0, whose sine lies within 1e-7 of an fp16 midpoint:
    Sleef's ``sinf_u35`` lands on the other side of it).""")
Cos = _unary("cos", _f(np.cos), lambda g, x: _d("mul", g, _d("neg", _d("sin", x))), "input",
             "CosBackward0", """``cos(input)`` (``torch.cos``); backward
    ``grad * -sin(x)``.""")
Tan = _unary("tan", _f(np.tan), lambda g, y: _d("mul", g, _d("add", _d("mul", y, y), 1)), "result",
             "TanBackward0", """``tan(input)`` (``torch.tan``); backward
    ``grad * (1 + result**2)``.""")
Asin = _unary("asin", _f(np.arcsin),
              lambda g, x: _d("mul", g, _d("rsqrt", _d("rsub", _d("mul", x, x), 1))), "input",
              "AsinBackward0", """``asin(input)`` (``torch.asin``, nan outside [-1, 1]);
    backward ``grad * rsqrt(1 - x*x)``. fp16: 2 of 65,536 inputs differ by 1 ulp
    (+-0.136474609375, an arcsine next to an fp16 midpoint).""")
Acos = _unary("acos", _f(np.arccos),
              lambda g, x: _d("mul", g, _d("neg", _d("rsqrt", _d("rsub", _d("mul", x, x), 1)))),
              "input", "AcosBackward0", """``acos(input)`` (``torch.acos``, nan outside
    [-1, 1]); backward ``grad * -rsqrt(1 - x*x)``.""")
Atan = _unary("atan", _f(np.arctan), lambda g, x: _d("div", g, _d("add", _d("mul", x, x), 1)),
              "input", "AtanBackward0", """``atan(input)`` (``torch.atan``); backward
    ``grad / (x*x + 1)``.""")
Sinh = _unary("sinh", _hyperbolic(np.sinh, "sinh"),
              lambda g, x: _d("mul", g, _d("cosh", x)), "input",
              "SinhBackward0", """``sinh(input)`` (``torch.sinh``); backward
    ``grad * cosh(x)``.""")
Cosh = _unary("cosh", _hyperbolic(np.cosh, "cosh"),
              lambda g, x: _d("mul", g, _d("sinh", x)), "input",
              "CoshBackward0", """``cosh(input)`` (``torch.cosh``); backward
    ``grad * sinh(x)``.""")

Asinh = _unary("asinh", _f(np.arcsinh),
               lambda g, x: _d("mul", g, _d("rsqrt", _d("add", _d("pow", x, 2), 1))), "input",
               "AsinhBackward0", """``asinh(input)`` (``torch.asinh``, ``torch.arcsinh``);
    backward ``grad * rsqrt(x**2 + 1)``.""")
Acosh = _unary("acosh", _f(np.arccosh),
               lambda g, x: _d("mul", g, _d("rsqrt", _d("sub", _d("pow", x, 2), 1))), "input",
               "AcoshBackward0", """``acosh(input)`` (``torch.acosh``, ``torch.arccosh``, nan
    below 1); backward ``grad * rsqrt(x**2 - 1)``.""")
Atanh = _unary("atanh", _f(np.arctanh),
               lambda g, x: _d("div", _d("mul", g, 1), _d("rsub", _d("pow", x, 2), 1)), "input",
               "AtanhBackward0", """``atanh(input)`` (``torch.atanh``, ``torch.arctanh``, nan
    outside [-1, 1], +-inf at +-1); backward ``grad * 1 / (1 - x**2)``.""")

Exp2 = _unary("exp2", _f(np.exp2), lambda g, y: _d("mul", _d("mul", g, y), _LN2), "result",
              "Exp2Backward0", """``exp2(input)`` = 2**x (``torch.exp2``,
    ``torch.special.exp2``); backward ``grad * result * ln 2``.""")


@register_op("rsqrt")
class Rsqrt(Kernel):
    """``rsqrt(input)`` = ``1 / sqrt(x)`` in opmath (ATen's vectorised ``rsqrt``: a rounded
    sqrt, then a rounded division; one more rounding for 16-bit). 16-bit elements in ATen's
    scalar tail compute in the 16-bit type: ``round(1 / round(sqrt(x)))``. Backward
    ``-0.5 * grad * result**3`` (``RsqrtBackward0``)."""

    rule = FLOAT_OPMATH
    saves = ("result",)
    _backward_name = "RsqrtBackward0"

    @staticmethod
    def kernel(dtype, a):
        out = a.dtype.type(1) / np.sqrt(a)
        if dtype.itemsize == 2 and dtype.is_floating_point:
            tail = _nx.elementwise_tail(dtype, a)
            if tail is not None and tail.any():
                s16 = _nx.round_to(np.sqrt(a), dtype)
                out = np.where(tail, _nx.round_to(np.float32(1) / s16, dtype), out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return _d("mul", _d("mul", grad, -0.5), _d("pow", y, 3))


@register_op("atan2")
class Atan2(Kernel):
    """``atan2(input, other)``: the angle of (other, input), broadcasting (``torch.atan2``,
    ``torch.arctan2``); integers give the default float; computed in float64 and rounded to a
    correctly rounded fp32, then once into 16 bits. Backward ``grad * other / (x² + y²)`` and
    ``grad * -input / (x² + y²)``, 0 at the origin (``Atan2Backward0``). fp16: 30 of 65,536
    measured (x, next x) pairs near -3pi/4 are 1 ulp off (PyTorch's is the farther value).

    Raises:
        TypeError: ``other`` not a Tensor (PyTorch's atan2 takes tensors only).
    """

    rule = FLOAT_FP64
    saves = ("input", "other")
    operands = 2
    _backward_name = "Atan2Backward0"

    @staticmethod
    def check(input, other):
        from ..tensor import Tensor
        if not isinstance(other, Tensor):
            raise TypeError(f"atan2(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")

    @staticmethod
    def kernel(dtype, a, b):
        return np.arctan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        nig = ctx.needs_input_grad
        # PyTorch's atan2_backward: 1 / (a*a + b*b), taken as 0 at the origin
        r = _d("add", _d("mul", a, a), _d("mul", b, b))
        recip = _d("where", _d("eq", r, 0), 0.0, _d("reciprocal", r))
        ga = _d("mul", _d("mul", grad, b), recip) if nig[0] else None
        gb = _d("mul", _d("mul", grad, _d("neg", a)), recip) if nig[1] else None
        return ga, gb


@register_op("hypot")
class Hypot(Kernel):
    """``hypot(input, other)`` = sqrt(x**2 + y**2) without overflow, broadcasting
    (``torch.hypot``); computed in float64, rounded to fp32, then once into 16 bits. Node
    ``HypotBackward0``: ``grad * input / result`` and ``grad * other / result``.

    Raises:
        TypeError: ``other`` not a Tensor (PyTorch's hypot takes tensors only).
        NotImplementedError: integer or bool operands ('"hypot_cpu" not implemented for
            'Long'').
    """

    rule = FLOAT_FP64
    saves = ("input", "other", "result")
    operands = 2
    _backward_name = "HypotBackward0"

    @staticmethod
    def check(input, other):
        from .. import dtypes as _dt
        from ..tensor import Tensor
        if not isinstance(other, Tensor):
            raise TypeError(f"hypot(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        rt = _dt.result_type(input, other)
        if not rt.is_floating_point:
            raise NotImplementedError(f'"hypot_cpu" not implemented for \'{rt.scalar_name}\'')

    @staticmethod
    def kernel(dtype, a, b):
        return np.hypot(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b, y = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = _d("div", _d("mul", grad, a), y) if nig[0] else None
        gb = _d("div", _d("mul", grad, b), y) if nig[1] else None
        return ga, gb
