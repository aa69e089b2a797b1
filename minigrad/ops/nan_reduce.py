"""Reductions that ignore NaN, and ``mode``: ``nansum``, ``nanmean``, ``nanmedian``, ``mode``.

- ``nansum`` is ``sum`` on the input with its NaNs replaced by zeros: ATen's ``nansum`` kernel is
  the ``sum`` kernel (``cascade_sum``) with ``ignore_nan``, the same reduction order, so here it
  is ``reduce.Sum``'s forward on the zeroed input (16-bit: fp32 accumulation, one rounding; the
  multithreaded full sum's 16-bit partial sums too). Node ``NansumBackward0``: the gradient
  expanded back, times ``~isnan(input)``.
- ``nanmean`` is PyTorch's composite: ``nansum(input, dim, keepdim, dtype=dtype) /
  (~isnan(input)).sum(dim, keepdim)``, as dispatched ops (its node is ``DivBackward0``; the
  quotient rounds in the result dtype, after ``nansum`` rounded).
- ``nanmedian``: the lower median of the non-NaN elements (NaN when all are NaN); over a dim,
  ``(values, indices)``. Among equal values the index is the first in input order (PyTorch's
  ``std::nth_element`` leaves it unspecified); for an all-NaN slice the value is NaN and the
  index the first NaN (PyTorch's is wherever its ``nth_element`` leaves one). Nodes
  ``NanmedianBackward0`` (gradient shared among elements equal to the result) and
  ``NanmedianBackward1`` (gradient to the selected index).
- ``mode``: the most frequent value along ``dim`` (the smallest among equally frequent ones)
  and the index ATen's kernel reports: it sorts (value, index) pairs with ``std::sort`` on the
  value and takes the last pair of the mode's run, so the index is the last occurrence for up
  to 16 elements (insertion sort) and wherever the introsort leaves it beyond (replayed by
  ``sorting.unstable_order``). NaN breaks ATen's comparator (``a < b``); inputs with NaN give a
  value but no promised index. Node ``ModeBackward0``: gradient to the selected index.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim
from .reduce import Sum, _Ret, _evenly, _expand_back, _select_back
from .sorting import _DimSelect, _check, _no_bool, order, unstable_order

__all__ = ["Nansum", "nansum", "nanmean", "nanmedian", "mode", "nanmedian_ret", "mode_ret"]


class nanmedian_ret(_Ret):
    __slots__ = ()
    _name = "nanmedian"


class mode_ret(_Ret):
    __slots__ = ()
    _name = "mode"


def _gathered(input, d, keepdim, idx):
    """The ``(values, indices)`` tensors of a dim selection: ``input``'s elements at ``idx``
    (an int array with size 1 along ``d``), ``d`` squeezed away unless ``keepdim``."""
    vals = np.take_along_axis(input._data, idx, axis=d)
    if not keepdim:
        vals, idx = np.squeeze(vals, d), np.squeeze(idx, d)
    return Tensor._make(vals, input.dtype), Tensor._make(np.array(idx, np.int64), _dt.int64)


def _zero_nan(input):
    """``input`` with NaNs replaced by zeros (the same tensor when it cannot hold NaN)."""
    if not input.dtype.is_floating_point:
        return input
    a = input._data
    nan = np.isnan(a.astype(np.float32) if input.dtype is _dt.bfloat16 else a)
    if not nan.any():
        return input
    return Tensor._make(np.where(nan, np.zeros((), a.dtype), a), input.dtype)


class Nansum(Sum):
    """``nansum(input, dim=None, keepdim=False, *, dtype=None)`` (``torch.nansum``): ``Sum`` of
    the NaN-zeroed input (same order, same rounding). Node ``NansumBackward0``."""

    _backward_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, input, dim=None, keepdim=False, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"nansum(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        ctx.save_for_backward(input)
        return Sum.forward(ctx, _zero_nan(input), dim, keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        g = _expand_back(grad, ctx.in_shape, ctx.dims, ctx.keepdim)
        return dispatch("mul", g, dispatch("logical_not", dispatch("isnan", x)))


@register_op("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``nansum(input, dim=None, keepdim=False, *, dtype=None)``: the sum with NaN counted as
    zero; integer and bool inputs give int64; see ``Nansum``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return Nansum.apply(input, dim, keepdim, dtype=dtype)


@register_op("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``nanmean(input, dim=None, keepdim=False, *, dtype=None)``: the mean of the non-NaN
    elements (NaN where there are none), PyTorch's composite ``nansum / count``.

    Raises:
        RuntimeError: a non-floating input ("nanmean(): expected input to have floating point
            or complex dtype but got Long").
    """
    _check(input, "nanmean")
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.scalar_name}")
    count = dispatch("sum", dispatch("logical_not", dispatch("isnan", input)), dim, keepdim)
    return dispatch("div", dispatch("nansum", input, dim, keepdim, dtype=dtype), count)


def _nan_mask(input):
    a = input._data
    if not input.dtype.is_floating_point:
        return np.zeros(a.shape, bool)
    return np.isnan(a.astype(np.float32) if input.dtype is _dt.bfloat16 else a)


class _Nanmedian(Function):
    """The full ``nanmedian``: a 0-dim tensor (``NanmedianBackward0``)."""

    _backward_name = "NanmedianBackward0"

    @staticmethod
    def forward(ctx, input):
        _no_bool(input, "median_cpu")
        flat = input._data.reshape(-1)
        nan = _nan_mask(input).reshape(-1)
        k = int(flat.size - nan.sum())
        if k == 0:
            out = np.full((), np.nan if input.dtype.is_floating_point else 0, input.dtype.np)
        else:
            out = flat[order(flat, 0, False)[(k - 1) // 2]]
        res = Tensor._make(np.asarray(out, input.dtype.np).reshape(()), input.dtype)
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        input, res = ctx.saved_tensors
        return _evenly(grad, input, res)


class _NanmedianDim(_DimSelect):
    _backward_name = "NanmedianBackward1"

    @classmethod
    def forward(cls, ctx, input, dim, keepdim=False):
        _no_bool(input, "median_out")
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            vals = Tensor._make(input._data.copy(), input.dtype)
            ind = Tensor._make(np.zeros((), np.int64), _dt.int64)
            return nanmedian_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))
        if input.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
        nan = _nan_mask(input)
        k = input.shape[d] - nan.sum(axis=d, keepdims=True)          # non-NaN count per slice
        srt = order(input._data, d, False)                           # NaN last
        pos = np.maximum(k - 1, 0) // 2
        idx = np.take_along_axis(srt, pos, axis=d)
        first_nan = np.argmax(nan, axis=d).reshape(idx.shape) if nan.any() else idx
        idx = np.where(k == 0, first_nan, idx)
        vals, ind = _gathered(input, d, keepdim, idx)
        return nanmedian_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))


@register_op("nanmedian")
def nanmedian(input, dim=None, keepdim=False):
    """``nanmedian(input)`` -> the lower median of the non-NaN elements, 0-dim (NaN if none;
    an empty input gives NaN), or ``nanmedian(input, dim, keepdim=False)`` -> ``(values,
    indices)`` (``torch.nanmedian``).

    Raises:
        NotImplementedError: a bool input. IndexError: an empty reduced dim ("median():
            Expected reduction dim 0 to have non-zero size."), ``dim`` out of range.
    """
    _check(input, "nanmedian")
    if dim is None:
        if input.numel() == 0 and not input.dtype.is_floating_point:
            raise RuntimeError("median() input tensor cannot be empty")
        return _Nanmedian.apply(input)
    out = _NanmedianDim.apply(input, dim, keepdim)
    return nanmedian_ret(out[0], out[1])


def _mode_row(values, perm):
    """ATen's mode scan over one slice already in ``std::sort`` order (``perm``): the first run
    of the highest count wins; its index is the run's last pair."""
    v = values[perm]
    n = v.size
    ends = np.flatnonzero(np.r_[v[1:] != v[:-1], True])      # last position of each run
    counts = np.diff(np.r_[-1, ends])
    best = ends[int(np.argmax(counts))]                       # argmax: the first maximal run
    return perm[best]


class _Mode(_DimSelect):
    _backward_name = "ModeBackward0"

    @classmethod
    def forward(cls, ctx, input, dim=-1, keepdim=False):
        _check(input, "mode")
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            vals = Tensor._make(input._data.copy(), input.dtype)
            ind = Tensor._make(np.zeros((), np.int64), _dt.int64)
            return mode_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))
        if input.shape[d] == 0 and all(s for i, s in enumerate(input.shape) if i != d):
            raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
        a = np.moveaxis(input._data, d, -1)
        n = a.shape[-1]
        rows = a.reshape(-1, n) if n else a.reshape(-1, 0)
        cmp = rows.astype(np.float32) if input.dtype is _dt.bfloat16 else rows
        perm = unstable_order(rows, 1, False) if rows.size else rows.astype(np.int64)
        idx = np.array([_mode_row(cmp[i], perm[i]) for i in range(rows.shape[0])] if n else
                       [], np.int64).reshape(a.shape[:-1] + (1,))
        idx = np.moveaxis(idx, -1, d)
        vals, ind = _gathered(input, d, keepdim, idx)
        return mode_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))


@register_op("mode")
def mode(input, dim=-1, keepdim=False):
    """``mode(input, dim=-1, keepdim=False)`` -> ``(values, indices)``: the most frequent value
    along ``dim`` (``torch.mode``); see the module docstring for the index.

    Raises:
        IndexError: an empty reduced dim of a non-empty slice set ("mode(): Expected reduction
            dim 1 to have non-zero size."), ``dim`` out of range.
    """
    out = _Mode.apply(input, dim, keepdim)
    return mode_ret(out[0], out[1])
