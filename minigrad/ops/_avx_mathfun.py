"""The float32 ``log`` and ``sincos`` of ATen's ``avx_mathfun.h``, as its AVX2 build computes them.

PyTorch's CPU ``normal_`` turns uniforms into normals with Box-Muller, 16 values at a time, and on
an AVX2 machine it takes the logarithm, sine and cosine from ``avx_mathfun.h`` (Julien Pommier's
SSE port of the Cephes polynomials, widened to AVX): not libm's, and not NumPy's, so each result
can differ from a correctly rounded one in the last bit. Reproducing ``torch.randn`` bit for bit
needs the same polynomials, evaluated in the same order, in float32.

One more detail decides the last bit: the compiler (GCC with ``-mfma``) contracts a multiply
whose only use is an add into one fused multiply-add. Which pairs it fuses follows from the
order of the statements (the first multiply feeding an add takes the fma); the choice below is
the one that matched torch 2.13's output on 64,000 of 64,000 samples, where leaving the
contractions out differs on about 1%. ``fma`` is ``minigrad.numerics.fma32`` (one rounding).
"""
from __future__ import annotations

import numpy as np

from ..numerics import fma32

__all__ = ["log_ps", "sincos_ps"]

_F = np.float32

_LOG_P = tuple(_F(c) for c in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                               -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                               2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1))
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_SQRTHF = _F(0.707106781186547524)
_DP = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_SIN_P = (_F(-1.9515295891E-4), _F(8.3321608736E-3), _F(-1.6666654611E-1))
_COS_P = (_F(2.443315711809948E-005), _F(-1.388731625493765E-003), _F(4.166664568298827E-002))
_FOPI = _F(1.27323954473516)        # 4 / pi


def _fma(a, b, c):
    a = np.asarray(a, _F)
    return fma32(a, np.broadcast_to(_F(b), a.shape), np.broadcast_to(_F(c), a.shape))


def log_ps(x):
    """``log256_ps``: the natural log of positive float32 ``x`` (NaN where ``x <= 0``).

    Splits ``x = m * 2**e`` with ``m`` in [sqrt(1/2), sqrt(2)), evaluates the degree-9 Cephes
    polynomial in ``m - 1`` (Horner, each step one fma), and adds ``e * log(2)`` in two parts.
    """
    x = np.asarray(x, _F)
    invalid = ~(x > 0)
    bits = np.maximum(x, _F(np.finfo(_F).tiny)).view(np.int32)      # subnormals cut off
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    m = ((bits & ~0x7F800000) | 0x3F000000).view(_F)                 # mantissa in [0.5, 1)
    small = m < _SQRTHF
    m = (m - _F(1)) + np.where(small, m, _F(0))                        # 2m - 1 or m - 1
    e = e - np.where(small, _F(1), _F(0))
    z = m * m
    y = np.full_like(m, _LOG_P[0])
    for c in _LOG_P[1:]:
        y = _fma(y, m, c)                                              # y * m + c
    y = y * m
    y = fma32(y, z, e * _LOG_Q1)                                       # y * z + e * q1
    y = _fma(z, _F(-0.5), y)                                           # y - z / 2
    out = _fma(e, _LOG_Q2, m + y)                                      # (m + y) + e * q2
    return np.where(invalid, _F(np.nan), out)


def sincos_ps(x):
    """``sincos256_ps``: ``(sin(x), cos(x))`` of float32 ``x`` (accurate for ``|x| < 8192``).

    Reduces ``|x|`` by multiples of pi/4 (octant ``j``, Cody-Waite in three parts), evaluates
    the Cephes sine and cosine polynomials on the remainder and picks and signs them by octant.
    """
    x = np.asarray(x, _F)
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)                                   # truncation
    j = (j + 1) & ~1
    y = j.astype(_F)
    for dp in _DP:
        x = _fma(y, dp, x)                                             # x - y * (pi/4 part)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    z = x * x
    yc = np.full_like(x, _COS_P[0])
    for c in _COS_P[1:]:
        yc = _fma(yc, z, c)
    yc = yc * z
    yc = fma32(yc, z, -(z * _F(0.5))) + _F(1)                         # cos: 1 - z/2 + z^2 P(z)
    ys = np.full_like(x, _SIN_P[0])
    for c in _SIN_P[1:]:
        ys = _fma(ys, z, c)
    ys = fma32(ys * z, x, x)                                          # sin: x + x z P(z)
    s = np.where(use_sin_poly, ys, yc)
    c = np.where(use_sin_poly, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)
