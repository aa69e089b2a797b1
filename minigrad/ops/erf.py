"""The error function and its inverse: ``erf``, ``erfinv``, and the two erf evaluations PyTorch's
CPU kernels use (shared by ``gelu`` and ``gelu_backward``).

PyTorch computes erf two ways on the CPU, and 16-bit results depend on which:

- fp32 and fp64 ``torch.erf`` go through MKL's vector math (``vml::verf``): (nearly) correctly
  rounded. Here: the float64 value (``math.erf``), rounded once to fp32 (``FLOAT_FP64``).
- everything that calls ``Vectorized<float>::erf`` (16-bit ``erf``, and ``gelu`` in every
  float dtype below fp64) evaluates Abramowitz & Stegun's formula 7.1.26 in fp32 with fused
  multiply-adds and an fp32 ``exp``: ``1 - t*(p1 + t*(p2 + ...))*exp(-x*x)`` with
  ``t = 1/(1 + p*|x|)``, sign copied from ``x`` (absolute error ~1.5e-7). ``erf_vec32`` repeats
  those fp32 steps. Measured: the ``erf`` op takes this path for every 16-bit element (its
  vector-math loop has no scalar tail), while ``gelu``'s scalar tail calls ``std::erf``.

``erfinv``: PyTorch's ``calc_erfinv`` (a rational first guess refined by two Newton steps) in the
input's opmath; here the float64 inverse (bisection-free Newton on ``math.erf``), rounded once
to fp32 and then to 16 bits.
"""
from __future__ import annotations

import math

import numpy as np

from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from .kernel import FLOAT_FP64, FLOAT_OPMATH, Kernel

_ERF64 = np.frompyfunc(math.erf, 1, 1)
_ERFC64 = np.frompyfunc(math.erfc, 1, 1)

# Abramowitz & Stegun 7.1.26, as ATen's Vectorized<float>::erf spells the constants
_P = np.float32(0.3275911)
_A = tuple(np.float32(c) for c in (0.254829592, -0.284496736, 1.421413741, -1.453152027,
                                   1.061405429))
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def erf64(x):
    """erf of a float64 array, (nearly) correctly rounded (``math.erf`` elementwise)."""
    x = np.asarray(x, np.float64)
    return np.asarray(_ERF64(x), np.float64).reshape(x.shape)


def erfc64(x):
    """erfc of a float64 array (``math.erfc`` elementwise)."""
    x = np.asarray(x, np.float64)
    return np.asarray(_ERFC64(x), np.float64).reshape(x.shape)


def exp32(x):
    """fp32 ``exp`` rounded correctly (float64 maths, one rounding): Sleef's ``expf_u10``."""
    return np.exp(np.asarray(x, np.float64)).astype(np.float32)


def erf_vec32(x):
    """ATen's ``Vectorized<float>::erf`` on an fp32 array: A&S 7.1.26 step by step in fp32."""
    x = np.asarray(x, np.float32)
    one = np.float32(1)
    with np.errstate(all="ignore"):
        t = one / _nx.fma32(_P, np.abs(x), one)
        r = _nx.fma32(_A[4], t, _A[3])
        for c in (_A[2], _A[1], _A[0]):
            r = _nx.fma32(r, t, c)
        e = -exp32(-(x * x))
        out = _nx.fma32(e * t, r, one)
    return np.copysign(out, x)


@register_op("erf")
class Erf(Kernel):
    """``erf(input)`` (``torch.erf``, ``torch.special.erf``); integers give the default float.

    fp32/fp64: correctly rounded (PyTorch's MKL path, within 1 ulp of it). fp16/bf16: ATen's
    fp32 A&S evaluation (``erf_vec32``) rounded once: bit-exact on all 65,536 inputs of each
    format. Backward ``grad * 2/sqrt(pi) * exp(-x*x)``
    (``ErfBackward0``).
    """

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "ErfBackward0"

    @staticmethod
    def kernel(dtype, a):
        if a.dtype == np.float64:
            return erf64(a)
        if dtype.itemsize == 2:
            return erf_vec32(a)
        return erf64(a).astype(np.float32)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # derivatives.yaml's order: (2 / sqrt(pi) * exp(-x^2)) * grad, each op rounded
        d = dispatch("exp", dispatch("neg", dispatch("mul", x, x)))
        return dispatch("mul", dispatch("mul", d, _TWO_OVER_SQRT_PI), grad)


def erfinv64(y):
    """Inverse error function of a float64 array: Giles' approximation refined by Newton steps
    on ``math.erf`` (``math.erfc`` for ``|y| > 0.5``); +-inf at +-1, nan outside [-1, 1]."""
    y = np.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        a = np.abs(y)
        # Giles' single-precision approximation as the first guess
        w = -np.log((1 - a) * (1 + a))
        small = w < 5
        ws = w - 2.5
        wl = np.sqrt(np.where(small, 5.0, w)) - 3.0
        ps = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            ps = c + ps * ws
        pl = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            pl = c + pl * wl
        x = np.where(small, ps, pl) * a
        # Newton on erf(x) - a, or on erfc(x) - (1 - a) near 1 where erf(x) - a cancels
        # (1 - a is exact there)
        near_one = a > 0.5
        for _ in range(3):
            xf = np.where(np.isfinite(x), x, 0.0)
            fx = np.where(near_one, (1 - a) - erfc64(xf),
                          erf64(xf) - a)
            x = x - fx / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = np.where(a == 1, np.inf, x)
        x = np.where(a > 1, np.nan, x)
        x = np.where(a == 0, 0.0, x)
    return np.copysign(x, y)


@register_op("erfinv")
class Erfinv(Kernel):
    """``erfinv(input)`` (``torch.erfinv``, ``torch.special.erfinv``): the inverse error
    function on [-1, 1] (+-inf at +-1, nan outside); integers give the default float. A
    correctly rounded fp32 value, then one rounding to 16 bits. Backward
    ``grad * sqrt(pi)/2 * exp(erfinv(x)**2)`` (``ErfinvBackward0``)."""

    rule = FLOAT_FP64
    saves = ("result",)
    _backward_name = "ErfinvBackward0"

    @staticmethod
    def kernel(dtype, a):
        return erfinv64(a)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        # derivatives.yaml's order: (0.5 * sqrt(pi) * exp(erfinv(x)^2)) * grad
        d = dispatch("exp", dispatch("mul", out, out))
        return dispatch("mul", dispatch("mul", d, 0.5 * math.sqrt(math.pi)), grad)
