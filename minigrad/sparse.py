"""Sparse COO tensors, emulated on dense storage (``torch.sparse`` / ``torch.sparse_coo``).

``sparse_coo_tensor(indices, values, size)`` and ``Tensor.to_sparse()`` return a
``SparseCOOTensor``: a Tensor whose layout is ``minigrad.sparse_coo``, with PyTorch's
``indices()``/``values()``/``_nnz()``/``coalesce()``/``is_coalesced()``/``to_dense()`` and
repr, so scripts that build a graph's adjacency matrix sparse (pytorch/examples' gcn and gat)
run unchanged.

Deliberate differences (the emulation): the storage is dense, so nothing is saved in memory, and
every op on a sparse tensor computes on that dense storage and returns a strided tensor
(``sparse @ dense``, ``dense + sparse``, ``torch.spmm`` return dense results as PyTorch does;
``sparse * 2`` or ``sparse.t()``, sparse in PyTorch, are strided here). Values agree with
PyTorch's to rounding (the sums run in dense order). ``to_sparse()`` of a tensor that requires
grad is refused (PyTorch's ``ToSparseBackward`` is not emulated); the 16-bit duplicate sums of
``sparse_coo_tensor`` are rounded per addition.
"""
from __future__ import annotations

import numpy as np

from . import _namespace
from . import dtypes as _dt
from .autograd.grad_mode import is_grad_enabled as _grad_on
from .dispatch import dispatch
from .tensor import Tensor

__all__ = ["layout", "strided", "sparse_coo", "SparseCOOTensor", "sparse_coo_tensor", "mm",
           "spmm"]


class layout:
    """A tensor layout (``torch.layout``): ``minigrad.strided`` or ``minigrad.sparse_coo``."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"{_namespace.display_name()}.{self.name}"

    def __reduce__(self):
        return (_layout_by_name, (self.name,))


strided = layout("strided")
sparse_coo = layout("sparse_coo")


def _layout_by_name(name):
    return {"strided": strided, "sparse_coo": sparse_coo}[name]


class SparseCOOTensor(Tensor):
    """A sparse COO tensor on dense storage (see the module docstring): ``layout`` is
    ``sparse_coo``, ``is_sparse`` True; ops on it return strided tensors."""

    @property
    def layout(self):
        """``minigrad.sparse_coo``."""
        return sparse_coo

    @property
    def is_sparse(self):
        """True."""
        return True

    def _nnz(self) -> int:
        """The number of stored entries (duplicates included until ``coalesce``)."""
        return int(self._sp_indices.shape[1])

    def is_coalesced(self) -> bool:
        """Whether the entries are unique and sorted (``to_sparse`` and ``coalesce`` results)."""
        return self._sp_coalesced

    def sparse_dim(self) -> int:
        """Every dim is sparse here."""
        return self.ndim

    def dense_dim(self) -> int:
        """0."""
        return 0

    def _indices(self):
        """The stored indices, (ndim, nnz) int64, as stored (no coalescing check)."""
        return Tensor._make(self._sp_indices.copy(), _dt.int64)

    def _values(self):
        """The stored values, one per entry."""
        return Tensor._make(self._sp_values.copy(), self.dtype)

    def indices(self):
        """The (ndim, nnz) int64 indices of a coalesced tensor.

        Raises:
            RuntimeError: an uncoalesced tensor (PyTorch's message).
        """
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._indices()

    def values(self):
        """The values of a coalesced tensor, one per index column.

        Raises:
            RuntimeError: an uncoalesced tensor (PyTorch's message).
        """
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._values()

    def coalesce(self):
        """Duplicates summed, indices sorted: a new coalesced sparse tensor (``self`` when it
        already is)."""
        if self._sp_coalesced:
            return self
        idx = np.unique(self._sp_indices, axis=1) if self._nnz() else self._sp_indices
        return _make_sparse(self._data.copy(), self.dtype, idx, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """A strided copy (``torch.Tensor.to_dense``)."""
        t = dispatch("clone", self)
        return t if dtype is None else t.to(dtype)

    def to_sparse(self, *args, **kwargs):
        """``self``: already sparse."""
        return self

    def __repr__(self):
        from ._format import format_tensor
        ind = format_tensor(self._indices()).replace("\n", "\n" + " " * 15)
        val = format_tensor(self._values()).replace("\n", "\n" + " " * 14)
        if self._nnz() == 0:
            ind = f"tensor([], size=({self.ndim}, 0))"
            val = "tensor([], size=(0,))"
        extra = "" if self.dtype in (_dt.get_default_dtype(), _dt.int64, _dt.bool_) else \
            f", dtype={self.dtype!r}"
        return (f"tensor(indices={ind},\n       values={val},\n       size={tuple(self.shape)}, "
                f"nnz={self._nnz()}{extra}, layout=minigrad.sparse_coo)")

    __str__ = __repr__


def _make_sparse(dense, dt, idx, coalesced, values=None):
    t = SparseCOOTensor._make(dense, dt)
    t._sp_indices = np.asarray(idx, dtype=np.int64).reshape(dense.ndim, -1)
    t._sp_coalesced = coalesced
    t._sp_values = dense[tuple(t._sp_indices)] if values is None else values
    return t


def to_sparse(input, *args, **kwargs):
    """``Tensor.to_sparse()``: the nonzero entries in row-major order, coalesced.

    Raises:
        NotImplementedError: ``input`` requires grad (with grad mode on): the emulation has no
            ``ToSparseBackward``.
    """
    if input.requires_grad and _grad_on():
        raise NotImplementedError("minigrad: to_sparse() of a tensor that requires grad is not "
                                  "supported (sparse tensors are emulated on dense storage)")
    if args or kwargs.get("layout") not in (None, sparse_coo):
        raise NotImplementedError("minigrad: only to_sparse() to the COO layout is supported")
    dense = input._data.copy()
    return _make_sparse(dense, input.dtype, np.array(np.nonzero(dense)), True)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor from (ndim, nnz) ``indices`` and nnz ``values``
    (``torch.sparse_coo_tensor``); duplicate indices sum; uncoalesced unless ``is_coalesced``.

    Args:
        indices: int array-like or Tensor of shape (ndim, nnz).
        values: array-like or Tensor of nnz values.
        size: the shape; default one past the largest index in each dim.
        dtype: the values' dtype (default the values' own).

    Raises:
        RuntimeError: an index out of ``size``; ``requires_grad`` (not emulated).
        ValueError: ``indices`` and ``values`` of different lengths.
    """
    from .ops.factory import tensor as _tensor
    if requires_grad:
        raise RuntimeError("minigrad: sparse tensors that require grad are not supported")
    with np.errstate(invalid="ignore"):          # NaN float indices: no NumPy warning
        idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices,
                         dtype=np.int64)
    vals = values if isinstance(values, Tensor) else _tensor(values)
    dt = vals.dtype if dtype is None else _dt.dtype_arg(dtype, "sparse_coo_tensor")
    v = vals.to(dt)._data
    if idx.ndim != 2 or idx.shape[1] != v.shape[0]:
        raise ValueError(f"indices and values must have the same number of entries "
                         f"(got {idx.shape} and {tuple(v.shape)})")
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(axis=1)) if idx.shape[1] else (0,) * idx.shape[0]
    size = tuple(size)
    for d in range(idx.shape[0]):
        if idx.shape[1] and (idx[d].min() < 0 or idx[d].max() >= size[d]):
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {int(idx[d].max())}")
    dense = np.zeros(size, dtype=v.dtype)
    np.add.at(dense, tuple(idx), v)
    t = _make_sparse(dense, dt, idx, bool(is_coalesced), v.copy())
    return t if device is None else t


def mm(mat1, mat2):
    """``torch.sparse.mm`` / ``torch.spmm``: ``mm`` of a sparse (or dense) and a dense matrix,
    a strided result with the ``mm`` op's gradient (``MmBackward0``)."""
    return dispatch("mm", mat1, mat2)


spmm = mm
