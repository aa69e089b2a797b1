"""Indexing one dim with a vector of indices: ``index_select``, ``index_add``, ``index_copy``,
``index_fill`` (a number or a 0-dim tensor value) and their in-place forms (``index_add_``,
``index_copy_``, ``index_fill_``).

``index_select(input, dim, index)`` takes the slices ``input.select(dim, i)`` for each ``i`` in
the 1-D (or 0-D) ``index``; the others write slices of ``source`` (``source.select(dim, k)``)
into ``input.select(dim, index[k])``.

Numerics as PyTorch's CPU kernels (``index_add_cpu_out``): on a tensor of 2+ dims indexed along
its first or last dim with ``alpha=1`` and an int64 index, ``index_add`` is a ``scatter_add``
(all contributions summed in opmath, one rounding); otherwise it adds the slices one after the
other (``self.select(dim, index[k]).add_(source.select(dim, k), alpha=alpha)``), each step with
``add``'s own kernel (``ops/_binary.add_kernel``: opmath, one rounding, fp32 fma and the 16-bit
rounding of ``alpha * source`` in PyTorch's scalar tail). Backward formulas as
``tools/autograd/derivatives.yaml`` (``index_select_backward`` is an ``index_add`` into zeros).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._binary import add_kernel
from ._util import check_scalar, opmath, wrap, wrap_dim
from .factory import _convert
from .inplace import run_inplace

_INT = (_dt.int64, _dt.int32)


def _vector(index, op, what="Index is supposed to be a vector"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.ndim > 1:
        raise IndexError(f"{op}(): {what}")
    return index._data.reshape(-1).astype(np.int64, copy=False)


def _in_range(idx, size, d, prefix=""):
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= size:
            raise IndexError(f"{prefix}index {lo if lo < 0 else hi} is out of bounds for "
                             f"dimension {d} with size {size}")


def _moved(arr, d):
    """``arr`` with dim ``d`` first (a view); 0-dim arrays become 1-D."""
    return np.moveaxis(arr.reshape(arr.shape or (1,)), d, 0)


@register_op("index_select")
class IndexSelect(Function):
    """``index_select(input, dim, index)``: the slices of ``input`` along ``dim`` listed by the
    1-D int64/int32 ``index`` (``torch.index_select``; node ``IndexSelectBackward0``).

    Raises:
        RuntimeError: an index of another dtype ("index_select(): Expected dtype int32 or int64
            for index"), out of range along dim 1 or into an empty self of 2+ dims
            ("INDICES element is out of DATA bounds, id=4 axis_dim=4", PyTorch's CPU message).
        IndexError: out of range otherwise ("index out of range in self"), a 2-D index
            ("index_select(): Index is supposed to be a vector"), ``dim`` out of range.
    """

    _backward_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, input, dim, index):
        if isinstance(index, Tensor) and index.dtype not in _INT:
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        idx = _vector(index, "index_select")
        d = wrap_dim(dim, input.ndim)
        size = (input.shape or (1,))[d]
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            # ATen's CPU kernel checks in one of three places, each with its own error: an
            # empty self (2-D or more), the dim-1 fast path, and the general loop
            if input.ndim > 1 and input.numel() == 0 and size == 0:
                raise RuntimeError("index_select(): self indexing axis dim should be positive")
            if input.ndim > 1 and (d == 1 or input.numel() == 0):
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad[0])} "
                                   f"axis_dim={size}")
            raise IndexError("index out of range in self")
        ctx.dim, ctx.in_shape = d, input.shape
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        out = np.take(input._data.reshape(input.shape or (1,)), idx, axis=d)
        if input.ndim == 0 or (index.ndim == 0 and input.ndim <= 1):
            out = out.reshape(() if input.ndim == 0 else (idx.size,))
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        zeros = dispatch("zeros", ctx.in_shape, dtype=grad.dtype)
        return dispatch("index_add", zeros, ctx.dim, index, grad), None, None


def _source_check(op, input, d, idx, source, sep=":"):
    n_src = (source.shape or (1,))[d] if source.ndim else 1
    if idx.size != n_src:
        if op == "index_add_":
            raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal "
                               f"to source.size(dim): ({n_src}), for dim: {d}")
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({n_src})")
    rest_in = [s for k, s in enumerate(input.shape) if k != d]
    rest_src = [s for k, s in enumerate(source.shape) if k != d]
    if source.ndim and input.ndim and rest_in != rest_src:
        raise RuntimeError(f"{op}(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {rest_in} at dimension {d} and source "
                           f"slice shape: {rest_src} at dimension 0.")


@register_op("index_add")
class IndexAdd(Function):
    """``index_add(input, dim, index, source, *, alpha=1)``: ``input`` with ``alpha *
    source.select(dim, k)`` added to slice ``index[k]`` (``torch.index_add``; node
    ``IndexAddBackward0``: the input's gradient is ``grad``, source's ``grad.index_select(dim,
    index) * alpha``). Repeated indices accumulate in order, one rounding per step.

    Raises:
        RuntimeError: ``source`` of another dtype ("index_add_(): self (Float) and source
            (Double) must have the same scalar type"), an index count that differs from
            ``source.size(dim)``, an index out of range; IndexError: a 2-D index.
    """

    _backward_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, source, alpha=1):
        if isinstance(index, Tensor) and index.dtype not in _INT:
            raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                               f"{index.dtype.scalar_name}")
        idx = _vector(index, "index_add_", "Index is supposed to be a vector, but got dim: "
                      f"{getattr(index, 'ndim', 0)} with type: "
                      f"{getattr(getattr(index, 'dtype', None), 'scalar_name', '')} and size: "
                      f"{list(getattr(index, 'shape', ()))}")
        d = wrap_dim(dim, input.ndim)
        if source.dtype is not input.dtype:
            raise RuntimeError(f"index_add_(): self ({input.dtype.scalar_name}) and source "
                               f"({source.dtype.scalar_name}) must have the same scalar type")
        _source_check("index_add_", input, d, idx, source)
        size = (input.shape or (1,))[d]
        fast = input.ndim > 1 and d in (0, input.ndim - 1) and alpha == 1 and \
            index.dtype is _dt.int64 and idx.size and input.numel()
        if fast:        # the scatter_add path checks the range with scatter's message
            try:
                _in_range(idx, size, d)
            except IndexError as e:
                raise RuntimeError(str(e)) from None
        elif (input.numel() or input.ndim <= 1) and idx.size and \
                (int(idx.min()) < 0 or int(idx.max()) >= size):
            raise IndexError("index out of range in self")      # the general loop's check
        check_scalar(alpha, input.dtype)
        ctx.dim, ctx.alpha, ctx.src_shape = d, alpha, source.shape
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        dt = input.dtype
        if fast:
            # PyTorch's fast path: a scatter_add of the expanded index (opmath, one rounding)
            acc = np.array(opmath(input, dt), copy=True)
            np.add.at(_moved(acc, d), idx, _moved(opmath(source, dt), d))
            return wrap(acc, dt)
        out = input._data.reshape(input.shape or (1,)).copy()
        if input.ndim > 1 and not input.numel():    # ATen returns before its loop (no check)
            return Tensor._make(out, dt)
        dst = _moved(out, d)
        src = _moved(source._data, 0 if source.ndim == 0 else d)
        for k, i in enumerate(idx):     # self.select(dim, i).add_(source.select(dim, k), alpha)
            step = add_kernel(dt, opmath(dst[i], dt), opmath(src[k], dt), alpha)
            dst[i] = _convert(np.asarray(step), dt)
        return Tensor._make(out.reshape(input.shape), dt)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gs = None
        if nig[3]:
            gs = dispatch("index_select", grad, ctx.dim, index)
            if tuple(gs.shape) != tuple(ctx.src_shape):
                gs = dispatch("reshape", gs, ctx.src_shape)
            if ctx.alpha != 1:
                gs = dispatch("mul", gs, ctx.alpha)
        return (grad if nig[0] else None), None, None, gs


def _restrided_empty(input, d, n):
    """ATen's ``index_copy_`` restrides ``self`` to size ``n`` (the index count) and stride 0
    along ``d`` (``self.as_strided``) before its loop. True when that view has no elements: the
    loop, and with it the index bounds check, never runs (``zeros(0, 2).index_copy(1,
    tensor([5]), zeros(0, 1))`` succeeds in PyTorch).

    Raises:
        RuntimeError: the view needs more storage than an empty ``self`` has (an empty dim
            ``d``, the other dims non-empty, ``n > 0``): PyTorch's ``setStorage`` message
            ("setStorage: sizes [1], strides [0], storage offset 0, and itemsize 4 requiring a
            storage size of 4 are out of bounds for storage of size 0").
    """
    sizes = list(input.shape or (1,))
    if input.numel():
        return n == 0 or 0 in sizes[:d] + sizes[d + 1:]
    strides = [int(np.prod([max(s, 1) for s in sizes[k + 1:]])) for k in range(len(sizes))]
    sizes[d], strides[d] = n, 0                   # an empty self: PyTorch's contiguous strides
    if 0 in sizes:
        return True
    item = input.dtype.itemsize
    offset = input.storage_offset()
    need = item * (offset + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1)
    have = input.untyped_storage().nbytes()
    if need > have:
        raise RuntimeError(f"setStorage: sizes {sizes}, strides {strides}, storage offset "
                           f"{offset}, and itemsize {item} requiring a storage size of {need} "
                           f"are out of bounds for storage of size {have}")
    return False


@register_op("index_copy")
class IndexCopy(Function):
    """``index_copy(input, dim, index, source)``: ``input`` with slice ``index[k]`` replaced by
    ``source.select(dim, k)`` (``torch.index_copy``; node ``IndexCopyBackward0``: the input's
    gradient is ``grad`` with zeros at ``index``, source's ``grad.index_select(dim, index)``).
    With repeated indices the last slice wins (PyTorch: unspecified).

    Raises:
        RuntimeError: an index that is not int64 ("index_copy_(): Expected a long tensor for
            index, but got Int"), ``source`` of another dtype; IndexError: an index count that
            differs from ``source.size(dim)`` (or from 1 for a 0-dim source), a source with
            another number of dims ("When source and destination are not scalars, their
            dimensionality must match..."), a 2-D index, an index out of range (checked
            only where ATen's loop runs: an empty ``input`` whose restrided view is empty
            copies nothing and checks nothing; one whose view is not raises PyTorch's
            RuntimeError "setStorage: sizes [1], strides [0]... out of bounds for storage of
            size 0", see ``_restrided_empty``).
    """

    _backward_name = "IndexCopyBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, source):
        # ATen's index_copy meta checks, in its order: dim, index dims, source dims, index
        # dtype, source dtype, then slice shapes and the index count (``_source_check``)
        d = wrap_dim(dim, input.ndim)
        idx = _vector(index, "index_copy_",
                      f"Index should have dimension 1 or 0 (got {getattr(index, 'ndim', 0)})")
        if source.ndim == 0 and idx.size != 1:
            raise IndexError("index_copy_(): When source is scalar, index should have one "
                             f"element (got {idx.size})")
        if source.ndim != input.ndim and source.ndim and input.ndim:
            raise IndexError("index_copy_(): When source and destination are not scalars, "
                             "their dimensionality must match. Source dimensionality "
                             f"({source.ndim}), destination dimensionality ({input.ndim})")
        if index.dtype is not _dt.int64:
            raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                               f"{index.dtype.scalar_name}")
        if source.dtype is not input.dtype:
            raise RuntimeError("index_copy_(): self and source expected to have the same "
                               f"dtype, but got (self) {input.dtype.scalar_name} and (source) "
                               f"{source.dtype.scalar_name}")
        _source_check("index_copy_", input, d, idx, source)
        ctx.dim, ctx.src_shape = d, source.shape
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        if _restrided_empty(input, d, idx.size):
            return Tensor._make(input._data.copy(), input.dtype)
        _in_range(idx, (input.shape or (1,))[d], d, "index_copy_(): ")
        out = input._data.reshape(input.shape or (1,)).copy()
        dst = _moved(out, d)
        src = _moved(source._data, 0 if source.ndim == 0 else d)
        for k, i in enumerate(idx):
            dst[i] = src[k]
        return Tensor._make(out.reshape(input.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gi = dispatch("index_fill.int_Scalar", grad, ctx.dim, index, 0) if nig[0] else None
        gs = None
        if nig[3]:
            gs = dispatch("index_select", grad, ctx.dim, index)
            if tuple(gs.shape) != tuple(ctx.src_shape):
                gs = dispatch("reshape", gs, ctx.src_shape)
        return gi, None, None, gs


@register_op("index_fill.int_Scalar")
class IndexFill(Function):
    """``index_fill(input, dim, index, value)``: ``input`` with the slices at ``index`` along
    ``dim`` set to the number ``value`` (``torch.index_fill``; node ``IndexFillBackward0``).

    Raises:
        IndexError: an index that is not int64 ("index_fill_(): Expected dtype int64 for
            index."), an index out of range ("index 4 is out of bounds for dimension 1 with
            size 4"); RuntimeError: a 2-D index ("Index has to be a vector/scalar").
    """

    _backward_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, value):
        if isinstance(index, Tensor) and index.dtype is not _dt.int64:
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if isinstance(index, Tensor) and index.ndim > 1:
            raise RuntimeError("Index has to be a vector/scalar")
        idx = _vector(index, "index_fill_")
        d = wrap_dim(dim, input.ndim)
        size = (input.shape or (1,))[d]
        idx = np.where(idx < 0, idx + size, idx)
        _in_range(idx, size, d)
        if isinstance(value, Tensor):
            value = value.item()
        check_scalar(value, input.dtype)
        ctx.dim = d
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        out = input._data.reshape(input.shape or (1,)).copy()
        _moved(out, d)[idx] = _convert(np.asarray(value), input.dtype)
        return Tensor._make(out.reshape(input.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return dispatch("index_fill.int_Scalar", grad, ctx.dim, index, 0), None, None, None


@register_op("index_fill.int_Tensor")
class IndexFillTensor(IndexFill):
    """``index_fill(input, dim, index, value)`` with a 0-dim tensor ``value`` (node
    ``IndexFillBackward1``: the value's gradient is the sum of ``grad`` over the filled slices,
    each slice once however often its index repeats, as PyTorch's ``_unique(index)``).

    Raises:
        RuntimeError: a value tensor with dims ("index_fill_ only supports a 0-dimensional
            value tensor, but got tensor with 1 dimension(s)."); errors of the number form.
    """

    _backward_name = "IndexFillBackward1"

    @staticmethod
    def forward(ctx, input, dim, index, value):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        v = _convert(np.asarray(value._data), input.dtype)
        return IndexFill.forward(ctx, input, dim, index, v.item())

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        gi = gv = None
        if ctx.needs_input_grad[0]:
            gi = dispatch("index_fill.int_Scalar", grad, ctx.dim, index, 0)
        if ctx.needs_input_grad[3]:
            size = (grad.shape or (1,))[ctx.dim]
            idx = index._data.reshape(-1).astype(np.int64)
            uniq = Tensor._make(np.unique(np.where(idx < 0, idx + size, idx)), _dt.int64)
            gv = dispatch("sum", dispatch("index_select", grad, ctx.dim, uniq))
        return gi, None, None, gv


@register_op("index_add_")
def index_add_(self, dim, index, source, *, alpha=1):
    """In-place ``index_add`` (``Tensor.index_add_``); returns ``self``."""
    return run_inplace(self, IndexAdd.apply, dim, index, source, alpha)


@register_op("index_copy_")
def index_copy_(self, dim, index, source):
    """In-place ``index_copy`` (``Tensor.index_copy_``); returns ``self``."""
    return run_inplace(self, IndexCopy.apply, dim, index, source)


@register_op("index_fill_.int_Scalar")
def index_fill_(self, dim, index, value):
    """In-place ``index_fill`` with a number (``Tensor.index_fill_``); returns ``self``."""
    return run_inplace(self, IndexFill.apply, dim, index, value)


@register_op("index_fill_.int_Tensor")
def index_fill_tensor_(self, dim, index, value):
    """In-place ``index_fill`` with a 0-dim tensor value (``Tensor.index_fill_``)."""
    return run_inplace(self, IndexFillTensor.apply, dim, index, value)
