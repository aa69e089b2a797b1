"""Indexing methods of ``Tensor``: ``t[idx]`` (the ``index`` op), ``t[idx] = v``
(``index_put_``), ``masked_fill`` and ``where``.
"""
from __future__ import annotations

from ..dispatch import dispatch


def _fns():
    """``minigrad._functional.selection``, imported on first use (it imports ``Tensor``,
    which inherits this mixin)."""
    from .._functional import selection
    return selection


class IndexingMixin:
    """Indexing methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __getitem__(self, index):
        """``torch.Tensor.__getitem__``: the ``index`` op."""
        return dispatch("index", self, index)

    def __setitem__(self, index, value):
        """``torch.Tensor.__setitem__``: the ``index_put_`` op."""
        dispatch("index_put_", self, index, value)

    def masked_fill(self, mask, value):
        """Mirrors ``torch.Tensor.masked_fill``: ``minigrad.masked_fill`` (its errors apply)."""
        return _fns().masked_fill(self, mask, value)

    def where(self, condition, other):
        """Mirrors ``torch.Tensor.where``: ``where(condition, self, other)`` (the ``where`` op;
        its errors apply)."""
        return dispatch("where", condition, self, other)
