"""Indexing methods of ``Tensor``: ``t[idx]`` (the ``index`` op), ``t[idx] = v``
(``index_put_``), ``masked_fill``, ``where``, and gathering/scattering by index tensors
(``gather``, ``scatter``, ``index_select``, ``index_add``, ``masked_select``, ``nonzero``...,
with the in-place forms ``scatter_``, ``index_add_``, ``masked_scatter_``...).
"""
from __future__ import annotations

from ..dispatch import dispatch


def _fns():
    """``minigrad._functional.selection``, imported on first use (it imports ``Tensor``,
    which inherits this mixin)."""
    from .._functional import selection
    return selection


def _index_fns():
    from .._functional import indexing
    return indexing


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

    def gather(self, dim, index, *, sparse_grad=False):
        """Mirrors ``torch.Tensor.gather``: the ``gather`` op (its errors apply)."""
        return dispatch("gather", self, dim, index, sparse_grad)

    def take_along_dim(self, indices, dim=None):
        """Mirrors ``torch.Tensor.take_along_dim``: ``minigrad.take_along_dim``."""
        return _index_fns().take_along_dim(self, indices, dim)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """Mirrors ``torch.Tensor.scatter``: ``minigrad.scatter`` (src tensor or value)."""
        return _index_fns().scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        """Mirrors ``torch.Tensor.scatter_``: the ``scatter_.src`` / ``scatter_.value`` op."""
        op, s = _index_fns()._scatter_op(src, value, True)
        return dispatch(op, self, dim, index, s, reduce=reduce)

    def scatter_add(self, dim, index, src):
        """Mirrors ``torch.Tensor.scatter_add``: the ``scatter_add`` op."""
        return dispatch("scatter_add", self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        """Mirrors ``torch.Tensor.scatter_add_``: the ``scatter_add_`` op."""
        return dispatch("scatter_add_", self, dim, index, src)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        """Mirrors ``torch.Tensor.scatter_reduce``: the ``scatter_reduce.two`` op."""
        return dispatch("scatter_reduce.two", self, dim, index, src, reduce,
                        include_self=include_self)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        """Mirrors ``torch.Tensor.scatter_reduce_``: the ``scatter_reduce_.two`` op."""
        return dispatch("scatter_reduce_.two", self, dim, index, src, reduce,
                        include_self=include_self)

    def index_select(self, dim, index):
        """Mirrors ``torch.Tensor.index_select``: the ``index_select`` op."""
        return dispatch("index_select", self, dim, index)

    def index_add(self, dim, index, source, *, alpha=1):
        """Mirrors ``torch.Tensor.index_add``: the ``index_add`` op."""
        return dispatch("index_add", self, dim, index, source, alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        """Mirrors ``torch.Tensor.index_add_``: the ``index_add_`` op."""
        return dispatch("index_add_", self, dim, index, source, alpha=alpha)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        """Mirrors ``torch.Tensor.index_reduce``: the ``index_reduce`` op."""
        return dispatch("index_reduce", self, dim, index, source, reduce,
                        include_self=include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        """Mirrors ``torch.Tensor.index_reduce_``: the ``index_reduce_`` op; returns ``self``."""
        return dispatch("index_reduce_", self, dim, index, source, reduce,
                        include_self=include_self)

    def index_copy(self, dim, index, source):
        """Mirrors ``torch.Tensor.index_copy``: the ``index_copy`` op."""
        return dispatch("index_copy", self, dim, index, source)

    def index_copy_(self, dim, index, source):
        """Mirrors ``torch.Tensor.index_copy_``: the ``index_copy_`` op."""
        return dispatch("index_copy_", self, dim, index, source)

    def index_fill(self, dim, index, value):
        """Mirrors ``torch.Tensor.index_fill``: ``minigrad.index_fill``."""
        return _index_fns().index_fill(self, dim, index, value)

    def index_fill_(self, dim, index, value):
        """Mirrors ``torch.Tensor.index_fill_``: the ``index_fill_.int_Scalar`` /
        ``index_fill_.int_Tensor`` op."""
        return dispatch(_index_fns()._fill_op(value, True), self, dim, index, value)

    def masked_select(self, mask):
        """Mirrors ``torch.Tensor.masked_select``: the ``masked_select`` op."""
        return dispatch("masked_select", self, mask)

    def masked_scatter(self, mask, source):
        """Mirrors ``torch.Tensor.masked_scatter``: the ``masked_scatter`` op."""
        return dispatch("masked_scatter", self, mask, source)

    def masked_scatter_(self, mask, source):
        """Mirrors ``torch.Tensor.masked_scatter_``: the ``masked_scatter_`` op."""
        return dispatch("masked_scatter_", self, mask, source)

    def nonzero(self, *, as_tuple=False):
        """Mirrors ``torch.Tensor.nonzero``: ``minigrad.nonzero``."""
        return _index_fns().nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        """Mirrors ``torch.Tensor.argwhere``: ``minigrad.argwhere``."""
        return _index_fns().argwhere(self)
