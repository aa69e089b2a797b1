"""Concatenation: ``cat`` and ``stack`` (plain callables over a list, each calling a Function
with the tensors as positional inputs so that every one gets its own gradient edge).

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
