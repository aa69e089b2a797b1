"""``minigrad.special`` (mirrors ``torch.special``): the special functions minigrad has so far,
each one dispatch of the op of the same name (``erf``, ``erfinv``, ``expm1``, ``exp2``,
``log1p``, ``xlogy``, ``sinc``, ``logit``, ``entr``, ``xlog1py``, ``zeta``, ``digamma``,
``polygamma``) or its alias (``expit`` is ``sigmoid``, ``round`` is ``round``, ``gammaln`` is
``lgamma``, ``psi`` is ``digamma``, ``multigammaln`` is ``mvlgamma``; ``logsumexp``,
``softmax``, ``log_softmax`` are the torch functions). ``ndtr`` is PyTorch's composite
``(1 + erf(x / sqrt 2)) * 0.5``, as dispatched ops. The Bessel functions ``i0`` (the ``i0``
op), ``i0e``, ``i1``, ``i1e`` (``special_i0e``... ops: ``minigrad/ops/special_bessel.py``)
and ``ndtri``, ``log_ndtr``, ``erfcx`` (``minigrad/ops/special_normal.py``) are ops of their
own, with their stated numerics."""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["erf", "erfinv", "expm1", "exp2", "log1p", "expit", "round", "xlogy", "sinc",
           "logit", "erfc", "gammaln", "digamma", "psi", "polygamma", "multigammaln", "entr",
           "xlog1py", "zeta", "ndtr", "logsumexp", "softmax", "log_softmax", "i0", "i0e", "i1",
           "i1e", "ndtri", "log_ndtr", "erfcx"]


def erf(input):
    """The error function (``torch.special.erf``); fp16/bf16 as ATen's fp32 evaluation."""
    return dispatch("erf", input)


def erfinv(input):
    """The inverse error function (``torch.special.erfinv``); +-inf at +-1, nan outside."""
    return dispatch("erfinv", input)


def expm1(input):
    """``exp(x) - 1`` (``torch.special.expm1``), accurate near 0."""
    return dispatch("expm1", input)


def exp2(input):
    """``2 ** x`` (``torch.special.exp2``); integer inputs give the default float dtype."""
    return dispatch("exp2", input)


def log1p(input):
    """``log(1 + x)`` (``torch.special.log1p``), accurate near 0."""
    return dispatch("log1p", input)


def expit(input):
    """The logistic sigmoid (``torch.special.expit``): the ``sigmoid`` op."""
    return dispatch("sigmoid", input)


def round(input, *, decimals=0):
    """``torch.special.round``: ``torch.round`` (halves to even, ``decimals`` places)."""
    return dispatch("round.decimals", input, decimals) if decimals else dispatch("round", input)


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` (``torch.special.xlogy``); either
    argument may be a Python number (``xlogy.Scalar_Self`` / ``xlogy.Scalar_Other``).

    Raises:
        TypeError: neither argument a Tensor.
    """
    from .ops.distribution_loss import xlogy_op
    return dispatch(xlogy_op(input, other), input, other)


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0 (``torch.special.sinc``): the ``sinc`` op."""
    return dispatch("sinc", input)


def logit(input, eps=None):
    """``log(x / (1 - x))`` (``torch.special.logit``; ``eps`` clamps to ``[eps, 1 - eps]``):
    the ``logit`` op."""
    return dispatch("logit", input, eps)


def erfc(input):
    """``1 - erf(x)`` (``torch.special.erfc``): the ``erfc`` op."""
    return dispatch("erfc", input)


def gammaln(input):
    """``log|gamma(x)|`` (``torch.special.gammaln``): the ``lgamma`` op."""
    return dispatch("lgamma", input)


def digamma(input):
    """The digamma function (``torch.special.digamma``): the ``digamma`` op."""
    return dispatch("digamma", input)


def psi(input):
    """The digamma function (``torch.special.psi``): the ``digamma`` op."""
    return dispatch("digamma", input)


def polygamma(n, input):
    """The ``n``-th derivative of digamma (``torch.special.polygamma(n, input)``): the
    ``polygamma`` op."""
    return dispatch("polygamma", input, n)


def multigammaln(input, p):
    """The multivariate log-gamma function (``torch.special.multigammaln``): the ``mvlgamma``
    op."""
    return dispatch("mvlgamma", input, p)


def entr(input):
    """``-x log x`` elementwise (``torch.special.entr``): the ``special_entr`` op."""
    return dispatch("special_entr", input)


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input == 0`` (``torch.special.xlog1py``); either
    argument may be a Python number.

    Raises:
        TypeError: neither argument a Tensor.
    """
    from .ops.special_entropy import xlog1py_op
    return dispatch(xlog1py_op(input, other), input, other)


def zeta(input, other):
    """The Hurwitz zeta function of ``x = input``, ``q = other`` (``torch.special.zeta``):
    the ``special_zeta`` op, or its number overload (``.self_scalar`` / ``.other_scalar``).

    Raises:
        TypeError: neither argument a Tensor.
    """
    from .ops.gamma import zeta_op
    return dispatch(zeta_op(input, other), input, other)


def ndtr(input):
    """The standard normal CDF (``torch.special.ndtr``): PyTorch's composite
    ``(1 + erf(x * sqrt(1/2))) * 0.5`` as dispatched ops (node ``MulBackward1``)."""
    import math
    e = dispatch("erf", dispatch("mul.Scalar", input, math.sqrt(0.5)))   # C++: .Scalar ops
    return dispatch("mul.Scalar", dispatch("add.Scalar", e, 1), 0.5)


def logsumexp(input, dim, keepdim=False):
    """``torch.special.logsumexp``: ``torch.logsumexp`` (the ``logsumexp`` op)."""
    return dispatch("logsumexp", input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """``torch.special.softmax``: ``torch.softmax`` (the ``softmax`` op)."""
    return dispatch("softmax", input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """``torch.special.log_softmax``: ``torch.log_softmax`` (the ``log_softmax`` op)."""
    return dispatch("log_softmax", input, dim, dtype=dtype)


def i0(input):
    """The modified Bessel function of the first kind, order 0 (``torch.special.i0``): the
    ``i0`` op (bit-exact with torch 2.13)."""
    return dispatch("i0", input)


def i0e(input):
    """``exp(-|x|) I0(x)`` (``torch.special.i0e``): the ``special_i0e`` op."""
    return dispatch("special_i0e", input)


def i1(input):
    """The modified Bessel function of the first kind, order 1 (``torch.special.i1``): the
    ``special_i1`` op."""
    return dispatch("special_i1", input)


def i1e(input):
    """``exp(-|x|) I1(x)`` (``torch.special.i1e``): the ``special_i1e`` op."""
    return dispatch("special_i1e", input)


def ndtri(input):
    """The inverse of the standard normal CDF (``torch.special.ndtri``): the ``special_ndtri``
    op (fp32/fp64; bit-exact with torch 2.13)."""
    return dispatch("special_ndtri", input)


def log_ndtr(input):
    """The log of the standard normal CDF (``torch.special.log_ndtr``): the
    ``special_log_ndtr`` op (fp32/fp64)."""
    return dispatch("special_log_ndtr", input)


def erfcx(input):
    """The scaled complementary error function ``exp(x**2) erfc(x)`` (``torch.special.erfcx``):
    the ``special_erfcx`` op (fp32/fp64; within 2 / 5 ulp of torch 2.13)."""
    return dispatch("special_erfcx", input)
