"""The modified Bessel functions of the first kind: ``i0`` (``torch.i0``, ``torch.special.i0``),
``special_i0e``, ``special_i1``, ``special_i1e`` (``torch.special.i0e / i1 / i1e``).

How ATen's CPU kernels compute them (``calc_i0`` ... in ``ATen/native/Math.h``, from the
Cephes library), and what is repeated here step by step, in the input's float type:

- ``|x| <= 8``: a Chebyshev series in ``y = |x| / 2 - 2`` of ``exp(-|x|) I(|x|)`` (30
  coefficients for I0, 29 for I1 in double, 17 in float); ``|x| > 8``: one in
  ``y = 32 / |x| - 2`` of ``exp(-|x|) sqrt(|x|) I(|x|)`` (25 for I0, 25 / 7 for I1), divided
  by ``sqrt(|x|)``. The unscaled functions multiply by ``exp(|x|)`` (the C library's
  ``expf`` / ``exp``), I1 by ``|x|`` too; I1 is odd.
- The series (Clenshaw's recurrence ``b0 = y * b1 - b2 + c``, ``0.5 * (b0 - b2)``) with GCC's
  contraction ``fma(y, b1, -b2) + c``, as the kernels are built (measured: with that fma the
  results are bit-exact with torch 2.13 on 40,000 fp32 and fp64 draws, without it ~10% of
  them differ).
- float16 / bfloat16 compute in float32 and round once (ATen's upcasting overloads), except
  ``i0e``'s scalar tail (the last elements of each row after the vectorised loop, see
  ``numerics.elementwise_tail``), which ATen evaluates in the 16-bit type, rounding after
  every operation; repeated here.

Backward (``derivatives.yaml``): ``i0' = i1``; ``i0e' = i1e - sgn(x) i0e``; ``i1' = i0 -
i1 / x`` and ``i1e' = i0e - i1e (sgn(x) + 1 / x)``, both 0.5 where ``|x| <= eps`` (the
functions' limit at 0, ATen's ``i1_backward`` / ``i1e_backward``).
"""
from __future__ import annotations

import ctypes

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from .gamma import _libm
from .kernel import FLOAT_OPMATH, Kernel

__all__ = ["I0", "SpecialI0e", "SpecialI1", "SpecialI1e"]

# Cephes' Chebyshev coefficients (highest order first): exp(-x) I0(x) on [0, 8] and
# exp(-x) sqrt(x) I0(x) on (8, inf)
_I0_A = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0_B = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1)
# exp(-x) I1(x) / x on [0, 8] and exp(-x) sqrt(x) I1(x) on (8, inf); ATen's float kernels use
# only the last 17 / 7 of them
_I1_A = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
    9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
    -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
    4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
    -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
    2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
    -1.76416518357834055153e-1, 2.52587186443633654823e-1)
_I1_B = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
    -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
    7.78576235018280120474e-1)
_I1_LEN = {4: (17, 7), 8: (29, 25)}         # coefficients used: float, double

_EXP = {4: _libm("expf", ctypes.c_float), 8: _libm("exp", ctypes.c_double)}


def _exp(x):
    """``exp`` of an fp32/fp64 array through the C library (``std::exp``), in its type."""
    f = _EXP.get(x.dtype.itemsize)
    if f is None or x.size == 0:
        return np.exp(x)
    with np.errstate(all="ignore"):
        return np.asarray(f(x), x.dtype).reshape(x.shape)


def _chbevl(y, coef, r=None):
    """Clenshaw's sum of a Chebyshev series at ``y/2`` (Cephes' ``chbevl``) in ``y``'s type,
    each step ``fma(y, b1, -b2) + c`` (GCC's contraction in ATen's build); ``r`` rounds after
    every operation (ATen's 16-bit scalar tail), and then no fma."""
    cd = y.dtype
    c = [cd.type(v) for v in coef]
    if r is not None:
        c = [r(np.asarray(v)) for v in c]
    fma = _nx.fma32 if cd == np.float32 else _nx.fma64
    b0 = np.full_like(y, c[0])
    b1 = np.zeros_like(y)
    b2 = b1
    for a in c[1:]:
        b2, b1 = b1, b0
        if r is None:
            b0 = fma(y, b1, -b2) + a
        else:
            b0 = r(r(r(y * b1) - b2) + a)
    out = cd.type(0.5) * (b0 - b2)
    return out if r is None else r(r(b0 - b2) * cd.type(0.5))


def _bessel(x, which, scaled, r=None):
    """I0/I1 (``which`` 0/1), exponentially scaled when ``scaled``, of the opmath array ``x``
    as ATen's ``calc_*`` (``r``: round every step to 16 bits, i0e's scalar tail)."""
    cd = x.dtype
    c = cd.type
    rr = r if r is not None else (lambda v: v)
    ax = np.abs(x)
    small = ax <= 8
    if which == 0:
        ca, cb = _I0_A, _I0_B
    else:
        na, nb = _I1_LEN[cd.itemsize]
        ca, cb = _I1_A[-na:], _I1_B[-nb:]
    with np.errstate(all="ignore"):
        ya = rr(rr(ax / c(2)) - c(2))
        yb = rr(rr(c(32) / ax) - c(2))
        sa = _chbevl(ya, ca, r)
        sb = _chbevl(yb, cb, r)
        if scaled:
            lo = rr(sa * ax) if which == 1 else sa
            hi = rr(sb / np.sqrt(ax))        # the square root stays fp32 (a float call)
        else:
            e = _exp(ax)
            lo = (e * ax) * sa if which == 1 else e * sa
            hi = (e * sb) / np.sqrt(ax)
        out = np.where(small, lo, hi)
    if which == 1:
        out = np.where(x < 0, -out, out)
    return out.astype(cd, copy=False)


class _BesselKernel(Kernel):
    rule = FLOAT_OPMATH
    args = ("input",)
    which = 0
    scaled = False
    tail_in_16bit = False

    @classmethod
    def kernel(cls, dtype, a):
        out = _bessel(a, cls.which, cls.scaled)
        if cls.tail_in_16bit and dtype.itemsize == 2 and dtype.is_floating_point:
            tail = _nx.elementwise_tail(dtype, a)
            if tail is not None and tail.any():
                out = out.copy()
                out[tail] = _bessel(a[tail], cls.which, cls.scaled,
                                    lambda v: _nx.round_to(v, dtype))
        return out


def _tiny_guard(x, grad, gradx_of_safe):
    """ATen's ``i1_backward`` / ``i1e_backward``: ``grad * gradx`` where ``|x| > eps`` (the
    formula on ``x``), ``grad * 0.5`` elsewhere (the formula at ``eps``, discarded)."""
    eps = _dt.finfo(x.dtype).eps
    big = dispatch("gt", dispatch("abs", x), eps)
    safe = dispatch("where", big, x, dispatch("full_like", x, eps))
    g = dispatch("where", big, gradx_of_safe(safe), dispatch("full_like", x, 0.5))
    return dispatch("mul", grad, g)


@register_op("i0")
class I0(_BesselKernel):
    """``i0(input)``: the modified Bessel function of the first kind, order 0 (``torch.i0``,
    ``torch.special.i0``); integers give the default float. ``I0Backward0``: ``grad *
    i1(x)``. Numerics: see the module docstring (bit-exact with torch 2.13)."""

    saves = ("input",)
    _backward_name = "I0Backward0"

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("special_i1", x))


@register_op("special_i0e")
class SpecialI0e(_BesselKernel):
    """``special_i0e(input)`` = ``exp(-|x|) I0(x)`` (``torch.special.i0e``); integers give the
    default float. ``SpecialI0EBackward0``: ``grad * (i1e(x) - sgn(x) * result)``."""

    saves = ("input", "result")
    scaled = True
    tail_in_16bit = True
    _backward_name = "SpecialI0EBackward0"

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        d = dispatch("sub", dispatch("special_i1e", x), dispatch("mul", dispatch("sgn", x), y))
        return dispatch("mul", grad, d)


@register_op("special_i1")
class SpecialI1(_BesselKernel):
    """``special_i1(input)``: the modified Bessel function of the first kind, order 1
    (``torch.special.i1``), odd; integers give the default float. ``SpecialI1Backward0``:
    ``grad * (i0(x) - result / x)``, ``grad * 0.5`` where ``|x| <= eps``."""

    saves = ("input", "result")
    which = 1
    _backward_name = "SpecialI1Backward0"

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return _tiny_guard(x, grad, lambda s: dispatch(
            "sub", dispatch("i0", s), dispatch("mul", y, dispatch("reciprocal", s))))


@register_op("special_i1e")
class SpecialI1e(_BesselKernel):
    """``special_i1e(input)`` = ``exp(-|x|) I1(x)`` (``torch.special.i1e``), odd; integers give
    the default float. ``SpecialI1EBackward0``: ``grad * (i0e(x) - result * (sgn(x) +
    1 / x))``, ``grad * 0.5`` where ``|x| <= eps``."""

    saves = ("input", "result")
    which = 1
    scaled = True
    _backward_name = "SpecialI1EBackward0"

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return _tiny_guard(x, grad, lambda s: dispatch(
            "sub", dispatch("special_i0e", s),
            dispatch("mul", y, dispatch("add", dispatch("sgn", s), dispatch("reciprocal", s)))))


def _i0_(self):
    from .inplace import run_inplace
    return run_inplace(self, I0.apply)


_i0_.__doc__ = ("In-place ``i0`` (``Tensor.i0_``; node ``I0Backward0``).\n\n    Raises:\n"
                "        RuntimeError: ``run_inplace``'s errors (a leaf that requires grad, "
                "an integer self: \"result type Float can't be cast to the desired output type "
                "Long\").")
register_op("i0_", _i0_)
