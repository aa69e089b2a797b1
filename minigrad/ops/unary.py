"""Unary math and powers: neg, reciprocal, exp, log, sqrt, abs, sign, pow, rpow.

fp32 and 16-bit transcendental ops (exp, log) compute in float64 and round to fp32, then (16-bit)
once more into storage: PyTorch's vectorised fp32 kernels are within 1 ulp of the correctly
rounded value and usually are it, and NumPy's own fp32 loops are not (bf16 exp(6.84375) and fp16
log(0.0025425) landed on the wrong side of a 16-bit midpoint). fp16/bf16 results match PyTorch
bit for bit on all 65,536 inputs (``bench/check_16bit_unary_exhaustive.py``); fp32 results may
differ by 1 ulp. Integer and bool inputs of exp/log/sqrt/reciprocal give the default float
dtype, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from .. import _fp8
from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch, register_op, register_packet
from ..tensor import Tensor
from ._binary import _r16, tail_mask
from ._util import check_scalar
from .kernel import FLOAT_FP64, FLOAT_OPMATH, KEEP_DTYPE, PROMOTE_OPMATH, Kernel


def _check_tensor(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


@register_op("neg")
class Neg(Kernel):
    """``neg(input)`` = -input (``torch.neg``); dtype kept, exact.

    Raises:
        RuntimeError: for bool tensors (PyTorch's message).
    """

    rule = KEEP_DTYPE
    _backward_name = "NegBackward0"

    @staticmethod
    def check(input):
        if isinstance(input, Tensor) and input.dtype is _dt.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")

    @staticmethod
    def kernel(dtype, a):
        return np.negative(a)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("neg", grad)


@register_op("reciprocal")
class Reciprocal(Kernel):
    """``reciprocal(input)`` = 1 / input (``torch.reciprocal``); integers give float32."""

    rule = FLOAT_OPMATH
    saves = ("result",)
    _backward_name = "ReciprocalBackward0"

    @staticmethod
    def kernel(dtype, a):
        return 1 / a

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("mul", dispatch("neg", grad), dispatch("mul", out, out))


@register_op("exp")
class Exp(Kernel):
    """``exp(input)`` (``torch.exp``); backward ``grad * result``."""

    rule = FLOAT_FP64
    saves = ("result",)
    _backward_name = "ExpBackward0"

    @staticmethod
    def kernel(dtype, a):
        return np.exp(a)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("mul", grad, out)


@register_op("log")
class Log(Kernel):
    """``log(input)`` (natural log, ``torch.log``); backward ``grad / input``."""

    rule = FLOAT_FP64
    saves = ("input",)
    _backward_name = "LogBackward0"

    @staticmethod
    def kernel(dtype, a):
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return dispatch("div", grad, input)


@register_op("sqrt")
class Sqrt(Kernel):
    """``sqrt(input)`` (``torch.sqrt``); backward ``grad / (2 * result)``.

    fp32/fp64 here are correctly rounded; PyTorch's vectorised fp32 and fp64 sqrt are not
    (about 1% of values differ by 1 ulp on AVX512): a stated exception.
    """

    rule = FLOAT_OPMATH
    saves = ("result",)
    _backward_name = "SqrtBackward0"

    @staticmethod
    def kernel(dtype, a):
        return np.sqrt(a)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return dispatch("div", grad, dispatch("mul", out, 2))


@register_op("abs")
class Abs(Kernel):
    """``abs(input)`` (``torch.abs``); dtype kept; backward ``grad * sign(input)``.

    Raises:
        NotImplementedError: for bool tensors, as PyTorch ('"abs_cpu" not implemented for
            'Bool''). Float8 inputs keep -0 and NaN bytes in full 64-element vectors, as
            PyTorch's AVX512 kernel (``minigrad._fp8.abs_float8``).
    """

    rule = KEEP_DTYPE
    saves = ("input",)
    _backward_name = "AbsBackward0"

    @staticmethod
    def check(input):
        if isinstance(input, Tensor) and input.dtype is _dt.bool_:
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")

    @staticmethod
    def kernel(dtype, a):
        if dtype.is_float8:         # PyTorch's vector/tail split (minigrad/_fp8.py)
            return _fp8.abs_float8(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("sign", input))


@register_op("sign")
class Sign(Kernel):
    """``sign(input)``: -1, 0 or 1 (0 for NaN, as PyTorch), dtype kept (``torch.sign``); zero
    gradient."""

    rule = PROMOTE_OPMATH
    _backward_name = "SignBackward0"

    @staticmethod
    def kernel(dtype, a):
        if dtype is _dt.bool_:
            return a.copy()
        # PyTorch: sign(nan) = 0, sign(-0.0) = 0
        return (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad)


@register_op("sgn")
class Sgn(Sign):
    """``sgn(input)`` (``torch.sgn``): for real tensors ``sign`` (PyTorch's ``x / |x|`` applies
    to complex tensors, which minigrad does not have); node ``SgnBackward0``, zero gradient."""

    _backward_name = "SgnBackward0"


# ---------------------------------------------------------------------------------- pow
def _int_pow(a, b):
    """Integer power with PyTorch's rule for negative exponents (1, +-1 or 0)."""
    b = np.asarray(b)
    if not np.any(b < 0):
        return np.power(a, b)
    pos = np.power(a, np.maximum(b, 0))
    neg = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
    return np.where(b < 0, neg, pos).astype(pos.dtype)


def _pow_scalar_kernel(rt, a, e16, exponent):
    """PyTorch's ``pow_tensor_scalar`` kernel on the opmath input ``a``: ``e16`` is the exponent
    as the kernel base loads it (rounded to the result dtype), ``exponent`` the number given
    (fp32's scalar tail uses it as a double). Special cases 0, 1, 2, 3, 0.5, -0.5, -1, -2 (bf16
    rounds inside x**3 and x**-2, and inside x**-0.5 in ATen's scalar tail; fp16 has no sqrt/rsqrt special case: pow(-0.0, 0.5) is +0
    and pow(-0.0, -0.5) is +inf there).

    Raises:
        RuntimeError: an integer tensor to a negative integer power; a 16-bit exponent out of
            range (``check_scalar``).
    """
    if rt in (_dt.float16, _dt.bfloat16):     # the exponent is converted to the 16-bit type
        check_scalar(exponent, rt)
    if not rt.is_floating_point:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return np.power(a, a.dtype.type(exponent))
    e = float(e16)
    bf = rt is _dt.bfloat16
    if e == 0:
        return np.ones_like(a)
    if e == 1:
        return a.copy()
    if e == 2:
        return a * a
    if e == 3:
        return _r16(a * a, rt) * a if bf else a * a * a
    if e == 0.5 or e == -0.5:
        out = np.sqrt(a) if e > 0 else 1 / np.sqrt(a)
        if rt is _dt.float16:      # IEEE pow, not sqrt, at -0.0 and -inf
            out = np.where(a == 0, np.float32(np.inf if e < 0 else 0.0), out)
            out = np.where(np.isneginf(a), np.float32(0.0 if e < 0 else np.inf), out)
        elif bf and e < 0:         # ATen's scalar tail: 1 / sqrt(x) in bf16 arithmetic, as rsqrt
            tail = _nx.elementwise_tail(rt, a, kernel="pow_tensor_scalar")
            if tail is not None and tail.any():
                s16 = _nx.round_to(np.sqrt(a), rt)
                out = np.where(tail, _nx.round_to(np.float32(1) / s16, rt), out)
        return out
    if e == -1:
        return 1 / a
    if e == -2:
        return 1 / (_r16(a * a, rt) if bf else a * a)
    if rt is not _dt.float32:
        return np.power(a, a.dtype.type(e))
    # fp32: vector body uses the fp32 exponent, the scalar tail the double one
    a64 = a.astype(np.float64)
    out = np.power(a64, e)
    ed = float(exponent)
    if ed != e and _nx.CPU_CAPABILITY != "DEFAULT":     # DEFAULT: fp32 exponent throughout
        mask = tail_mask(a.shape, (a.shape,), _nx.loop_step(rt, "pow_tensor_scalar"))
        if mask is not None and mask.any():
            out = np.where(mask, np.power(a64, ed), out)
    return out


def _pow_tensor_kernel(rt, a, b):
    """``a ** b`` on opmath arrays; fp32 through float64 (libm's pow, correctly rounded there)."""
    if rt is _dt.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if not rt.is_floating_point:
        return _int_pow(a, b)
    if rt is _dt.float32:
        return np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.power(a, b)


@register_op("pow.Tensor_Scalar")
class Pow(Kernel):
    """``pow(input, exponent)`` with a Python-number exponent (``torch.pow``, node
    ``PowBackward0``); a Tensor exponent goes to ``PowBackward1``.

    Raises:
        RuntimeError: an integer tensor to a negative integer power ("Integers to negative
            integer powers are not allowed."); non-broadcastable shapes.
    """

    rule = PROMOTE_OPMATH
    operands = 2
    _backward_name = "PowBackward0"
    _saved_names = ("self",)
    _saved_scalars = {"exponent": "exponent"}

    @classmethod
    def forward(cls, ctx, input, exponent):
        out = cls.rule.run(_pow_scalar_kernel, (input, exponent), (exponent,), op="pow")
        ctx.exponent = exponent
        ctx.save_for_backward(input)
        return out

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        e = ctx.exponent
        # PyTorch's pow_backward shortcut (exponent.equal(0.0)) is false for a bool False, so
        # x ** False still gets 0 * x**-1 (nan at 0)
        if e == 0 and not isinstance(e, (bool, np.bool_)):
            return dispatch("zeros_like", input)
        e = float(e)
        return dispatch("mul", grad, dispatch("mul", dispatch("pow", input, e - 1), e))


@register_op("pow.Tensor_Tensor")
class PowTensor(Kernel):
    """``pow(input, exponent)`` with a Tensor exponent (node ``PowBackward1``)."""

    rule = PROMOTE_OPMATH
    args = ("input", "exponent")
    operands = 2
    saves = ("input", "exponent", "result")
    kernel = staticmethod(_pow_tensor_kernel)
    _backward_name = "PowBackward1"

    @staticmethod
    def backward(ctx, grad):
        input, exponent, out = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = gb = None
        if nig[0]:
            d = dispatch("mul", exponent, dispatch("pow", input, dispatch("sub", exponent, 1.0)))
            ga = dispatch("where", dispatch("eq", exponent, 0.0), 0.0, dispatch("mul", grad, d))
        if nig[1]:
            cond = dispatch("logical_and", dispatch("eq", input, 0.0),
                            dispatch("ge", exponent, 0.0))
            rt = _dt.result_type(input, exponent)
            s = input if input.dtype is rt else dispatch("_to_copy", input, dtype=rt)
            gb = dispatch("mul", grad, dispatch("where", cond, 0.0,
                                                dispatch("mul", out, dispatch("log", s))))
        return ga, gb


@register_packet("pow")
def _pow(args, kwargs):
    """``pow(input, exponent)`` -> ``pow.Tensor_Tensor``, ``pow.Tensor_Scalar``, or
    ``pow.Scalar`` for a Python-number ``input`` (``torch.pow(2, t)``)."""
    if args and not isinstance(args[0], Tensor):
        return "pow.Scalar", args, kwargs
    tensor_exp = len(args) > 1 and isinstance(args[1], Tensor)
    return ("pow.Tensor_Tensor" if tensor_exp else "pow.Tensor_Scalar"), args, kwargs


@register_packet("rpow")
def _rpow(args, kwargs):
    """``rpow(input, other)`` = ``pow(other, input)`` (``Tensor.__rpow__``)."""
    if len(args) == 2:
        args = (args[1], args[0])
    return _pow(args, kwargs)


@register_op("pow.Scalar")
class RPow(Kernel):
    """``pow(self, exponent)`` for a Python-number base ``self`` and a Tensor ``exponent``
    (``torch.pow(Scalar, Tensor)``, node ``PowBackward2``); the base is rounded to the result
    dtype."""

    rule = PROMOTE_OPMATH
    _backward_name = "PowBackward2"

    @classmethod
    def forward(cls, ctx, other, input):
        if not isinstance(input, Tensor):
            raise TypeError("pow() received an invalid combination of arguments - got "
                            f"({type(other).__name__}, {type(input).__name__})")
        # the tensor goes first through the kernel base (the base number is rounded to the
        # result dtype there), then the kernel takes them in pow's order
        out = cls.rule.run(lambda rt, e, base: _pow_tensor_kernel(rt, base, e), (input, other),
                           op="pow")
        ctx.base = other
        ctx.save_for_backward(out, input if other == 0 else None)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, input = ctx.saved_tensors
        with np.errstate(all="ignore"):
            lb = float(np.log(np.float64(ctx.base)))
        d = dispatch("mul", out, lb)
        if ctx.base == 0:
            d = dispatch("where", dispatch("ge", input, 0.0), 0.0, d)
        return None, dispatch("mul", grad, d)
