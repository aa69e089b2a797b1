"""Order statistics: ``sort``, ``topk``, ``kthvalue``, ``median`` (``argsort`` is ``sort``'s
indices, as in PyTorch).

Ordering as PyTorch CPU: NaN sorts above +inf, ``-0.0 == 0.0``. ``sort(stable=True)`` keeps
equal elements in their input order. The default ``sort`` (``stable=False``) is libstdc++'s
``std::sort`` per slice, as ATen's CPU kernel: stable up to 16 elements (insertion sort) and for a
1-d integer ascending sort of ``GRAIN_SIZE`` elements or more (fbgemm's radix sort); otherwise
equal elements come out in the order the introsort leaves them, replayed by
``_std_sort.introsort_order`` (a Python loop, run only on slices that have ties). ``topk``/``kthvalue``/``median`` pick among ties by
PyTorch's partial sort (``std::nth_element``), whose choice of index is not specified; here it
is the first in input order (values are the same either way).

Results are named tuples like ``torch.return_types.sort`` (``.values``, ``.indices``).
Backward: PyTorch's ``value_selecting_reduction_backward`` (the gradient scattered back to the
selected indices) as dispatched ops; the global ``median`` shares its gradient evenly among the
elements equal to it (``evenly_distribute_backward``).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._std_sort import GRAIN_SIZE, _THRESHOLD, introsort_order
from ._util import wrap_dim
from .reduce import _Ret, _evenly, _select_back


class sort_ret(_Ret):
    __slots__ = ()
    _name = "sort"


class topk_ret(_Ret):
    __slots__ = ()
    _name = "topk"


class kthvalue_ret(_Ret):
    __slots__ = ()
    _name = "kthvalue"


class median_ret(_Ret):
    __slots__ = ()
    _name = "median"


def _check(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _no_bool(input, kernel):
    if input.dtype is _dt.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def order(a, axis, descending):
    """Stable indices sorting ``a`` (a storage array) along ``axis`` in PyTorch's order:
    ascending with NaN last, or descending with NaN first; equal elements keep input order."""
    if a.dtype == np.bool_:
        a = a.astype(np.int8)
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        v = a.astype(np.float64)
        nan = np.isnan(v)
        v = np.where(nan, 0.0, v)
        keys = (-v, ~nan) if descending else (v, nan)
    else:
        v = a.astype(np.int64) if a.dtype.kind == "u" else a
        keys = (~v if descending else v,)
    if not descending and len(keys) == 1:
        return np.argsort(v, axis=axis, kind="stable")
    return np.lexsort(keys, axis=axis)


def unstable_order(a, axis, descending):
    """The indices PyTorch's CPU ``sort(stable=False)`` returns: ``order``'s stable result
    where ``std::sort`` keeps ties in input order (see the module docstring), else the
    introsort replayed, per slice along ``axis``, on each element's rank among the slice's
    distinct values (equal values, NaNs with each other, share a rank; ranks follow the sort
    direction, so ``<`` on ranks is ATen's comparator)."""
    idx = order(a, axis, descending)
    n = a.shape[axis]
    radix = a.ndim == 1 and n >= GRAIN_SIZE and a.dtype.kind in "iu" and not descending
    if n <= _THRESHOLD or radix:
        return idx
    s = np.take_along_axis(a, idx, axis=axis)
    if s.dtype.kind == "f" or s.dtype.name == "bfloat16":
        s = s.astype(np.float64)
    s = np.moveaxis(s, axis, -1)
    same = (s[..., 1:] == s[..., :-1]) | (np.isnan(s[..., 1:]) & np.isnan(s[..., :-1])) \
        if s.dtype.kind == "f" else s[..., 1:] == s[..., :-1]
    if not same.any():
        return idx
    rank_sorted = np.concatenate([np.zeros(same.shape[:-1] + (1,), np.int64),
                                  np.cumsum(~same, axis=-1)], axis=-1)
    idx_last = np.moveaxis(idx, axis, -1)
    rank = np.empty_like(rank_sorted)
    np.put_along_axis(rank, idx_last, rank_sorted, axis=-1)
    out = idx_last.copy()
    for pos in zip(*np.nonzero(same.any(axis=-1))) if same.ndim > 1 else [()]:
        out[pos] = introsort_order(rank[pos])
    return np.moveaxis(out, -1, axis)


def scatter_back(grad, indices, dim, in_shape):
    """``zeros(in_shape).scatter(dim, indices, grad)`` (``value_selecting_reduction_backward``
    with keepdim) as one ``index_put`` with a full index tuple."""
    if len(in_shape) == 0:
        return grad
    idx = []
    for i, s in enumerate(indices.shape):
        if i == dim:
            idx.append(indices)
        else:
            shape = [1] * len(indices.shape)
            shape[i] = s
            idx.append(dispatch("reshape", dispatch("arange", s), tuple(shape)))
    zeros = dispatch("zeros", tuple(in_shape), dtype=grad.dtype)
    return dispatch("index_put", zeros, tuple(idx), grad)


def _take(input, idx, d):
    ind = Tensor._make(np.ascontiguousarray(idx, np.int64), _dt.int64)
    vals = Tensor._make(np.take_along_axis(input._data, idx, axis=d), input.dtype)
    return vals, ind


class _Scattered(Function):
    """Values picked at ``indices`` along a dim (keepdim): the gradient is scattered back."""

    @staticmethod
    def finish(ctx, input, d, vals, ind):
        ctx.mark_non_differentiable(ind)
        ctx.save_for_backward(ind)
        ctx.dim, ctx.in_shape = d, input.shape
        return vals, ind

    @staticmethod
    def backward(ctx, grad, grad_idx=None):
        (ind,) = ctx.saved_tensors
        return scatter_back(grad, ind, ctx.dim, ctx.in_shape)


class Sort(_Scattered):
    """``sort(input, dim=-1, descending=False, stable=False)`` -> ``(values, indices)``
    (``torch.sort``): ``stable=False`` leaves ties in ``std::sort``'s order (the module
    docstring), ``stable=True`` in input order. ``SortBackward0`` (``SortBackward1`` for
    ``sort.stable``).

    Raises:
        IndexError: ``dim`` out of range.
    """

    _backward_name = "SortBackward0"

    @staticmethod
    def forward(ctx, input, dim=-1, descending=False, stable=False):
        _check(input, "sort")
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            vals, ind = Tensor._make(input._data.copy(), input.dtype), \
                Tensor._make(np.zeros((), np.int64), _dt.int64)
        else:
            pick = order if stable else unstable_order
            vals, ind = _take(input, pick(input._data, d, descending), d)
        return _Scattered.finish(ctx, input, d, vals, ind)


class TopK(_Scattered):
    """``topk(input, k, dim=-1, largest=True, sorted=True)`` -> ``(values, indices)``
    (``torch.topk``): the ``k`` largest (smallest) along ``dim``, in descending (ascending)
    order; ``sorted=False`` returns them in that order too. ``TopkBackward0``.

    Raises:
        RuntimeError: ``k`` outside ``[0, size]`` ("selected index k out of range"); bool
            input ("topk does not support bool dtypes on CPU"). IndexError: ``dim``.
    """

    _backward_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, input, k, dim=-1, largest=True, sorted=True):
        _check(input, "topk")
        d = wrap_dim(dim, input.ndim)
        if input.dtype is _dt.bool_:
            raise RuntimeError("topk does not support bool dtypes on CPU")
        n = input.shape[d] if input.ndim else 1
        if not 0 <= k <= n:
            raise RuntimeError("selected index k out of range")
        if input.ndim == 0:     # PyTorch: a 0-dim input is its own top-k, k=0 included
            vals = Tensor._make(input._data.copy(), input.dtype)
            ind = Tensor._make(np.zeros((), np.int64), _dt.int64)
        else:
            idx = np.take(order(input._data, d, largest), np.arange(k), axis=d)
            vals, ind = _take(input, idx, d)
        return _Scattered.finish(ctx, input, d, vals, ind)


def _select(input, d, pos, keepdim, op):
    """The element of sorted rank ``pos`` (per slice: an int array or an int) along ``d``."""
    if input.ndim == 0:
        return Tensor._make(input._data.copy(), input.dtype), \
            Tensor._make(np.zeros((), np.int64), _dt.int64)
    if input.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    srt = order(input._data, d, False)
    idx = np.take(srt, [pos], axis=d)
    if op == "median" and (input.dtype.is_floating_point):
        a = input._data.astype(np.float64)
        nan = np.isnan(a)
        has = nan.any(axis=d, keepdims=True)
        idx = np.where(has, np.argmax(nan, axis=d, keepdims=True), idx)
    vals, ind = _take(input, idx, d)
    if not keepdim:
        vals = Tensor._make(np.squeeze(vals._data, d), input.dtype)
        ind = Tensor._make(np.squeeze(ind._data, d), _dt.int64)
    return vals, ind


class _DimSelect(Function):
    @classmethod
    def _finish(cls, ctx, input, d, keepdim, vals, ind):
        ctx.mark_non_differentiable(ind)
        ctx.save_for_backward(ind)
        ctx.dim, ctx.keepdim, ctx.in_shape = d, keepdim, input.shape
        return vals, ind

    @staticmethod
    def backward(ctx, grad, grad_idx=None):
        (ind,) = ctx.saved_tensors
        return _select_back(grad, ind, ctx.dim, ctx.in_shape, ctx.keepdim)


class KthValue(_DimSelect):
    """``kthvalue(input, k, dim=-1, keepdim=False)`` -> ``(values, indices)``
    (``torch.kthvalue``): the ``k``-th smallest element (1-based; NaN is largest).
    ``KthvalueBackward0``.

    Raises:
        RuntimeError: ``k`` outside ``[1, size]`` ("kthvalue(): selected number k out of range
            for dimension 1"). IndexError: ``dim`` out of range.
    """

    _backward_name = "KthvalueBackward0"

    @classmethod
    def forward(cls, ctx, input, k, dim=-1, keepdim=False):
        _check(input, "kthvalue")
        _no_bool(input, "kthvalue_cpu")
        d = wrap_dim(dim, input.ndim)
        n = input.shape[d] if input.ndim else 1
        if not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
        vals, ind = _select(input, d, k - 1, keepdim, "kthvalue")
        return kthvalue_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))


class _MedianDim(_DimSelect):
    _backward_name = "MedianBackward1"

    @classmethod
    def forward(cls, ctx, input, dim, keepdim=False):
        _no_bool(input, "median_out")
        d = wrap_dim(dim, input.ndim)
        n = input.shape[d] if input.ndim else 1
        vals, ind = _select(input, d, (n - 1) // 2, keepdim, "median")
        return median_ret(*cls._finish(ctx, input, d, keepdim, vals, ind))


class _Median(Function):
    _backward_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, input):
        _no_bool(input, "median_cpu")
        flat = input._data.reshape(-1)
        if flat.size == 0:
            if not input.dtype.is_floating_point:
                raise RuntimeError("median() input tensor cannot be empty")
            out = np.full((), np.nan, input.dtype.np)
        else:
            srt = order(flat, 0, False)
            pick = srt[(flat.size - 1) // 2]
            if input.dtype.is_floating_point and np.isnan(flat.astype(np.float64)).any():
                pick = srt[-1]
            out = flat[pick]
        res = Tensor._make(np.asarray(out, input.dtype.np).reshape(()), input.dtype)
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        input, res = ctx.saved_tensors
        return _evenly(grad, input, res)


@register_op("median")
def median(input, dim=None, keepdim=False):
    """``median(input)`` -> the lower median of all elements, 0-dim (``MedianBackward0``,
    gradient shared among equal elements), or ``median(input, dim, keepdim=False)`` ->
    ``(values, indices)`` (``MedianBackward1``) (``torch.median``). NaN propagates; an empty
    floating input gives NaN.

    Raises:
        IndexError: an empty reduced dim ("median(): Expected reduction dim 0 to have non-zero
            size."), ``dim`` out of range.
    """
    _check(input, "median")
    if dim is None:
        return _Median.apply(input)
    out = _MedianDim.apply(input, dim, keepdim)
    return median_ret(out[0], out[1])


class _SortStable(Sort):
    _backward_name = "SortBackward1"


@register_op("sort")
def sort(input, dim=-1, descending=False):
    """``sort(input, dim=-1, descending=False)``; see ``Sort``."""
    out = Sort.apply(input, dim, descending)
    return sort_ret(out[0], out[1])


@register_op("sort.stable")
def sort_stable(input, stable, dim=-1, descending=False):
    """``sort(input, *, stable, dim=-1, descending=False)`` (aten ``sort.stable``,
    ``SortBackward1``); see ``Sort``."""
    out = _SortStable.apply(input, dim, descending, bool(stable))
    return sort_ret(out[0], out[1])


@register_op("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """``topk(input, k, dim=-1, largest=True, sorted=True)``; see ``TopK``."""
    out = TopK.apply(input, k, dim, largest, sorted)
    return topk_ret(out[0], out[1])


@register_op("kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """``kthvalue(input, k, dim=-1, keepdim=False)``; see ``KthValue``."""
    out = KthValue.apply(input, k, dim, keepdim)
    return kthvalue_ret(out[0], out[1])
