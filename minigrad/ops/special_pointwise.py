"""Pointwise ops of issue 7's in-place list and their in-place forms: ``copysign``
(``.Tensor`` / ``.Scalar``), ``sinc``, ``logit``, ``heaviside``, ``ldexp``, ``nextafter``, ``gcd``,
``lcm``, ``erfc`` and ``copysign_``, ``sinc_``, ``logit_``, ``heaviside_``, ``ldexp_``,
``nextafter_``, ``gcd_``, ``lcm_``, ``erfc_``, ``conj_physical_`` (real tensors: values kept).

Each out-of-place op is a ``Kernel`` (promotion, opmath, one rounding) with PyTorch's node and
backward formula (``derivatives.yaml``); each in-place op is ``run_inplace`` around it
(``minigrad/ops/inplace.py``: autograd's checks, the version bump, ``CopySlices`` on a view).
Numerics as ATen's CPU kernels:

- ``copysign``, ``heaviside``, ``nextafter``, ``gcd``, ``lcm``: exact in the result dtype.
- ``sinc``: ``sin(pi * x) / (pi * x)`` (1 at 0) with the product and the quotient rounded in
  opmath (fp32 for 16-bit, ATen's scalar ``sinc_kernel``); the sine correctly rounded to fp32
  (the C library's ``sinf``).
- ``logit``: ``log(x / (1 - x))`` after clamping to ``[eps, 1 - eps]`` when ``eps`` is given;
  ``x == 1`` gives inf. ATen's kernel runs in the storage type: for fp16/bf16 the clamped
  value, ``1 - x``, the quotient and the log each round to 16 bits (bit-exact on all 65,536
  inputs of each format, measured).
- ``ldexp``: ``input * 2**other`` as ATen's ``mul(input, pow(2, other))``: the power rounded
  to the result dtype, then the product (exact for integer exponents but for overflow).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .inplace import run_inplace
from .kernel import EXACT, FLOAT_FP64, FLOAT_OPMATH, KEEP_DTYPE, Kernel
from .modulo import _NotDifferentiable

__all__ = ["Sinc", "Logit", "CopysignTensor", "CopysignScalar", "Ldexp", "Nextafter", "Gcd",
           "Lcm", "Erfc", "heaviside"]


def _d(name, *args, **kw):
    return dispatch(name, *args, **kw)


def _tensor_arg(op, x, what="other", pos=2):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{what}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


# ------------------------------------------------------------------------------------- sinc
@register_op("sinc")
class Sinc(Kernel):
    """``sinc(input)`` = ``sin(pi x) / (pi x)``, 1 at 0 (``torch.sinc``, ``torch.special.sinc``);
    integers give the default float. Node ``SincBackward0``: ``grad * (pi x cos(pi x) -
    sin(pi x)) / (pi x**2)``, 0 where ``pi x**2`` is 0 (underflow included)."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "SincBackward0"

    @staticmethod
    def kernel(dtype, a):
        ct = a.dtype.type
        with np.errstate(all="ignore"):
            prod = ct(math.pi) * a                       # rounded in opmath
            s = np.sin(prod.astype(np.float64)).astype(a.dtype)
            out = s / prod
        return np.where(a == 0, ct(1), out)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors           # sinc_backward: the terms in ATen's order
        px = _d("mul", x, math.pi)
        sq = _d("mul", _d("mul", x, x), math.pi)
        num = _d("sub", _d("mul", px, _d("cos", px)), _d("sin", px))
        out = _d("div", _d("mul", grad, num), sq)
        return _d("masked_fill", out, _d("eq", sq, 0), 0.0)


# ------------------------------------------------------------------------------------ logit
@register_op("logit")
class Logit(Kernel):
    """``logit(input, eps=None)`` = ``log(x / (1 - x))`` (``torch.logit``,
    ``torch.special.logit``); with ``eps``, ``x`` is first clamped to ``[eps, 1 - eps]``;
    integers give the default float; nan outside [0, 1] without ``eps``. Node
    ``LogitBackward0``: ``grad / (x (1 - x))``, 0 outside ``[eps, 1 - eps]`` with ``eps``
    (nan outside [0, 1] without)."""

    rule = FLOAT_OPMATH
    args = ("input", "eps")
    saves = ("input",)
    keeps = ("eps",)
    _backward_name = "LogitBackward0"

    @staticmethod
    def kernel(dtype, a, eps=None):
        ct = a.dtype.type
        r = (lambda v: _nx.round_to(v, dtype)) if dtype.itemsize == 2 else (lambda v: v)
        with np.errstate(all="ignore"):
            if eps is not None and eps >= 0:
                lo, hi = ct(eps), ct(1 - eps)
                a = r(np.where(a < lo, lo, np.where(a > hi, hi, a)).astype(a.dtype))
            q = r(a / r(ct(1) - a))
            out = np.log(q.astype(np.float64)).astype(a.dtype)
        return np.where(a == 1, ct(np.inf), out)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        eps = ctx.eps
        g = _d("div", grad, _d("mul", x, _d("rsub", x, 1)))
        if eps is None or eps < 0:
            bad = _d("logical_or", _d("lt", x, 0), _d("gt", x, 1))
            return _d("masked_fill", g, bad, float("nan")), None
        bad = _d("logical_or", _d("lt", x, eps), _d("gt", x, 1 - eps))
        return _d("masked_fill", g, bad, 0.0), None


# --------------------------------------------------------------------------------- copysign
def _copysign_self_grad(grad, x, y):
    """``copysign_tensor_self_backward``: ``grad * result / self``, 0 where ``self == 0``."""
    ratio = _d("div", y, x)
    return _d("mul", grad, _d("masked_fill", ratio, _d("eq", x, 0), 0.0))


@register_op("copysign.Tensor")
class CopysignTensor(Kernel):
    """``copysign(input, other)``: ``|input|`` with the sign (bit) of ``other``, broadcasting
    (``torch.copysign``); integers give the default float; exact. Node ``CopysignBackward0``:
    ``grad * result / input`` (0 at 0) for ``input``, zeros for ``other``."""

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "other", "result")
    _backward_name = "CopysignBackward0"

    @staticmethod
    def kernel(dtype, a, b):
        return np.copysign(a, b)

    @staticmethod
    def backward(ctx, grad):
        x, other, y = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gx = _copysign_self_grad(grad, x, y) if nig[0] else None
        go = _d("zeros_like", other) if nig[1] else None
        return gx, go


@register_op("copysign.Scalar")
class CopysignScalar(Kernel):
    """``copysign(input, other)`` with a number ``other`` (``copysign.Scalar``; a 16-bit input
    keeps its dtype, integers give the default float). Node ``CopysignBackward1``."""

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "result")
    _backward_name = "CopysignBackward1"

    @staticmethod
    def kernel(dtype, a, b):
        return np.copysign(a, b)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return _copysign_self_grad(grad, x, y), None


def copysign_op(other):
    """The copysign overload for ``other``: ``copysign.Tensor`` or ``copysign.Scalar``."""
    return "copysign.Tensor" if isinstance(other, Tensor) else "copysign.Scalar"


# ------------------------------------------------------------------------------------ ldexp
@register_op("ldexp")
class Ldexp(Kernel):
    """``ldexp(input, other)`` = ``input * 2**other`` (``torch.ldexp``), broadcasting; integers
    give the default float. Node ``LdexpBackward0``: ``grad * 2**other`` (0 for a negative
    integer ``other``, as PyTorch's integer power there) and ``grad * input * ln 2 *
    2**other``.

    Raises:
        TypeError: ``other`` not a Tensor (PyTorch's ldexp takes tensors only).
        NotImplementedError: a bool ``other`` beside a floating ``input`` ('"ldexp_cpu_exp"
            not implemented for 'Bool'').
    """

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "other")
    _backward_name = "LdexpBackward0"

    @staticmethod
    def check(input, other):
        _tensor_arg("ldexp", other)
        if other.dtype is _dt.bool_ and input.dtype.is_floating_point:     # exp2 of a bool
            raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")

    @staticmethod
    def kernel(dtype, a, b):
        # ATen's composite mul(input, pow(2, other)): the power is a tensor of the result
        # dtype (rounded there), then one product rounded once
        with np.errstate(all="ignore"):
            p = np.exp2(np.asarray(b, np.float64)).astype(a.dtype)
            if dtype.itemsize == 2:
                p = _nx.round_to(p, dtype)
            return a * p

    @staticmethod
    def backward(ctx, grad):
        x, e = ctx.saved_tensors
        nig = ctx.needs_input_grad
        p = _d("pow.Scalar", 2.0, e)
        # PyTorch's formula takes 2**other in integer arithmetic for an integer ``other``:
        # 0 for a negative exponent (measured: ldexp(x, tensor([-2])) gives x.grad == 0)
        pi = p if e.dtype.is_floating_point else _d("masked_fill", p, _d("lt", e, 0), 0.0)
        gx = _d("mul", grad, pi) if nig[0] else None
        # d/d other = grad * result * ln 2, in PyTorch's order (16-bit: each product rounded;
        # grad * result may overflow where grad * x * ln 2 * 2**other would not)
        ge = _d("mul", _d("mul", grad, _d("mul", x, p)), math.log(2.0)) if nig[1] else None
        return gx, ge


# -------------------------------------------------------------------------------- nextafter
def _next16(a, b, npd):
    """``nextafter`` in a 16-bit format by its bit patterns (``a``/``b`` in that format)."""
    ia = a.view(np.uint16).astype(np.int32)
    sign = ia & 0x8000
    mag = ia & 0x7FFF
    af, bf = a.astype(np.float32), b.astype(np.float32)
    up = bf > af
    # towards larger values: magnitude + 1 for positives, - 1 for negatives
    step = np.where(up == (sign == 0), 1, -1)
    zero = af == 0
    res = np.where(zero, np.where(up, 1, 0x8001), sign | (mag + step))
    res = np.where(af == bf, b.view(np.uint16).astype(np.int32), res)
    out = res.astype(np.uint16).view(npd)
    return np.where(np.isnan(af) | np.isnan(bf), np.asarray(np.nan, npd), out)


@register_op("nextafter")
class Nextafter(Kernel):
    """``nextafter(input, other)``: the next representable value after ``input`` towards
    ``other``, in the promoted floating dtype (``torch.nextafter``; fp16/bf16 by bit
    pattern). Node ``NextafterBackward0``: ``grad`` for ``input`` where ``input != other``, 0
    where they are equal (measured against PyTorch), zeros for ``other``.

    Raises:
        TypeError: ``other`` not a Tensor. NotImplementedError: integer or bool operands
            ('"nextafter_cpu" not implemented for 'Long'').
    """

    rule = EXACT
    operands = 2
    saves = ("input", "other")
    _backward_name = "NextafterBackward0"

    @staticmethod
    def check(input, other):
        _tensor_arg("nextafter", other)
        rt = _dt.result_type(input, other)
        if not rt.is_floating_point:
            raise NotImplementedError(f'"nextafter_cpu" not implemented for '
                                      f"'{rt.scalar_name}'")

    @staticmethod
    def kernel(dtype, a, b):
        if dtype.itemsize == 2:
            a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
            return _next16(a, b, dtype.np)
        return np.nextafter(a, b)

    @staticmethod
    def backward(ctx, grad):
        x, other = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gx = _d("masked_fill", grad, _d("eq", x, other), 0.0) if nig[0] else None
        return gx, (_d("zeros_like", other) if nig[1] else None)


# ---------------------------------------------------------------------------------- gcd, lcm
def _int_check(op, input, other):
    _tensor_arg(op, other)
    rt = _dt.result_type(input, other)
    if rt.is_floating_point or rt is _dt.bool_:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'{rt.scalar_name}\'')


@register_op("gcd")
class Gcd(Kernel):
    """``gcd(input, other)``: the greatest common divisor (non-negative) of integer tensors,
    broadcasting (``torch.gcd``); not differentiable.

    Raises:
        TypeError: ``other`` not a Tensor. NotImplementedError: floating or bool operands
            ('"gcd_cpu" not implemented for 'Float'').
    """

    rule = EXACT
    operands = 2

    @staticmethod
    def check(input, other):
        _int_check("gcd", input, other)

    @staticmethod
    def kernel(dtype, a, b):
        return np.gcd(a, b)


@register_op("lcm")
class Lcm(Kernel):
    """``lcm(input, other)``: ``|a / gcd(a, b) * b|`` of integer tensors (0 if either is 0),
    broadcasting (``torch.lcm``); not differentiable.

    Raises:
        TypeError: ``other`` not a Tensor. NotImplementedError: floating or bool operands.
    """

    rule = EXACT
    operands = 2

    @staticmethod
    def check(input, other):
        _int_check("lcm", input, other)

    @staticmethod
    def kernel(dtype, a, b):
        with np.errstate(all="ignore"):
            return np.lcm(a, b)


# -------------------------------------------------------------------------------- heaviside
def _heaviside_values(input, values, op="heaviside"):
    def run(a, v):
        _tensor_arg("heaviside", v, "values")
        if a.dtype is not v.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different "
                               "dtypes.")
        return _HeavisideKernel.apply(a, v)
    return _NotDifferentiable.apply(op, run, input, values)


class _HeavisideKernel(Kernel):
    """The values of ``heaviside``: 0 below 0, 1 above, ``values`` at 0 (exact)."""

    rule = EXACT
    operands = 2

    @staticmethod
    def kernel(dtype, a, v):
        return np.where(a == 0, v, a > 0).astype(np.result_type(a, v))


@register_op("heaviside")
def heaviside(input, values):
    """``heaviside(input, values)``: 0 where ``input < 0``, 1 where ``> 0``, ``values`` where
    ``== 0`` (broadcasting; ``torch.heaviside``). No derivative: the node
    ``torch::autograd::NotImplemented`` raises "derivative for aten::heaviside is not
    implemented" in backward, as PyTorch.

    Raises:
        TypeError: ``values`` not a Tensor. RuntimeError: ``input`` and ``values`` of
            different dtypes ("heaviside is not yet implemented for tensors with different
            dtypes.").
    """
    return _heaviside_values(input, values)


# ------------------------------------------------------------------------------------- erfc
_ERFC = np.frompyfunc(math.erfc, 1, 1)


@register_op("erfc")
class Erfc(Kernel):
    """``erfc(input)`` = ``1 - erf(x)`` without cancellation (``torch.erfc``,
    ``torch.special.erfc``); integers give the default float. Computed in float64 (the C
    library's ``erfc``), rounded to a correctly rounded fp32, then once into 16 bits: bit-exact
    with PyTorch's Sleef ``erfcf_u15`` on all 65,536 inputs of fp16 and bf16 (measured),
    within 1 ulp in fp32. Node ``ErfcBackward0``: ``-2 / sqrt(pi) * exp(-x**2) * grad``."""

    rule = FLOAT_FP64
    saves = ("input",)
    _backward_name = "ErfcBackward0"

    @staticmethod
    def kernel(dtype, a):
        return np.asarray(_ERFC(np.asarray(a, np.float64)), np.float64)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        e = _d("exp", _d("neg", _d("mul", x, x)))
        return _d("mul", _d("mul", e, -2.0 / math.sqrt(math.pi)), grad)


# ---------------------------------------------------------------------------- conj_physical_
class _ConjPhysicalReal(Kernel):
    """``conj_physical`` of a real tensor: its values (exact); node ``ConjPhysicalBackward1``
    (the in-place form's), whose gradient is ``grad`` (the conjugate of a real gradient)."""

    rule = KEEP_DTYPE
    _backward_name = "ConjPhysicalBackward1"

    @staticmethod
    def kernel(dtype, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


# ---------------------------------------------------------------------------------- in-place
def _inplace(name, fn, doc):
    def op(self, *args, **kwargs):
        return run_inplace(self, fn, *args, **kwargs)
    op.__name__ = op.__qualname__ = name.replace(".", "_")
    op.__doc__ = doc + "\n\n    Raises:\n        RuntimeError: ``run_inplace``'s errors (a " \
        "leaf that requires grad, overlap, a result that cannot be cast to self's dtype: " \
        "\"result type Float can't be cast to the desired output type Long\"); the " \
        "out-of-place op's errors."
    return register_op(name, op)


def _ldexp_(self, other):
    _tensor_arg("ldexp", other)
    if not _dt.result_type(self, other).is_floating_point or \
            not self.dtype.is_floating_point:
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{self.dtype.scalar_name}")
    return Ldexp.apply(self, other)


_inplace("sinc_", Sinc.apply, "In-place ``sinc`` (``Tensor.sinc_``; node ``SincBackward0``).")
_inplace("logit_", Logit.apply, "In-place ``logit(eps=None)`` (``Tensor.logit_``; node "
         "``LogitBackward0``).")
_inplace("copysign_.Tensor", CopysignTensor.apply, "In-place ``copysign`` with a tensor "
         "``other`` (``Tensor.copysign_``; node ``CopysignBackward0``).")
_inplace("copysign_.Scalar", CopysignScalar.apply, "In-place ``copysign`` with a number "
         "``other`` (``Tensor.copysign_``; node ``CopysignBackward1``).")
_inplace("ldexp_", _ldexp_, "In-place ``ldexp`` (``Tensor.ldexp_``; node ``LdexpBackward0``; "
         "an integer ``self`` raises \"ldexp can't be cast to the desired output type Long\").")
_inplace("nextafter_", Nextafter.apply, "In-place ``nextafter`` (``Tensor.nextafter_``).")
def _int_inplace(cls):
    def fn(self, other):
        if isinstance(other, Tensor):
            rt = _dt.result_type(self, other)
            if rt.is_floating_point and not self.dtype.is_floating_point:
                raise RuntimeError(f"result type {rt.scalar_name} can't be cast to the desired "
                                   f"output type {self.dtype.scalar_name}")
        return cls.apply(self, other)
    return fn


_inplace("gcd_", _int_inplace(Gcd), "In-place ``gcd`` (``Tensor.gcd_``).")
_inplace("lcm_", _int_inplace(Lcm), "In-place ``lcm`` (``Tensor.lcm_``).")
_inplace("heaviside_", lambda self, values: _heaviside_values(self, values, "heaviside_"),
         "In-place ``heaviside`` (``Tensor.heaviside_``; no "
         "derivative, as PyTorch).")
_inplace("erfc_", Erfc.apply, "In-place ``erfc`` (``Tensor.erfc_``; node ``ErfcBackward0``).")
_inplace("conj_physical_", _ConjPhysicalReal.apply, "In-place ``conj_physical`` of a real "
         "tensor (``Tensor.conj_physical_``): the values unchanged, the version bumped, node "
         "``ConjPhysicalBackward1`` (minigrad has no complex dtypes).")
