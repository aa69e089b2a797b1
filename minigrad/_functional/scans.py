"""Scans, counts and statistics as torch-level functions (``torch.diff``, ``cummax``,
``cummin``, ``logcumsumexp``, ``aminmax``, ``rot90``, ``bincount``, ``histc``, ``cov``,
``corrcoef``, ``trapezoid``/``trapz``, ``quantile``, ``nanquantile``) and ``signbit``,
``frexp``: each is one ``dispatch`` call (the ops: ``minigrad.ops.cumulative``, ``aminmax``,
``rotate``, ``histogram``, ``differences``, ``statistics``, ``quantile``, ``float_bits``).
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["diff", "cummax", "cummin", "logcumsumexp", "aminmax", "rot90", "bincount", "histc",
           "cov", "corrcoef", "trapezoid", "trapz", "signbit", "frexp", "quantile", "nanquantile"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """``torch.diff``: the ``n``-th forward difference along ``dim``; see the ``diff`` op."""
    return dispatch("diff", input, n, dim, prepend, append)


def cummax(input, dim):
    """``torch.cummax``: ``(values, indices)`` of the running maximum along ``dim``."""
    return dispatch("cummax", input, dim)


def cummin(input, dim):
    """``torch.cummin``: ``(values, indices)`` of the running minimum along ``dim``."""
    return dispatch("cummin", input, dim)


def logcumsumexp(input, dim):
    """``torch.logcumsumexp``: ``log(cumsum(exp(input)))`` along ``dim``, without overflow."""
    return dispatch("logcumsumexp", input, dim)


def aminmax(input, *, dim=None, keepdim=False):
    """``torch.aminmax``: ``(min, max)`` over all elements or along ``dim``."""
    return dispatch("aminmax", input, dim=dim, keepdim=keepdim)


def rot90(input, k=1, dims=(0, 1)):
    """``torch.rot90``: rotated ``k`` quarter turns in the plane of ``dims``."""
    return dispatch("rot90", input, k, dims)


def bincount(input, weights=None, minlength=0):
    """``torch.bincount``: counts (or summed ``weights``) of each non-negative integer."""
    return dispatch("bincount", input, weights, minlength)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """``torch.histc``: counts in ``bins`` equal-width bins over ``[min, max]``."""
    if out is not None:
        raise NotImplementedError("histc(out=...) is not supported by minigrad")
    return dispatch("histc", input, bins, min, max)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """``torch.cov``: the covariance matrix of the rows of ``input``; see the ``cov`` op."""
    return dispatch("cov", input, correction=correction, fweights=fweights, aweights=aweights)


def corrcoef(input):
    """``torch.corrcoef``: Pearson correlation coefficients of the rows of ``input``."""
    return dispatch("corrcoef", input)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid``: the trapezoidal rule along ``dim``; see the ``trapezoid`` op."""
    return dispatch("trapezoid", y, x, dx=dx, dim=dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: an alias of ``trapezoid``."""
    return dispatch("trapezoid", y, x, dx=dx, dim=dim)


def signbit(input, *, out=None):
    """``torch.signbit``: True where the sign bit is set; see the ``signbit`` op."""
    if out is not None:
        raise NotImplementedError("signbit(out=...) is not supported by minigrad")
    return dispatch("signbit", input)


def frexp(input, *, out=None):
    """``torch.frexp``: ``(mantissa, exponent)``; see the ``frexp.Tensor`` op."""
    if out is not None:
        raise NotImplementedError("frexp(out=...) is not supported by minigrad")
    from ..ops.float_bits import frexp_ret
    m, e = dispatch("frexp.Tensor", input)
    return frexp_ret(m, e)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``torch.quantile``: the ``q``-quantiles of ``input``; see the ``quantile`` op."""
    if out is not None:
        raise NotImplementedError("quantile(out=...) is not supported by minigrad")
    return dispatch("quantile", input, q, dim, keepdim, interpolation=interpolation)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``torch.nanquantile``: ``quantile`` ignoring NaNs; see the ``nanquantile`` op."""
    if out is not None:
        raise NotImplementedError("nanquantile(out=...) is not supported by minigrad")
    return dispatch("nanquantile", input, q, dim, keepdim, interpolation=interpolation)
