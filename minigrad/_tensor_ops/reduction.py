"""Reduction methods of ``Tensor``: ``sum``, ``mean``, ``max``, ``min``, ``amax``, ``amin``,
``argmax``, ``argmin``, ``sum_to_size``, ``all``, ``any``. Each is one ``dispatch`` call.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch


def _dtype_arg(d):
    return None if d is None else _dt.as_dtype(d)


class ReductionMixin:
    """Reduction methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.sum``: the ``sum`` op (its errors apply)."""
        return dispatch("sum", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def mean(self, dim=None, keepdim=False, dtype=None):
        """Mirrors ``torch.Tensor.mean``: the ``mean`` op (its errors apply)."""
        return dispatch("mean", self, dim, keepdim, dtype=_dtype_arg(dtype))

    def max(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.max``: the ``maximum`` op (its errors apply)."""
        if isinstance(dim, ReductionMixin):
            return dispatch("maximum", self, dim)
        return dispatch("max", self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Mirrors ``torch.Tensor.min``: the ``minimum`` op (its errors apply)."""
        if isinstance(dim, ReductionMixin):
            return dispatch("minimum", self, dim)
        return dispatch("min", self, dim, keepdim)

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

    def all(self):
        """Mirrors ``torch.Tensor.all``: the ``all`` op (its errors apply)."""
        return dispatch("all", self)

    def any(self):
        """Mirrors ``torch.Tensor.any``: the ``any`` op (its errors apply)."""
        return dispatch("any", self)
