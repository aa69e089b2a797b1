"""Torch-level functions of the gamma family, ``i0`` / ``i0_`` and the NaN-ignoring reductions: ``lgamma``,
``digamma``, ``polygamma``, ``mvlgamma`` (``minigrad/ops/gamma.py``) and ``nansum``,
``nanmean``, ``nanmedian``, ``mode`` (``minigrad/ops/nan_reduce.py``). Each is one
``dispatch`` of the op of its name."""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "nansum", "nanmean", "nanmedian",
           "mode", "i0", "i0_"]


def i0(input):
    """The modified Bessel function of the first kind, order 0 (``torch.i0``): the ``i0`` op
    (``minigrad/ops/special_bessel.py``; ``out=`` added with the other out= functions)."""
    return dispatch("i0", input)


def i0_(input):
    """``torch.i0_``: ``input`` replaced by ``i0(input)`` (the ``i0_`` op)."""
    return dispatch("i0_", input)


def lgamma(input):
    """``log|gamma(x)|`` (``torch.lgamma``): the ``lgamma`` op."""
    return dispatch("lgamma", input)


def digamma(input):
    """The digamma function ``d/dx log gamma(x)`` (``torch.digamma``): the ``digamma`` op."""
    return dispatch("digamma", input)


def polygamma(n, input):
    """The ``n``-th derivative of digamma (``torch.polygamma(n, input)``): the ``polygamma``
    op (which takes the tensor first, ``polygamma(input, n)``)."""
    return dispatch("polygamma", input, n)


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p`` (``torch.mvlgamma``): the
    ``mvlgamma`` op."""
    return dispatch("mvlgamma", input, p)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` treating NaN as zero (``torch.nansum``): the ``nansum`` op."""
    return dispatch("nansum", input, dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` of the non-NaN elements (``torch.nanmean``): the ``nanmean`` op
    (``nansum`` divided by the count of non-NaN elements, as PyTorch's composite)."""
    return dispatch("nanmean", input, dim, keepdim, dtype=dtype)


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-NaN elements (``torch.nanmedian``): 0-dim without ``dim``,
    ``(values, indices)`` with it: the ``nanmedian`` op."""
    return dispatch("nanmedian", input, dim, keepdim)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` and the index of its last occurrence
    (``torch.mode``): ``(values, indices)``, the ``mode`` op."""
    return dispatch("mode", input, dim, keepdim)
