"""Indexing: ``index`` (``Tensor.__getitem__``), ``index_put`` / ``index_put_``
(``Tensor.__setitem__``) and the gradient scatter ``_index_backward``.

Index components follow PyTorch (= NumPy) semantics: ints, slices (positive steps), ``None``,
``Ellipsis``, integer arrays / lists / Tensors and bool masks. Basic indexing (ints, slices, None,
Ellipsis) returns a view; any advanced component makes a copy (``IndexBackward0``). The graph node
of a basic index is named like PyTorch's last view op (``SelectBackward0``, ``SliceBackward0``,
``UnsqueezeBackward0``, ``AliasBackward0``).

The gradient of an advanced index is scattered with ``np.add.at`` into a zero tensor of the grad's
dtype: like PyTorch's CPU ``index_put_(accumulate=True)`` kernel it adds repeated indices one
after the other in the storage dtype (each addition rounded), so fp16/bf16/fp32 gradients match
PyTorch bit for bit. (NumPy 2's ``add.at`` runs at ~0.5 ns per element for these cases.)
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import _grad_state
from ..autograd.views import ViewFunction
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import check_scalar
from .factory import _convert
from .shape import _view_of

_BAD_IDX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            "valid indices (got {})")
_INT_KINDS = "iu"


def _as_index_array(x):
    """A list / ndarray / Tensor index component as an int64 or bool array (or an int)."""
    if isinstance(x, Tensor):
        d = x.dtype
        if d.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        a = x._data
        if a.dtype == np.uint8:
            a = a.astype(bool)
        if a.ndim == 0 and a.dtype != bool:
            return int(a)
        return a
    a = np.asarray(x)
    if a.size == 0 and a.dtype.kind == "f":
        a = a.astype(np.int64)
    if a.dtype.kind not in _INT_KINDS + "b":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return a


def _normalize(index, shape):
    """Check ``index`` against ``shape`` and convert it to a NumPy index tuple.

    Returns:
        (tuple index, advanced: bool, node name of a basic index).

    Raises:
        IndexError: PyTorch's messages for too many indices, out-of-range ints/arrays, bad mask
            shapes, non-broadcastable index arrays and unsupported component types.
        ValueError: a slice step that is not positive ("step must be greater than zero").
    """
    if isinstance(index, _SplitIndex):      # already normalized (a node's saved index)
        return index, True, "IndexBackward0"
    if isinstance(index, range):            # a sequence index, as PyTorch reads it
        index = list(index)
    single_slice = isinstance(index, slice)     # t[a:b]: PyTorch always slices (see below)
    if not isinstance(index, tuple):
        if isinstance(index, list) and any(
                isinstance(c, (slice, type(None), type(Ellipsis), list, Tensor)) for c in index):
            index = tuple(index)
        else:
            index = (index,)
    comps = []
    advanced = False
    name = "AliasBackward0"
    for c in index:
        if isinstance(c, (bool, np.bool_)):
            comps.append(bool(c))
            advanced = True
        elif isinstance(c, (int, np.integer)):
            comps.append(int(c))
            name = "SelectBackward0"
        elif isinstance(c, slice):
            if c.step is not None and c.step <= 0:
                raise ValueError("step must be greater than zero")
            comps.append(c)
            name = "SliceBackward0"
        elif c is None:
            comps.append(None)
            name = "UnsqueezeBackward0"
        elif c is Ellipsis:
            comps.append(c)
        elif isinstance(c, (list, tuple, range, np.ndarray, Tensor)):    # range: a sequence
            a = _as_index_array(list(c) if isinstance(c, range) else c)
            comps.append(a)
            if isinstance(a, int):
                name = "SelectBackward0"
            else:
                advanced = True
        else:
            raise IndexError(_BAD_IDX.format(type(c).__name__))
    # bounds and shape checks, walking dims as NumPy does
    n_consumed = sum(1 if not isinstance(c, np.ndarray) or c.dtype != bool else c.ndim
                     for c in comps if c is not None and c is not Ellipsis
                     and not isinstance(c, bool))
    ndim = len(shape)
    if n_consumed > ndim:
        if ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(c is Ellipsis for c in comps) > 1:
        comps = _extra_ellipses(comps, ndim, n_consumed)
    dim = 0
    arrays = []
    for c in comps:
        if c is None or isinstance(c, bool):
            continue
        if c is Ellipsis:
            dim += ndim - n_consumed
            continue
        if isinstance(c, int):
            size = shape[dim]
            if not -size <= c < size:
                raise IndexError(f"index {c} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            dim += 1
        elif isinstance(c, slice):
            dim += 1
        elif c.dtype == bool:
            for k in range(c.ndim):
                if c.shape[k] != shape[dim + k]:
                    raise IndexError(f"The shape of the mask {list(c.shape)} at index {k} does "
                                     "not match the shape of the indexed tensor "
                                     f"{list(shape)} at index {dim + k}")
            arrays.append(c.shape if c.ndim == 0 else (int(c.sum()),))
            dim += c.ndim
        else:
            size = shape[dim]
            if c.size:
                lo, hi = c.min(), c.max()
                if lo < -size or hi >= size:
                    bad = int(lo) if lo < -size else int(hi)
                    raise IndexError(f"index {bad} is out of bounds for dimension {dim} with "
                                     f"size {size}")
            arrays.append(c.shape)
            dim += 1
    if len(arrays) > 1:
        try:
            np.broadcast_shapes(*arrays)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(s)) for s in arrays)) from None
    if name == "SliceBackward0" and not (single_slice or advanced):
        name = _tuple_slice_name(comps, shape)
    if not advanced and Ellipsis not in comps:
        comps.append(Ellipsis)      # keeps an all-int index a 0-d view, not a NumPy scalar
    if advanced and any(type(c) is int for c in comps):
        return _split(comps), True, name
    return tuple(comps), advanced, name


def _tuple_slice_name(comps, shape):
    """The node name of a basic index tuple whose last naming component is a slice, as PyTorch
    2.13's ``applySlicing`` gives it: a slice that starts at 0 (or None), steps by 1 and stops
    at or past its dim's size returns the tensor itself (no ``slice`` call), so the name comes
    from the last component before it that did something, and ``AliasBackward0`` when none
    did (``t[:, :]``, ``t[..., :]``, ``t[:, 0:4]`` of a 4-wide dim; ``t[0, :]`` is
    ``SelectBackward0``). A lone slice ``t[:]`` is not a tuple: PyTorch's ``getitem`` slices
    it with the shortcut off, so it stays ``SliceBackward0``. The start and stop are Python's
    own, before any wrapping: ``t[-3:]`` slices even where it covers the dim."""
    name = "AliasBackward0"
    n_consumed = sum(1 if not isinstance(c, np.ndarray) or c.dtype != bool else c.ndim
                     for c in comps if c is not None and c is not Ellipsis
                     and not isinstance(c, bool))
    dim = 0
    for c in comps:
        if c is None:
            name = "UnsqueezeBackward0"
        elif c is Ellipsis:
            dim += len(shape) - n_consumed
        elif isinstance(c, int):
            name = "SelectBackward0"
            dim += 1
        elif isinstance(c, slice):
            start = 0 if c.start is None else c.start
            step = 1 if c.step is None else c.step
            if not (start == 0 and step == 1 and (c.stop is None or c.stop >= shape[dim])):
                name = "SliceBackward0"
            dim += 1
        else:                                       # an int array that reads as an int
            name = "SelectBackward0"
            dim += 1
    return name


class _SplitIndex:
    """An advanced index with int components, as PyTorch applies it: the ints first, as
    ``select`` (basic indexing: a view), then the rest on that view. NumPy instead counts an int
    beside an index array as one more advanced index, which moves the indexed dims to the front
    when a slice separates them: ``x[0, :, [0, 2]]`` of a (2, 3, 4) tensor is (3, 2) in PyTorch,
    (2, 3) in NumPy. ``first``: the ints, every other dim a full slice; ``rest``: the index
    without its ints."""

    __slots__ = ("first", "rest")

    def __init__(self, first, rest):
        self.first, self.rest = first, rest

    def __repr__(self):
        return f"_SplitIndex({self.first!r}, {self.rest!r})"


def _extra_ellipses(comps, ndim, n_consumed):
    """An index with several ellipses, as PyTorch's ``applySlicing`` reads it (NumPy refuses
    it): every ``...`` moves the dim cursor on by the dims the index leaves unnamed, so the
    first one covers them and any later one moves past the last dim. Returns the components
    with the later ellipses dropped (and the full slices ``:`` past the end, which PyTorch
    skips without looking at the dim).

    Raises:
        IndexError: a component past the last dim, with PyTorch's message (an int: "index 0 is
            out of bounds for dimension 2 with size 0", its position in the index as the
            dimension; a slice or None: "Dimension out of range ..."; an array: "too many
            indices for tensor of dimension 2 (got 3)").
    """
    k = ndim - n_consumed
    first = comps.index(Ellipsis)
    if k == 0:                 # nothing left for an ellipsis to cover: each later one is a no-op
        return [c for i, c in enumerate(comps) if c is not Ellipsis or i == first]
    dim, n, array_at, past = 0, ndim, None, False     # PyTorch's cursor, the result's ndim
    keep = []
    for pos, c in enumerate(comps):
        if c is Ellipsis:
            dim += k
            past = pos != first
            if not past:
                keep.append(c)
            continue
        if past and not (isinstance(c, slice) and c == slice(None)):
            if c is None or isinstance(c, bool):
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-(n + 1)}, {n}], but got {dim})")
            if isinstance(c, int):
                raise IndexError(f"index {c} is out of bounds for dimension {pos} with size 0")
            if isinstance(c, slice):
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-n}, {n - 1}], but got {dim})")
            array_at = dim
        elif not past:
            keep.append(c)
        if isinstance(c, int) and not isinstance(c, bool):
            n -= 1                       # a select: the cursor stays
        elif c is None or isinstance(c, bool):
            n += 1
            dim += 1
        else:
            dim += 1
    if array_at is not None:
        raise IndexError(f"too many indices for tensor of dimension {n} (got {array_at + 1})")
    return keep


def _split(comps):
    """``comps`` (normalized, with ints and index arrays) as a ``_SplitIndex``."""
    first, rest = [], []
    for c in comps:
        if type(c) is int:
            first.append(c)
        elif c is None or isinstance(c, bool):
            rest.append(c)                  # consume no dim
        elif c is Ellipsis:
            first.append(c)
            rest.append(c)
        else:                               # a slice, or an index array (a mask: its dims)
            k = c.ndim if isinstance(c, np.ndarray) and c.dtype == bool else 1
            first.extend([slice(None)] * k)
            rest.append(c)
    return _SplitIndex(tuple(first), tuple(rest))


def _get(a, idx):
    """``a[idx]`` for a normalized index (PyTorch's order for a ``_SplitIndex``)."""
    if type(idx) is _SplitIndex:
        return a[idx.first][idx.rest]
    return a[idx]


def _set(a, idx, values):
    """``a[idx] = values`` for a normalized index (``a[first]`` is a view: written through)."""
    if type(idx) is _SplitIndex:
        a[idx.first][idx.rest] = values
    else:
        a[idx] = values


def _add_at(a, idx, values):
    """``np.add.at(a, idx, values)`` for a normalized advanced index."""
    if type(idx) is _SplitIndex:
        np.add.at(a[idx.first], idx.rest, values)
    else:
        np.add.at(a, idx, values)


class _IndexBase(ViewFunction):
    @staticmethod
    def forward(ctx, input, index, advanced):
        ctx.in_shape, ctx.index, ctx.advanced = input.shape, index, advanced
        arr = _get(input._data, index)
        if advanced:
            ctx.save_for_backward()   # PyTorch saves the index tensors: freed after backward
            return Tensor._make(arr, input.dtype)
        return _view_of(input, arr)

    @staticmethod
    def backward(ctx, grad):
        if ctx.advanced:
            ctx.saved_tensors         # raises once the graph was freed, as PyTorch
        return dispatch("_index_backward", grad, ctx.in_shape, ctx.index, ctx.advanced)


_NODE_CLASSES = {
    name: type(name[:-len("Backward0")] + "Index", (_IndexBase,), {"_backward_name": name})
    for name in ("IndexBackward0", "SelectBackward0", "SliceBackward0", "UnsqueezeBackward0",
                 "AliasBackward0")}


@register_op("index")
def index(input, index):
    """``input[index]`` (``Tensor.__getitem__`` / ``aten::index``).

    Args:
        input: any Tensor.
        index: int, slice, None, Ellipsis, int/bool list, NumPy array or Tensor, or a tuple of
            these. Integer index tensors may be int64/int32/uint8(mask)/bool.

    Returns:
        a view for basic indexing, a new tensor for advanced indexing (same dtype).

    Raises:
        IndexError: "index 5 is out of bounds for dimension 0 with size 3", "too many indices for
            tensor of dimension 2", float index tensors, mask shape mismatches, index arrays
            that do not broadcast. ValueError: a non-positive slice step.
    """
    idx, advanced, name = _normalize(index, input._data.shape)
    cls = _NODE_CLASSES["IndexBackward0" if advanced else name]
    return cls.apply(input, idx, advanced)


@register_op("_index_backward")
class IndexBackward(Function):
    """``_index_backward(grad, shape, index, advanced)``: zeros of ``shape`` with ``grad``
    scattered at ``index``, repeated positions accumulated in order in the grad's dtype (PyTorch's
    ``index_put_(zeros, indices, grad, accumulate=True)``). Its own gradient is ``index``."""

    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, shape, index, advanced):
        ctx.index = index
        out = np.zeros(shape, grad._data.dtype)
        if advanced:
            _add_at(out, index, grad._data)
        else:
            out[index] = grad._data
        return Tensor._make(out, grad.dtype)

    @staticmethod
    def backward(ctx, gg):
        return dispatch("index", gg, ctx.index), None, None, None


def _value_array(values, input, target_shape):
    if isinstance(values, Tensor):
        arr = _convert(values._data, input.dtype)
    elif isinstance(values, (bool, int, float, np.number, np.bool_)):
        arr = _convert(np.asarray(values), input.dtype)
    else:
        raise TypeError(f"can't assign a {type(values).__name__} to a {input.dtype.name} tensor")
    if arr.shape != target_shape:
        try:
            arr = np.broadcast_to(arr, target_shape)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(arr.shape)} cannot "
                               f"be broadcast to indexing result of shape "
                               f"{list(target_shape)}") from None
    return arr


@register_op("index_put")
class IndexPut(Function):
    """``index_put(input, index, values, inplace=False, *, accumulate=False)``: ``input`` with
    ``input[index] = values`` (a copy, or ``input``'s own storage when ``inplace``);
    ``accumulate``: ``input[index] += values`` with repeated positions added one after the
    other, each addition rounded in the dtype (PyTorch's CPU ``index_put_`` with
    ``accumulate=True``, as ``np.add.at``). ``IndexPutBackward0``: the input's gradient is
    ``grad`` (with zeros at ``index`` unless accumulating), the values' is ``grad[index]``.

    Raises:
        RuntimeError: values that do not broadcast to the indexed shape; values of another
            dtype with ``accumulate`` ("Index put requires the source and destination dtypes
            match, got Float for the destination and Double for the source."); IndexError as
            ``index``.
    """

    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, input, index, values, inplace=False, *, accumulate=False):
        idx, advanced, _ = _normalize(index, input._data.shape)
        if accumulate and isinstance(values, Tensor) and values.dtype is not input.dtype:
            raise RuntimeError("Index put requires the source and destination dtypes match, got "
                               f"{input.dtype.scalar_name} for the destination and "
                               f"{values.dtype.scalar_name} for the source.")
        ctx.index, ctx.accumulate = idx, accumulate
        target = _get(input._data, idx)
        arr = _value_array(values, input, np.shape(target))
        out = input._data if inplace else input._data.copy()
        if accumulate:
            _add_at(out, idx, arr)
        else:
            _set(out, idx, arr)
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        gi = gv = None
        if ctx.needs_input_grad[0]:
            gi = grad if ctx.accumulate else dispatch("index_put", grad, ctx.index, 0.0)
        if ctx.needs_input_grad[2]:
            gv = dispatch("index", grad, ctx.index)
        return gi, None, gv, None


def _is_whole(idx) -> bool:
    """An index that selects the whole tensor (``...`` and full slices): PyTorch's setitem
    writes into the tensor itself, not into a view of it."""
    return all(c is Ellipsis or (isinstance(c, slice) and c == slice(None)) for c in idx)


def _strip_leading_ones(value):
    """PyTorch's ``slicePrefix1sSize``: a value of shape [1, 1, 3, 4] is assigned as [3, 4]."""
    shape = value.shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return dispatch("view", value, tuple(shape[k:]))


@register_op("index_put_")
def index_put_(input, index, values, *, accumulate=False):
    """``input[index] = values`` in place (``Tensor.__setitem__``, PyTorch's ``set_item``);
    returns ``input``. ``accumulate=True`` (``Tensor.index_put_``'s): ``input[index] +=
    values``, repeated positions summed (``IndexPut``, in place).

    As in PyTorch: a basic index (ints, slices, None, ``...``) takes the view ``input[index]``
    (or ``input`` itself for ``...`` and full slices) and writes into it with ``fill_`` (a number
    or 0-dim tensor: ``FillBackward3``) or ``copy_`` (``CopyBackwards``; a value with leading
    size-1 dims is viewed without them, then expanded); on a view that makes the base's
    ``grad_fn`` ``CopySlices``. An advanced index runs ``index_put`` in place
    (``IndexPutBackward0``). All of ``run_inplace``'s autograd checks apply.

    Raises:
        RuntimeError: autograd's in-place errors ("a leaf Variable that requires grad is being
            used in an in-place operation.", "a view of a leaf Variable..."); a value tensor of
            another dtype with an advanced index ("Index put requires the source and destination
            dtypes match, got Long for the destination and Float for the source."); shape
            mismatches.
        IndexError: as ``index``.
    """
    from .inplace import run_inplace
    if accumulate:
        if not isinstance(values, Tensor):
            values = dispatch("tensor", values, dtype=input.dtype)
        return run_inplace(input, IndexPut.apply, index, values, accumulate=True)
    idx, advanced, _ = _normalize(index, input._data.shape)
    is_tensor = isinstance(values, Tensor)
    if not is_tensor and not isinstance(values, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"can't assign a {type(values).__name__} to a "
                        f"{input.dtype.scalar_name} tensor")
    if not advanced:
        dst = input if _is_whole(idx) else dispatch("index", input, index)
        if not is_tensor:
            values = dispatch("tensor", values, dtype=input.dtype)
        if values.ndim == 0:
            dispatch("fill_", dst, values)
        elif values.shape == dst.shape:
            dispatch("copy_", dst, values)
        else:
            v = _strip_leading_ones(values)
            if v.shape != dst.shape:
                v = dispatch("expand", v, tuple(dst.shape))
            dispatch("copy_", dst, v)
        return input
    if is_tensor and values.dtype is not input.dtype:
        single_mask = type(idx) is tuple and len(idx) == 1 and isinstance(idx[0], np.ndarray) \
            and idx[0].dtype == bool
        if not (single_mask and values.ndim == 0):
            raise RuntimeError("Index put requires the source and destination dtypes match, got "
                               f"{input.dtype.scalar_name} for the destination and "
                               f"{values.dtype.scalar_name} for the source.")
    if is_tensor and values.ndim and values.shape[0] == 1:
        values = _strip_leading_ones(values)
    return run_inplace(input, IndexPut.apply, index, values)


@register_op("masked_fill")
class MaskedFill(Function):
    """``masked_fill(input, mask, value)``: ``input`` with ``value`` (a Python number) where the
    bool ``mask`` (broadcast against ``input``) is True (``Tensor.masked_fill``;
    ``MaskedFillBackward0``: the input's gradient is ``grad`` with zeros under the mask).

    Raises:
        RuntimeError: a non-bool mask ("masked_fill_ only supports boolean masks, but got mask
            with dtype long int"), shapes that do not broadcast.
    """

    _backward_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, input, mask, value):
        if mask.dtype.name != "bool":
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                               f"dtype {mask.dtype.cpp_name}")
        try:
            shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({list(input.shape)}) must match the size "
                               f"of tensor b ({list(mask.shape)})") from None
        ctx.mask = mask
        ctx.save_for_backward()       # PyTorch saves the mask: freed after backward
        if not isinstance(value, Tensor):
            check_scalar(value, input.dtype)
        fill = np.asarray(_convert(np.asarray(value), input.dtype))
        out = np.where(mask._data, fill, input._data)
        if out.shape != shape or out.dtype != input._data.dtype:
            out = np.broadcast_to(out, shape).astype(input._data.dtype)
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors             # raises once the graph was freed, as PyTorch
        return dispatch("masked_fill", grad, ctx.mask, 0.0), None, None
