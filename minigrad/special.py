"""``minigrad.special`` (mirrors ``torch.special``): the special functions minigrad has so far,
each one dispatch of the op of the same name (``erf``, ``erfinv``, ``expm1``, ``exp2``,
``log1p``, ``xlogy``, ``sinc``, ``logit``) or its alias (``expit`` is ``sigmoid``, ``round`` is ``round``)."""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["erf", "erfinv", "expm1", "exp2", "log1p", "expit", "round", "xlogy", "sinc",
           "logit", "erfc"]


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
