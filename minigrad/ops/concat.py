"""Concatenation: ``cat``, ``stack`` and ``block_diag`` (plain callables over a list, each
calling a Function with the tensors as positional inputs so that every one gets its own gradient
edge).

Mixed input dtypes promote as in PyTorch (``cat([fp16, bf16])`` is float32); the engine casts each
gradient slice back to its input's dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim


def _check_list(tensors, op):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                            f"not {type(t).__name__}")


def _cat_dtype(tensors):
    rt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not rt:
            rt = _dt.promote_types(rt, t.dtype)
    return rt


class CatFn(Function):
    """Concatenation along ``dim`` of the tensors passed positionally (``CatBackward0``)."""

    _backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        rt = _cat_dtype(tensors)
        arrs = [t._data if t.dtype is rt else t._data.astype(rt.np) for t in tensors]
        used = [i for i, t in enumerate(tensors) if not (t.ndim == 1 and t.shape[0] == 0)]
        ctx.dim = dim
        ctx.sizes = [(tensors[i].shape[dim] if i in used else None) for i in range(len(tensors))]
        if not used:
            return Tensor._make(np.concatenate(arrs), rt)
        return Tensor._make(np.concatenate([arrs[i] for i in used], axis=dim), rt)

    @staticmethod
    def backward(ctx, grad):
        out = [None]
        start = 0
        d = ctx.dim
        for i, sz in enumerate(ctx.sizes):
            if not ctx.needs_input_grad[i + 1]:
                if sz is not None:
                    start += sz
                out.append(None)
                continue
            if sz is None:
                out.append(dispatch("zeros", (0,), dtype=grad.dtype))
                continue
            idx = (slice(None),) * d + (slice(start, start + sz),)
            out.append(dispatch("index", grad, idx))
            start += sz
        return tuple(out)


@register_op("cat")
def cat(tensors, dim=0):
    """``cat(tensors, dim=0)``: join tensors along an existing dim (``torch.cat``).

    Mixed dtypes promote as in PyTorch; legacy empty 1-D tensors of shape (0,) are skipped.

    Raises:
        ValueError: an empty list; TypeError: a non-Tensor entry; RuntimeError: different ndims,
            sizes that differ outside ``dim``, a 0-D tensor; IndexError: ``dim`` out of range.
    """
    _check_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    used = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not used:
        return CatFn.apply(0, *tensors)
    ref = used[0]
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    d = wrap_dim(dim, ref.ndim)
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.shape[0] == 0:
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} "
                               f"and {t.ndim}")
        for j, (a, b) in enumerate(zip(ref.shape, t.shape)):
            if j != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {a} but got size {b} for tensor number {i} "
                                   "in the list.")
    return CatFn.apply(d, *tensors)


class StackFn(Function):
    """Stack of equal-shape tensors along a new ``dim`` (``StackBackward0``)."""

    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        rt = _cat_dtype(tensors)
        arrs = [t._data if t.dtype is rt else t._data.astype(rt.np) for t in tensors]
        ctx.dim = dim
        return Tensor._make(np.stack(arrs, axis=dim), rt)

    @staticmethod
    def backward(ctx, grad):
        d = ctx.dim
        return (None,) + tuple(
            dispatch("index", grad, (slice(None),) * d + (i,)) if need else None
            for i, need in enumerate(ctx.needs_input_grad[1:]))


@register_op("stack")
def stack(tensors, dim=0):
    """``stack(tensors, dim=0)``: join equal-shape tensors along a new dim (``torch.stack``).

    Raises:
        RuntimeError: an empty list ("stack expects a non-empty TensorList"), or shapes that
            differ ("stack expects each tensor to be equal size, but got [2, 3] at entry 0 and
            [1, 3] at entry 1"); IndexError: ``dim`` out of range (range ndim+1).
    """
    _check_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    d = wrap_dim(dim, ref.ndim + 1)
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != ref.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    return StackFn.apply(d, *tensors)


class BlockDiagFn(Function):
    """The tensors (as 2-D blocks) along the diagonal of a zero matrix (``BlockDiagBackward0``):
    each input's gradient is its block of ``grad``, in its own shape."""

    _backward_name = "BlockDiagBackward0"

    @staticmethod
    def forward(ctx, *tensors):
        rt = _dt.result_type(*tensors)     # ATen's result_type: 0-dim tensors weigh less
        blocks = [t._data.reshape(_block_shape(t)) for t in tensors]
        out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)),
                       dtype=rt.np)
        r = c = 0
        ctx.places = []
        for t, b in zip(tensors, blocks):
            h, w = b.shape
            out[r:r + h, c:c + w] = b          # a promotion: exact
            ctx.places.append((r, c, h, w, t.shape))
            r, c = r + h, c + w
        return Tensor._make(out, rt)

    @staticmethod
    def backward(ctx, grad):
        # ATen's block_diag_backward walks the blocks with its own row counter, which an empty
        # 1-D tensor does not advance (the forward gave it a row): the blocks after one read
        # their gradient one row up per such tensor, as in PyTorch 2.13
        out, skipped = [], 0
        for need, (r, c, h, w, shape) in zip(ctx.needs_input_grad, ctx.places):
            r -= skipped
            skipped += len(shape) == 1 and shape[0] == 0
            out.append(dispatch("reshape", dispatch("index", grad, (slice(r, r + h),
                                                                   slice(c, c + w))), shape)
                       if need else None)
        return tuple(out)


def _block_shape(t):
    """The 2-D block a tensor fills: a 0-d tensor (1, 1), a 1-d one a row (1, n)."""
    return (1,) * (2 - t.ndim) + tuple(t.shape)


@register_op("block_diag")
def block_diag(*tensors):
    """``block_diag(*tensors)``: a block-diagonal matrix of the tensors (``torch.block_diag``):
    2-D tensors as they are, a 1-D tensor as one row, a 0-D one as a 1x1 block; zeros
    elsewhere, in ``result_type`` of all of them (a 0-dim tensor promotes only across
    categories, as in ``torch.result_type``; the default float dtype, shape (1, 0), for none).

    Raises:
        TypeError: an argument that is not a Tensor ("expected Tensor as element 0 in argument
            0, but got list").
        RuntimeError: a tensor of more than 2 dims ("torch.block_diag: Input tensors must have
            2 or fewer dimensions. Input 0 has 3 dimensions").
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
    if not tensors:
        return Tensor._make(np.zeros((1, 0), _dt.get_default_dtype().np),
                            _dt.get_default_dtype())
    return BlockDiagFn.apply(*tensors)
