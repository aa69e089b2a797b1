"""The gamma-function family: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma`` and
``special_zeta`` (the Hurwitz zeta function ``polygamma`` is built from).

How PyTorch's CPU kernels compute them, and what is reproduced here:

- ``lgamma``: ``Vectorized<float/double>::lgamma`` is SLEEF's ``lgamma_u10`` (the scalar tail
  too, measured: it differs from glibc's ``lgammaf``). Not reproduced bit for bit: here the C
  library's double ``lgamma`` (glibc through ``ctypes``, accurate to < 1 ulp of float64;
  CPython's ``math.lgamma`` where no C library is found, which is poor near 1 and 2), rounded to
  fp32, then to 16 bits. Measured against torch 2.13 on 105,000 draws (uniform on [-20, 20] and
  [0, 3], near 1 and 2, log-uniform up to 1e30 and down to -1e7): positive inputs within 1 ulp
  in fp32 and 2 ulp in fp64; negative inputs near a zero of lgamma (where the result is ~0 and
  SLEEF's relative error grows) up to 52 ulp in fp32 and 76 ulp in fp64. fp16: one of the
  65,536 inputs differs (1 ulp, x = 2.2637); bf16: two inputs near 4e36 give inf in torch
  (SLEEF's overflow threshold) and a finite number here; all others bit-exact.
- ``digamma``: ATen's own ``calc_digamma`` (Cephes' asymptotic series after pushing ``x`` to
  ``>= 10``, the reflection ``psi(1 - x) - pi / tan(pi r)`` for negative ``x``), repeated here
  step by step in the input's float type (fp32 for 16-bit, then one rounding): bit-exact on
  50,000 fp32 and fp64 draws and every 16-bit input, measured.
- ``polygamma(1, x)`` is ATen's ``trigamma`` (the same step-by-step repetition, ``sinf`` as
  the correctly rounded fp32 sine); ``polygamma(n >= 2, x)`` is ATen's ``calc_polygamma``:
  ``(-1)**(n+1) * exp(lgamma(n + 1)) * zeta(n + 1, x)``, with Cephes' ``zeta`` summed in the
  accumulate type (double for fp32, float for 16-bit).
- ``mvlgamma(x, p)``: ATen's composite: ``lgamma(x[..., None] + arange(-p/2 + 1/2, 1/2, 1/2))``
  summed over the last dim plus ``p (p - 1) / 4 * log(pi)``, each step rounded as those ops
  round.

Backward formulas (``derivatives.yaml``): ``lgamma' = digamma``, ``digamma' = polygamma(1,
x)``, ``polygamma(n, x)' = polygamma(n + 1, x)``, ``mvlgamma' = sum of digamma over the same
arguments``; ``zeta`` is differentiable in ``q`` only (``-x * zeta(x + 1, q)``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap
from .kernel import FLOAT_OPMATH, Kernel

__all__ = ["Lgamma", "Digamma", "Polygamma", "SpecialZeta", "mvlgamma", "lgamma64",
           "digamma_array", "trigamma_array", "zeta_array"]


# ---------------------------------------------------------------------- the C library's lgamma
def _libm(name, ctype, nargs=1):
    """The C library's function ``name`` as a NumPy ufunc over ``ctype`` values (None when no
    C library is found): PyTorch's scalar kernels call these (``std::log(float)`` is
    ``logf``...), and NumPy's own SIMD loops may differ from them in the last bit."""
    try:
        fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctype, [ctype] * nargs
    return np.frompyfunc(fn, nargs, 1)


_LGAMMA_C = _libm("lgamma", ctypes.c_double)
_C = {("log", 4): _libm("logf", ctypes.c_float), ("log", 8): _libm("log", ctypes.c_double),
      ("tan", 8): _libm("tan", ctypes.c_double), ("sin", 4): _libm("sinf", ctypes.c_float),
      ("pow", 4): _libm("powf", ctypes.c_float, 2), ("pow", 8): _libm("pow", ctypes.c_double, 2)}
_NP = {"log": np.log, "tan": np.tan, "sin": np.sin, "pow": np.power}


def _cm(name, *xs):
    """``name`` (log, tan, sin, pow) of fp32/fp64 arrays through the C library, in their own
    type (NumPy's ufunc when no C library is found)."""
    xs = np.broadcast_arrays(*[np.asarray(v) for v in xs])
    dt = xs[0].dtype
    f = _C.get((name, dt.itemsize))
    if f is None or xs[0].size == 0:
        return _NP[name](*xs)
    return np.asarray(f(*xs), dt).reshape(xs[0].shape)


def _pow(a, b):
    """``pow`` of two arrays of one float type, as the C library's ``powf`` / ``pow``."""
    return _cm("pow", a, np.asarray(b, np.asarray(a).dtype))


def _py_lgamma(v):
    try:
        return math.lgamma(v)
    except ValueError:          # poles: lgamma is +inf at 0, -1, -2...
        return math.inf


_LGAMMA_PY = np.frompyfunc(_py_lgamma, 1, 1)


def lgamma64(x):
    """``log|gamma(x)|`` of a float64 array: the C library's ``lgamma`` (+inf at the poles,
    +inf at +-inf, nan at nan)."""
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy()
    f = _LGAMMA_C if _LGAMMA_C is not None else _LGAMMA_PY
    return np.asarray(f(x), np.float64).reshape(x.shape)


# ---------------------------------------------------------------------- ATen's calc_digamma
_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def _log_t(x):
    """``log`` in the array's own float type, as the C library's ``logf`` / ``log``."""
    return _cm("log", x)


def digamma_array(x):
    """ATen's ``calc_digamma`` on an fp32 or fp64 array, every step in that type:

    - ``x == 0``: ``copysign(inf, -x)``; a negative integer (or -inf): nan;
    - ``x < 0``: ``psi(1 - x) - pi / tan(pi * r)`` with ``r`` the fractional part of ``x`` and the
      tangent in double (then rounded to the type, as ATen's float version does);
    - otherwise ``result -= 1/x; x += 1`` until ``x >= 10``; at exactly 10 ``result + psi(10)``;
      else ``result + log(x) - 0.5/x - z * P(z)`` with ``z = 1/x**2`` (``P``: Cephes' 7
      coefficients by Horner, 0 past 1e17).
    """
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        neg = x < 0
        is_int = x == np.trunc(x)
        refl = neg & ~is_int
        r = np.modf(x.astype(np.float64))[0]
        pi_over_tan = (math.pi / _cm("tan", math.pi * r)).astype(x.dtype)
        # elements that never enter the loop (nan, poles) start at 10: replaced below
        xx = np.where(refl, t(1) - x, np.where(neg | np.isnan(x), t(10), x))
        res = np.zeros_like(x)
        small = xx < 10
        while small.any():
            res = np.where(small, res - t(1) / xx, res)
            xx = np.where(small, xx + t(1), xx)
            small = xx < 10
        z = t(1) / (xx * xx)
        p = np.zeros_like(xx)
        for c in _DIGAMMA_A:
            p = p * z + t(c)
        y = np.where(xx < t(1e17), z * p, t(0))
        out = res + _log_t(xx) - t(0.5) / xx - y
        out = np.where(xx == 10, res + t(_PSI_10), out)
        out = np.where(refl, out - pi_over_tan, out)
        out = np.where(neg & is_int, t(np.nan), out)
        out = np.where(np.isnan(x), x, out)
        return np.where(x == 0, np.copysign(t(np.inf), -x), out)


def trigamma_array(x):
    """ATen's ``trigamma`` on an fp32 or fp64 array, every step in that type: for ``x < 0.5``
    the reflection ``-pi**2 / sin(pi x)**2`` (sign -1, ``x -> 1 - x``), then six terms
    ``1/x**2`` and the asymptotic ``(1 + 1/(2x) + ixx (1/6 - ixx (1/30 - ixx/42))) / x``."""
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        lo = x < t(0.5)
        pi = t(math.pi)
        s = _cm("sin", pi * x) if t is np.float32 else _cm("sin", (pi * x))
        res = np.where(lo, t(0) - (pi * pi) / (s * s), t(0))
        xx = np.where(lo, t(1) - x, x)
        for _ in range(6):
            res = res + t(1) / (xx * xx)
            xx = xx + t(1)
        ixx = t(1) / (xx * xx)
        c6, c30, c42 = (t(1) / t(6), t(1) / t(30), t(1) / t(42)) if t is np.float32 else \
            (1. / 6, 1. / 30, 1. / 42)
        res = res + (t(1) + t(1) / (t(2) * xx) + ixx * (t(c6) - ixx * (t(c30) - ixx * t(c42)))) \
            / xx
        return np.where(lo, -res, res)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta_array(x, q, acc):
    """ATen's ``zeta(x, q)`` (Cephes' Hurwitz zeta, Euler-Maclaurin) on arrays of the storage
    float type, summed in ``acc`` (ATen's CPU accumulate type: float64 for fp32, fp32 for
    16-bit); each element stops when its term falls below ``MACHEP`` of the sum, as in the C
    loop. Returns ``acc`` values (the caller rounds)."""
    x, q = np.broadcast_arrays(np.asarray(x), np.asarray(q))
    T = acc.type
    machep = T(1.11022302462515654042E-16)
    xa, qa = x.astype(acc), q.astype(acc)
    out = np.full(x.shape, np.nan, acc)
    with np.errstate(all="ignore"):
        live = np.ones(x.shape, bool)
        out[xa == 1] = np.inf
        live &= ~(xa <= 1)                     # x == 1: inf, x < 1: nan (nan goes on, as in C)
        pole = (qa <= 0) & (qa == np.floor(qa))
        out[live & pole] = np.inf
        live &= ~pole & ~((qa <= 0) & (xa != np.floor(xa)))
        # s = pow(q, -x) in the storage type (std::pow on scalar_t), then accumulated in acc
        if q.dtype.itemsize == 2:      # std::pow(Half, Half) resolves to powf
            s = _pow(q.astype(np.float32), -x.astype(np.float32)).astype(acc)
        else:
            s = _pow(q, -x).astype(acc)
        a = qa.copy()
        b = np.zeros_like(s)
        i = 0
        loop = live.copy()             # per element: while (i < 9) || (a <= 9)
        while loop.any():
            i += 1
            a = np.where(loop, a + T(1), a)
            b = np.where(loop, _pow(a, -xa), b)
            s = np.where(loop, s + b, s)
            hit = loop & (-machep * s < b) & (b < machep * s)
            out[hit] = s[hit]
            live &= ~hit
            loop = live & ((i < 9) | (a <= T(9)))
        w = a
        s = s + b * w / (xa - T(1))
        s = s - T(0.5) * b
        aa = np.ones_like(s)
        k = np.zeros_like(s)
        for c in _ZETA_A:
            if not live.any():
                break
            aa = aa * (xa + k)
            b = b / w
            tt = aa * b / T(c)
            s = s + tt
            hit = live & (np.abs(tt / s) < machep)
            out[hit] = s[hit]
            live &= ~hit
            k = k + T(1)
            aa = aa * (xa + k)
            b = b / w
            k = k + T(1)
        out[live] = s[live]
    return out


# ------------------------------------------------------------------------------- lgamma
@register_op("lgamma")
class Lgamma(Kernel):
    """``lgamma(input)`` = ``log|gamma(x)|`` (``torch.lgamma``, ``torch.special.gammaln``);
    integers give the default float; +inf at the poles (0, -1, -2...) and at +-inf. The C
    library's double lgamma rounded to fp32 then to 16 bits (PyTorch: SLEEF's ``lgamma_u10``;
    the bounds are in the module docstring). Node ``LgammaBackward0``: ``grad * digamma(x)``."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "LgammaBackward0"

    @staticmethod
    def kernel(dtype, a):
        return lgamma64(a).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("digamma", x))


@register_op("digamma")
class Digamma(Kernel):
    """``digamma(input)`` = ``d/dx log gamma(x)`` (``torch.digamma``, ``torch.special.psi``,
    ``torch.special.digamma``); integers give the default float; ``+-0`` gives ``-+inf``, a
    negative integer nan. ATen's ``calc_digamma`` step by step (``digamma_array``): bit-exact.
    Node ``DigammaBackward0``: ``grad * polygamma(1, x)``."""

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "DigammaBackward0"

    @staticmethod
    def kernel(dtype, a):
        return digamma_array(a)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("polygamma", x, 1))


def _polygamma_array(n, a, dtype):
    """``polygamma(n, a)`` for an opmath array ``a`` (fp32 for 16-bit), as ATen's kernels."""
    if n == 0:
        return digamma_array(a)
    if n == 1:
        return trigamma_array(a)
    # calc_polygamma<scalar_t>: (+-1) * exp(lgamma(n + 1)) * zeta(n + 1, x), scalar_t steps
    t = a.dtype.type
    fac = t(np.exp(np.float64(t(lgamma64(np.float64(n) + 1)))))   # std::exp(std::lgamma(T))
    sixteen = dtype.itemsize == 2
    store = dtype.np if sixteen else a.dtype
    x16 = a.astype(store)
    acc = np.dtype(np.float32) if sixteen else np.dtype(np.float64)
    z = zeta_array(np.full(a.shape, n + 1, store), x16, acc).astype(store)
    with np.errstate(all="ignore"):
        if sixteen:          # Half * float -> float; the zeta was rounded to Half first
            return (t(1 if n % 2 else -1) * fac) * z.astype(np.float32)
        return (t(1 if n % 2 else -1) * fac) * z


@register_op("polygamma")
class Polygamma(Kernel):
    """``polygamma(n, input)``: the ``n``-th derivative of digamma (``torch.polygamma``,
    ``torch.special.polygamma``); ``n = 0`` is digamma, ``n = 1`` ATen's trigamma, ``n >= 2``
    ATen's ``calc_polygamma`` (``exp(lgamma(n + 1)) * zeta(n + 1, x)`` with the sign of
    ``(-1)**(n+1)``). Integers give the default float. Node ``PolygammaBackward0``: ``grad *
    polygamma(n + 1, x)``.

    Raises:
        RuntimeError: ``n < 0`` ("polygamma(n, x) does not support negative n.").
    """

    rule = FLOAT_OPMATH
    args = ("input", "n")
    saves = ("input",)
    keeps = ("n",)
    _backward_name = "PolygammaBackward0"

    @staticmethod
    def check(input, n):
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")

    @staticmethod
    def kernel(dtype, a, n):
        return _polygamma_array(int(n), a, dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("mul", grad, dispatch("polygamma", x, ctx.n + 1)), None


@register_op("special_zeta")
class SpecialZeta(Kernel):
    """``special_zeta(input, other)``: the Hurwitz zeta function ``sum_k (k + q)**-x`` of
    ``x = input``, ``q = other`` (``torch.special.zeta``), broadcasting, promoting (integers
    give the default float). Cephes' ``zeta`` in ATen's accumulate type (``zeta_array``);
    fp16/bf16 are refused, as PyTorch's CPU kernel. Node ``SpecialZetaBackward0``: no gradient for ``x``
    (PyTorch: "not implemented"), ``grad * -x * zeta(x + 1, q)`` for ``q``."""

    rule = FLOAT_OPMATH
    operands = 2
    saves = ("input", "other")
    _backward_name = "SpecialZetaBackward0"

    @staticmethod
    def check(input, other):
        rt = _dt.result_type(input, other)       # the common dtype (0-dim, numbers weak)
        if rt.is_floating_point and rt.itemsize == 2:               # the common dtype
            raise NotImplementedError(f"\"zeta_cpu\" not implemented for '{rt.scalar_name}'")

    @staticmethod
    def kernel(dtype, x, q):
        sixteen = dtype.itemsize == 2
        store = dtype.np if sixteen else np.asarray(x).dtype
        acc = np.dtype(np.float32) if sixteen else np.dtype(np.float64)
        xs, qs = np.asarray(x).astype(store), np.asarray(q).astype(store)
        return zeta_array(xs, qs, acc).astype(store).astype(np.asarray(x).dtype)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'self' is not implemented.")
        # derivatives.yaml: grad * -self * special_zeta(self + 1., other), left to right
        gq = dispatch("mul", dispatch("mul", grad, dispatch("neg", x)),
                      dispatch("special_zeta", dispatch("add", x, 1), q))
        return None, gq


class _ZetaSelfScalar(SpecialZeta):
    _backward_name = "SpecialZetaBackward1"


class _ZetaOtherScalar(SpecialZeta):
    _backward_name = "SpecialZetaBackward2"


@register_op("special_zeta.self_scalar")
def zeta_self_scalar(self, other):
    """``torch.special.zeta(x, q)`` with a number ``x`` (node ``SpecialZetaBackward1``: the
    gradient of ``q``)."""
    from .distribution_loss import _wrapped
    return _ZetaSelfScalar.apply(_wrapped(self, other), other)


@register_op("special_zeta.other_scalar")
def zeta_other_scalar(self, other):
    """``torch.special.zeta(x, q)`` with a number ``q`` (node ``SpecialZetaBackward2``: no
    gradient for ``x``)."""
    from .distribution_loss import _wrapped
    return _ZetaOtherScalar.apply(self, _wrapped(other, self))


def zeta_op(input, other):
    """The ``special_zeta`` overload for these arguments (two tensors, a number first, a
    number second).

    Raises:
        TypeError: neither argument a Tensor.
    """
    a, b = isinstance(input, Tensor), isinstance(other, Tensor)
    if a and b:
        return "special_zeta"
    if b:
        return "special_zeta.self_scalar"
    if a:
        return "special_zeta.other_scalar"
    raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                    f"({type(input).__name__}, {type(other).__name__})")


# ------------------------------------------------------------------------------- mvlgamma
def _mvlgamma_check(input, p, op="mvlgamma"):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    a = input._data.astype(np.float64)
    if input.numel() and bool((np.isfinite(a) & (a <= (p - 1) / 2)).any()):
        raise RuntimeError("All elements must be greater than (p-1)/2")


class Mvlgamma(Function):
    """``mvlgamma(input, p)``: the log of the multivariate gamma function of dimension ``p``
    (``torch.mvlgamma``, ``torch.special.multigammaln``), ATen's composite in its steps:
    ``args = arange(-p/2 + 0.5, 0.5, 0.5) + x[..., None]`` (rounded to the dtype),
    ``lgamma(args)`` (rounded), summed over the last dim (fp32 accumulation for 16-bit, one
    rounding), plus ``p (p - 1) / 4 * log(pi)`` (rounded). Integers give the default float.
    Node ``MvlgammaBackward0``: ``grad * digamma(args).sum(-1)``."""

    _backward_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, input, p):
        _mvlgamma_check(input, p)
        rt = input.dtype if input.dtype.is_floating_point else _dt.get_default_dtype()
        ctx.p, ctx.rt = p, rt
        ctx.save_for_backward(input)
        st = rt.np
        steps = (np.arange(p, dtype=np.float64) * 0.5 + (-p / 2.0 + 0.5)).astype(st)
        with np.errstate(all="ignore"):
            args = (input._data.astype(st)[..., None] + steps).astype(st) if rt.itemsize > 2 \
                else (input._data.astype(np.float32)[..., None] + steps.astype(np.float32)
                      ).astype(st)
            lg = lgamma64(args.astype(np.float64)).astype(np.float32 if rt.itemsize == 2
                                                          else st).astype(st)
            acc = np.dtype(np.float32) if rt.itemsize == 2 else np.dtype(st)
            s = np.add.reduce(lg.astype(acc), axis=-1).astype(st)
            c = p * (p - 1) * math.log(math.pi) * 0.25
            # add_(number): a 16-bit tensor takes the number rounded to its dtype first
            cc = acc.type(np.float64(c).astype(st)) if rt.itemsize == 2 else acc.type(c)
            out = (s.astype(acc) + cc).astype(st)
        return wrap(np.asarray(out), rt)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        p = ctx.p
        steps = dispatch("arange", -p / 2.0 + 0.5, 0.5, 0.5, dtype=ctx.rt)
        args = dispatch("add", steps, dispatch("unsqueeze", x, -1))
        return dispatch("mul", grad, dispatch("sum", dispatch("digamma", args), -1)), None


@register_op("mvlgamma")
def mvlgamma(input, p):
    """``mvlgamma(input, p)``; see ``Mvlgamma``.

    Raises:
        RuntimeError: ``p < 1`` ("p has to be greater than or equal to 1"); a finite element
            ``<= (p - 1) / 2`` ("All elements must be greater than (p-1)/2").
    """
    return Mvlgamma.apply(input, p)
