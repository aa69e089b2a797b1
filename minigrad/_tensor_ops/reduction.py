"""Reduction methods of ``Tensor``: ``sum``, ``mean``, ``var``, ``std``, ``max``, ``min``,
``amax``, ``amin``, ``argmax``, ``argmin``, ``sum_to_size``, ``all``, ``any``, ``logsumexp``,
``prod``, ``cumsum``, ``cumprod``, ``count_nonzero``, ``norm``, and the order statistics
``sort``, ``argsort``, ``topk``, ``kthvalue``, ``median``. Each is one ``dispatch`` call (or the
torch-level function of the same name, which is).
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch


def _dtype_arg(d, fname):
    return None if d is None else _dt.dtype_arg(d, fname)


def max_min_overload(self, name, binary, args, dim, keepdim, other):
    """Resolve ``max`` / ``min``'s overloads as PyTorch's parser does (``name`` "max"/"min",
    ``binary`` the elementwise op; ``args`` the positional arguments after ``self``, ``dim`` /
    ``keepdim`` / ``other`` the keywords): a Tensor positional or ``other=`` -> ``binary(self,
    other)``; ``dim`` (an int, or anything with ``__index__``: a 0-dim integer Tensor given as
    ``dim=``, a NumPy int) with ``keepdim`` -> the ``<name>.dim`` op; nothing -> the full
    reduction.

    Raises:
        TypeError: an argument combination PyTorch has no overload for.
    """
    if other is not None:
        if args or dim is not None:
            _bad_max_min(name, args, dim, other)
        return dispatch(binary, self, other)
    if len(args) == 1 and dim is None and isinstance(args[0], ReductionMixin):
        return dispatch(binary, self, args[0])
    if len(args) > 2 or (args and dim is not None):
        _bad_max_min(name, args, dim, other)
    if args:
        dim = args[0]
        keepdim = args[1] if len(args) > 1 else keepdim
    if dim is None:
        return dispatch(name, self, None, keepdim)
    return dispatch(f"{name}.dim", self, dim, keepdim)


def _bad_max_min(name, args, dim, other):
    got = ", ".join([type(a).__name__ for a in args] +
                    [f"{k}={type(v).__name__}" for k, v in (("dim", dim), ("other", other))
                     if v is not None])
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but "
                    "expected one of:\n * ()\n * (Tensor other)\n * (int dim, bool keepdim = "
                    "False)")


class ReductionMixin:
    """Reduction methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.sum``: the ``sum`` op (its errors apply)."""
        return dispatch("sum", self, dim, keepdim, dtype=_dtype_arg(dtype, "sum"))

    def mean(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.mean``: the ``mean`` op (its errors apply)."""
        return dispatch("mean", self, dim, keepdim, dtype=_dtype_arg(dtype, "mean"))

    def max(self, *args, dim=None, keepdim=False, other=None):
        """Mirrors ``torch.Tensor.max``'s overloads: ``()`` the 0-dim maximum; ``(dim,
        keepdim=False)`` the ``(values, indices)`` namedtuple (``dim`` an int or a 0-dim
        integer Tensor, as PyTorch's parser reads it); ``(other)`` a Tensor (positional, or
        ``other=``) the ``maximum`` op. The ops' errors apply."""
        return max_min_overload(self, "max", "maximum", args, dim, keepdim, other)

    def min(self, *args, dim=None, keepdim=False, other=None):
        """Mirrors ``torch.Tensor.min``'s overloads: ``()`` the 0-dim minimum; ``(dim,
        keepdim=False)`` the ``(values, indices)`` namedtuple (``dim`` an int or a 0-dim
        integer Tensor, as PyTorch's parser reads it); ``(other)`` a Tensor (positional, or
        ``other=``) the ``minimum`` op. The ops' errors apply."""
        return max_min_overload(self, "min", "minimum", args, dim, keepdim, other)

    def amax(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amax``: the ``amax`` op (its errors apply)."""
        return dispatch("amax", self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        """Mirrors ``torch.Tensor.amin``: the ``amin`` op (its errors apply)."""
        return dispatch("amin", self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmax``: the ``argmax`` op (its errors apply)."""
        return dispatch("argmax", self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.argmin``: the ``argmin`` op (its errors apply)."""
        return dispatch("argmin", self, dim, keepdim)

    def sum_to_size(self, *size):
        """Mirrors ``torch.Tensor.sum_to_size``: the ``sum_to_size`` op (its errors apply)."""
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return dispatch("sum_to_size", self, size)

    def all(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.all``: the ``all`` op (its errors apply)."""
        return dispatch("all", self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.any``: the ``any`` op (its errors apply)."""
        return dispatch("any", self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Mirrors ``torch.Tensor.var``: ``minigrad.var`` (its errors apply)."""
        from .._functional.reduction import var  # (imports Tensor)
        return var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """Mirrors ``torch.Tensor.std``: ``minigrad.std`` (its errors apply)."""
        from .._functional.reduction import std  # (imports Tensor)
        return std(self, dim, unbiased, keepdim, correction=correction)

    def logsumexp(self, dim, keepdim=False):
        """Mirrors ``torch.Tensor.logsumexp``: the ``logsumexp`` op (its errors apply)."""
        return dispatch("logsumexp", self, dim, keepdim)

    def prod(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.prod``: the ``prod`` / ``prod.dim_int`` op."""
        from .._functional.reduction import prod  # (imports Tensor)
        return prod(self, dim, keepdim, dtype=_dtype_arg(dtype, "prod"))

    def cumsum(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.cumsum``: the ``cumsum`` op (its errors apply)."""
        return dispatch("cumsum", self, dim, dtype=_dtype_arg(dtype, "cumsum"))

    def cumprod(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.cumprod``: the ``cumprod`` op (its errors apply)."""
        return dispatch("cumprod", self, dim, dtype=_dtype_arg(dtype, "cumprod"))

    def count_nonzero(self, dim=None):
        """Mirrors ``torch.Tensor.count_nonzero``: the ``count_nonzero`` op."""
        return dispatch("count_nonzero", self, dim)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.norm``: ``minigrad.norm`` (its errors apply)."""
        from .._functional.reduction import norm  # (imports Tensor)
        return norm(self, p, dim, keepdim, dtype=dtype)

    def renorm(self, p, dim, maxnorm):
        """Mirrors ``torch.Tensor.renorm``: the ``renorm`` op (its errors apply)."""
        return dispatch("renorm", self, p, dim, maxnorm)

    def renorm_(self, p, dim, maxnorm):
        """Mirrors ``torch.Tensor.renorm_``: the ``renorm_`` op; returns ``self``."""
        return dispatch("renorm_", self, p, dim, maxnorm)

    def sort(self, *args, stable=None, dim=None, descending=None):
        """Mirrors ``torch.Tensor.sort``: ``minigrad.sort`` (its errors apply)."""
        from .._functional.sorting import sort  # (imports Tensor)
        return sort(self, *args, stable=stable, dim=dim, descending=descending)

    def argsort(self, *args, stable=None, dim=None, descending=None):
        """Mirrors ``torch.Tensor.argsort``: ``sort``'s indices."""
        from .._functional.sorting import argsort  # (imports Tensor)
        return argsort(self, *args, stable=stable, dim=dim, descending=descending)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """Mirrors ``torch.Tensor.unique``: ``minigrad.unique`` (not differentiable)."""
        from .._functional.bucketing import unique  # (imports Tensor)
        return unique(self, sorted, return_inverse, return_counts, dim)

    def hardshrink(self, lambd=0.5):
        """Mirrors ``torch.Tensor.hardshrink``: the ``hardshrink`` op."""
        return dispatch("hardshrink", self, lambd)

    def prelu(self, weight):
        """Mirrors ``torch.Tensor.prelu``: the ``prelu`` op."""
        return dispatch("prelu", self, weight)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """Mirrors ``torch.Tensor.topk``: the ``topk`` op (its errors apply)."""
        return dispatch("topk", self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        """Mirrors ``torch.Tensor.kthvalue``: the ``kthvalue`` op (its errors apply)."""
        return dispatch("kthvalue", self, k, dim, keepdim)

    def nansum(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.nansum``: the ``nansum`` op."""
        return dispatch("nansum", self, dim, keepdim, dtype=_dtype_arg(dtype, "nansum"))

    def nanmean(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.nanmean``: the ``nanmean`` op."""
        return dispatch("nanmean", self, dim, keepdim, dtype=_dtype_arg(dtype, "nanmean"))

    def nanmedian(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.nanmedian``: the ``nanmedian`` op."""
        return dispatch("nanmedian", self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        """Mirrors ``torch.Tensor.mode``: the ``mode`` op."""
        return dispatch("mode", self, dim, keepdim)

    def median(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.median``: the ``median`` op (its errors apply)."""
        return dispatch("median", self, dim, keepdim)
