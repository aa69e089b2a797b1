"""Where values fall among sorted boundaries, and the distinct values of a tensor:
``searchsorted``, ``bucketize`` and ``unique`` (PyTorch's ``_unique2`` / ``unique_dim``).

None is differentiable (integer results, or values PyTorch gives no gradient formula for); the
comparisons run in the promoted dtype of the two operands (16-bit as fp32, which orders the
same). ``searchsorted`` with ``right=False`` returns the first index ``i`` with
``boundaries[i] >= v`` (NumPy's ``side="left"``), with ``right=True`` the first with
``boundaries[i] > v``; ``bucketize(input, boundaries, right)`` is ``searchsorted(boundaries,
input, right=right)`` for 1-D boundaries, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import register_op
from ..tensor import Tensor


def _values(t, dt):
    a = t._data
    if t.dtype is not dt:
        a = a.astype(dt.np)
    return a.astype(np.float32) if dt.is_floating_point and dt.itemsize == 2 else a


def _search(boundaries, values, right, sorter, out_int32):
    """Row-wise ``np.searchsorted`` of ``values`` (an array) in ``boundaries`` (1-D, or with
    leading dims matching ``values``')."""
    side = "right" if right else "left"
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter, axis=-1)
    if boundaries.ndim == 1:
        out = np.searchsorted(boundaries, values, side=side)
    else:
        lead = boundaries.shape[:-1]
        b2 = boundaries.reshape(-1, boundaries.shape[-1])
        v2 = values.reshape(b2.shape[0], -1)
        out = np.stack([np.searchsorted(b2[i], v2[i], side=side) for i in range(b2.shape[0])])
        out = out.reshape(lead + values.shape[len(lead):])
    dt = _dt.int32 if out_int32 else _dt.int64
    return Tensor._make(np.array(out, dtype=dt.np, order="C"), dt)


def _resolve_side(right, side):
    if side is None:
        return bool(right)
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    return side == "right"


@register_op("searchsorted")
class Searchsorted(Function):
    """``searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None)`` (``torch.searchsorted``; ``input`` a Tensor or a number): int64 (int32 with
    ``out_int32``) insertion indices of ``input``'s shape. Not differentiable.

    Raises:
        TypeError: ``sorted_sequence`` not a Tensor.
        RuntimeError: PyTorch's messages for opposite ``side``/``right``, an unknown ``side``,
            and leading dims of ``sorted_sequence`` that do not match ``input``'s.
    """

    @staticmethod
    def forward(ctx, sorted_sequence, input, out_int32=False, right=False, side=None,
                sorter=None):
        if not isinstance(sorted_sequence, Tensor):
            raise TypeError("searchsorted(): argument 'sorted_sequence' (position 1) must be "
                            f"Tensor, not {type(sorted_sequence).__name__}")
        right = _resolve_side(right, side)
        scalar = not isinstance(input, Tensor)
        vals = Tensor._make(np.asarray(input), _dt.result_type(input)) if scalar else input
        b = sorted_sequence
        if b.ndim > 1 and (vals.ndim != b.ndim or vals.shape[:-1] != b.shape[:-1]):
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(b.shape)} and input value tensor {list(vals.shape)}")
        dt = _dt.result_type(b, vals)
        srt = None if sorter is None else sorter._data
        return _search(_values(b, dt), _values(vals, dt), right, srt, out_int32)

    @staticmethod
    def backward(ctx, grad):
        return None


@register_op("bucketize")
class Bucketize(Function):
    """``bucketize(input, boundaries, *, out_int32=False, right=False)`` (``torch.bucketize``):
    the bucket index of each element of ``input`` (a Tensor or a number) among the 1-D sorted
    ``boundaries``. Not differentiable.

    Raises:
        RuntimeError: "boundaries tensor must be 1 dimension, but got dim(2)".
    """

    @staticmethod
    def forward(ctx, input, boundaries, out_int32=False, right=False):
        if not isinstance(boundaries, Tensor):
            raise TypeError("bucketize(): argument 'boundaries' must be Tensor, not "
                            f"{type(boundaries).__name__}")
        if boundaries.ndim != 1:
            raise RuntimeError(f"boundaries tensor must be 1 dimension, but got "
                               f"dim({boundaries.ndim})")
        vals = input if isinstance(input, Tensor) else \
            Tensor._make(np.asarray(input), _dt.result_type(input))
        dt = _dt.result_type(boundaries, vals)
        return _search(_values(boundaries, dt), _values(vals, dt), bool(right), None,
                       out_int32)

    @staticmethod
    def backward(ctx, grad):
        return None


@register_op("_unique2")
class Unique2(Function):
    """``_unique2(input, sorted=True, return_inverse=False, return_counts=False)`` ->
    ``(values, inverse, counts)``: the sorted distinct values of the flattened input (NaNs
    each kept, last), the index of each input element into them (input's shape) and their
    counts; ``inverse`` / ``counts`` are empty when not asked for, as ATen's. Not
    differentiable (minigrad's results do not require grad; PyTorch's values carry a grad_fn
    that cannot be run)."""

    @staticmethod
    def forward(ctx, input, sorted=True, return_inverse=False, return_counts=False):
        return _unique(input, None, return_inverse, return_counts)

    @staticmethod
    def backward(ctx, *grads):
        return None


@register_op("unique_dim")
class UniqueDim(Function):
    """``unique_dim(input, dim, sorted=True, return_inverse=False, return_counts=False)``: the
    distinct slices along ``dim``, in lexicographic order, with inverse (length of ``dim``) and
    counts. Not differentiable.

    Raises:
        IndexError: ``dim`` out of range.
    """

    @staticmethod
    def forward(ctx, input, dim, sorted=True, return_inverse=False, return_counts=False):
        from ._util import wrap_dim
        return _unique(input, wrap_dim(dim, input.ndim), return_inverse, return_counts)

    @staticmethod
    def backward(ctx, *grads):
        return None


def _c(a):
    return np.array(a, order="C")           # (np.ascontiguousarray makes 0-dim arrays 1-d)


def _unique(input, dim, return_inverse, return_counts):
    a = input._data
    key = a.astype(np.float32) if input.dtype is _dt.bfloat16 else a
    if dim is None:
        vals, inv, counts = np.unique(key.reshape(-1), return_inverse=True, return_counts=True,
                                      equal_nan=False)
        inv = inv.reshape(a.shape)
        vals = vals.astype(a.dtype)
    else:
        moved = np.moveaxis(key, dim, 0)
        flat = moved.reshape(moved.shape[0], -1)
        _, first, inv, counts = np.unique(flat, axis=0, return_index=True, return_inverse=True,
                                          return_counts=True)
        vals = np.moveaxis(np.moveaxis(a, dim, 0)[first], 0, dim)
        inv = inv.reshape(-1)
    i64 = _dt.int64
    empty = np.zeros((0,), np.int64)
    return (Tensor._make(_c(vals), input.dtype),
            Tensor._make(_c(inv.astype(np.int64)) if return_inverse else
                         empty, i64),
            Tensor._make(_c(counts.astype(np.int64)) if return_counts else
                         empty.copy(), i64))
