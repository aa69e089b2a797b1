"""Transcendental unary math: log1p, expm1, log2, log10, rsqrt, sin, cos, tan, asin, acos, atan,
sinh, cosh, asinh, acosh, atanh, exp2, and the binary atan2, hypot, logaddexp and logaddexp2.

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

import ctypes
import math

import numpy as np

from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from .kernel import FLOAT_FP64, FLOAT_OPMATH, PROMOTE_OPMATH, Kernel


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


_INV_LN2 = {np.dtype(np.float32): np.float32(1 / math.log(2)), np.dtype(np.float64): 1 / math.log(2)}


def _rounded(fn, x):
    """``fn`` (NumPy's float64 exp/exp2/log1p) of an opmath array, correctly rounded into the
    array's own type: the stand-in for ATen's vectorised Sleef calls in the loop's body."""
    if x.dtype == np.float64:
        return fn(x)
    return fn(x.astype(np.float64)).astype(x.dtype)


def _libm_table():
    """The C library's exp/exp2/log1p per opmath item size, for the scalar tail of ATen's loop
    (``std::log1p(float)`` is glibc's ``log1pf``, which is not always correctly rounded)."""
    from .gamma import _libm
    f, d = ctypes.c_float, ctypes.c_double
    return {(np.exp, 4): _libm("expf", f), (np.exp, 8): _libm("exp", d),
            (np.exp2, 4): _libm("exp2f", f), (np.exp2, 8): _libm("exp2", d),
            (np.log1p, 4): _libm("log1pf", f), (np.log1p, 8): _libm("log1p", d)}


_LIBM = {}


def _scalar(fn, x):
    """``fn`` of an opmath array as the scalar tail computes it: the C library's function
    (``_rounded`` when no C library is found)."""
    if not _LIBM:
        _LIBM.update(_libm_table())
    c = _LIBM[(fn, x.dtype.itemsize)]
    if c is None:
        return _rounded(fn, x)
    return np.asarray(c(x), dtype=x.dtype).reshape(x.shape)


class _LogAddExpBase(Kernel):
    """``logaddexp`` and ``logaddexp2``: ATen's kernel, in opmath (fp32 for fp16/bf16):
    ``max(a, b) + log1p(exp(-|a - b|))`` (base 2: ``fma(log1p(exp2(-|a - b|)), 1 / ln 2, max)``
    with ``1 / ln 2`` an opmath constant), each step rounded in opmath, the result rounded once
    into the result dtype; two equal infinities give themselves (not ``inf - inf``'s nan). Both
    operands must be Tensors (promoted as usual); integer or bool results have no kernel.

    ATen's loop (an AVX512 build: 32 fp32 / 16 fp64 elements a step) runs Sleef's vectorised
    ``exp``/``log1p`` in its body, standing in here by correctly rounded ones, and the C
    library's in the scalar tail (``numerics.elementwise_tail``), called here too. fp16/bf16
    match PyTorch bit for bit except where a Sleef result is one ulp off and the sum cancels
    (2 of 400,000 random fp16 pairs); fp32/fp64 within 2 ulp in the body, exact in the
    tail."""

    rule = PROMOTE_OPMATH
    saves = ("input", "other")
    operands = 2
    _exp = staticmethod(np.exp)

    @classmethod
    def check(cls, input, other):
        from .. import dtypes as _dt
        from ..tensor import Tensor
        if not isinstance(other, Tensor):
            raise TypeError(f"{cls._name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        rt = _dt.result_type(input, other)
        if not rt.is_floating_point:
            raise NotImplementedError(f'"{cls._name}_cpu" not implemented for '
                                      f"'{rt.scalar_name}'")

    @classmethod
    def kernel(cls, dtype, a, b):
        a, b = np.broadcast_arrays(a, b)
        d = np.asarray(-np.abs(a - b))            # (0-dim operands give NumPy scalars)
        log_term = _rounded(np.log1p, _rounded(cls._exp, d))
        tail = _nx.elementwise_tail(dtype, a, b, kernel=cls._name)
        if tail is not None and tail.any():      # the scalar lambda calls the C library
            log_term = np.array(log_term)
            log_term[tail] = _scalar(np.log1p, _scalar(cls._exp, d[tail]))
        m = np.maximum(a, b)
        if cls._exp is np.exp2:
            # GCC contracts ``m + log_term * inv_log_2`` into one fused multiply-add (measured:
            # the fma matches torch 2.13 on ~6x more fp32 values than two roundings)
            c = np.full(log_term.shape, _INV_LN2[log_term.dtype], log_term.dtype)
            out = (_nx.fma32 if log_term.dtype == np.float32 else _nx.fma64)(log_term, c, m)
        else:
            out = m + log_term
        return np.where(np.isinf(a) & (a == b), a, out)


@register_op("logaddexp")
class Logaddexp(_LogAddExpBase):
    """``logaddexp(input, other)`` = log(exp(input) + exp(other)) without overflow
    (``torch.logaddexp``), broadcasting; see ``_LogAddExpBase`` for the arithmetic. Backward
    (``LogaddexpBackward0``, derivatives.yaml): ``grad / (1 + exp(other - input))`` and
    ``grad / (1 + exp(input - other))``.

    Raises:
        TypeError: an operand that is not a Tensor ("logaddexp(): argument 'other'
            (position 2) must be Tensor, not float").
        NotImplementedError: integer or bool operands ('"logaddexp_cpu" not implemented for
            'Long'').
    """

    _name = "logaddexp"
    _backward_name = "LogaddexpBackward0"

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = _d("div", grad, _d("add", _d("exp", _d("sub", b, a)), 1)) if nig[0] else None
        gb = _d("div", grad, _d("add", _d("exp", _d("sub", a, b)), 1)) if nig[1] else None
        return ga, gb


@register_op("logaddexp2")
class Logaddexp2(_LogAddExpBase):
    """``logaddexp2(input, other)`` = log2(2**input + 2**other) without overflow
    (``torch.logaddexp2``), broadcasting; see ``_LogAddExpBase``. Backward
    (``Logaddexp2Backward0``): ``grad / (1 + 2 ** (other - input))`` and
    ``grad / (1 + 2 ** (input - other))``.

    Raises:
        TypeError: an operand that is not a Tensor.
        NotImplementedError: integer or bool operands ('"logaddexp2_cpu" not implemented for
            'Long'').
    """

    _name = "logaddexp2"
    _backward_name = "Logaddexp2Backward0"
    _exp = staticmethod(np.exp2)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = _d("div", grad, _d("add", _d("pow.Scalar", 2, _d("sub", b, a)), 1)) if nig[0] else None
        gb = _d("div", grad, _d("add", _d("pow.Scalar", 2, _d("sub", a, b)), 1)) if nig[1] else None
        return ga, gb
