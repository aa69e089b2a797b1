"""Bags of embeddings: ``_embedding_bag`` (``_embedding_bag_forward_only`` when nothing needs a
gradient, reached through the ``embedding_bag`` composite) and its backward kernels
``_embedding_bag_backward`` -> ``_embedding_bag_dense_backward`` and
``_embedding_bag_per_sample_weights_backward``, as ATen's CPU kernels (EmbeddingBag.cpp).

A bag is a run of ``indices`` that ``offsets`` starts; each bag's rows of ``weight`` are
reduced by ``mode`` (0 sum, 1 mean, 2 max) into one output row. Indices equal to
``padding_idx`` (>= 0) are left out (and from mean's count); an empty bag gives zeros.
Outputs: ``(output, offset2bag, bag_size, max_indices)``; the last three are integer
bookkeeping for backward, with ATen's quirks: sum mode on its fast path leaves ``offset2bag``
empty and ``bag_size`` zero; ``max_indices`` is ``bag_size`` again except in max mode.

Numerics, measured bit for bit against torch 2.13 CPU:
- sum/mean accumulate each bag in order (rank by rank here), fp64 in fp64, the others in fp32.
  The "fast path" (fp32/fp16/bf16 weight, no ``padding_idx``) is fbgemm: a weighted bag is a
  chain of fp32 fmas, and bf16 outputs round ties away from zero; the slow path (fp64, or a
  ``padding_idx``) multiplies then adds and rounds to nearest even. 16-bit bags round once.
  Mean then divides the rounded sum by the bag size in the output dtype (16-bit: twice rounded).
- max keeps, per feature, the first maximum (``>``; a NaN wins only as a bag's first row).
- ``_embedding_bag_dense_backward`` (sum/mean) walks the indices in the order ATen's unstable
  ``sort`` leaves them (``_std_sort``) and does ``grad_weight[k] += scale * grad[bag]`` with
  ``scale`` rounded to the gradient's dtype: fp32/fp64 as an fma (BLAS axpy), 16-bit as a
  rounded product then a rounded add. With ``scale_grad_by_freq`` ATen divides by
  ``counts[sorted_indices[g]]`` where ``g`` is the index's group number rather than the index
  itself; that is replayed too. Max mode adds each bag's gradient at its argmax rows, in bag
  order, one rounding per add.
- ``_embedding_bag_per_sample_weights_backward``: ``dot(grad[bag], weight[index])`` per index,
  accumulated in opmath and rounded once; fp32/fp64 differ from BLAS's dot by summation order.
Neither backward kernel has a derivative in PyTorch (double backward raises, as there).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..numerics import fma32, fma64
from ..tensor import Tensor
from ._std_sort import std_sort_order
from ._util import LOW, opmath, wrap

SUM, MEAN, MAX = 0, 1, 2
_WEIGHT_DTYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


# ---------------------------------------------------------------------------- checks
def _scalar_types(t, arg, allowed, names):
    if t.dtype not in allowed:
        raise RuntimeError(f"Expected tensor for argument #1 '{arg}' to have one of the "
                           f"following scalar types: {names}; but got torch."
                           f"{t.dtype.legacy_name} instead (while checking arguments for "
                           "embedding_bag)")


def _index_types(indices, offsets):
    """ATen's ``promoteIndicesAndOffsets``: both int64 unless both int32."""
    for t, arg in ((indices, "indices"), (offsets, "offsets")):
        if not isinstance(t, Tensor):
            raise TypeError(f"_embedding_bag(): argument '{arg}' must be Tensor, not "
                            f"{type(t).__name__}")
        _scalar_types(t, arg, (_dt.int64, _dt.int32), "Long, Int")
    return _dt.int32 if indices.dtype is offsets.dtype is _dt.int32 else _dt.int64


def _check_arguments(weight, indices, offsets, mode, psw, include_last_offset):
    """ATen's ``check_arguments`` (+ ``_embedding_bag_cpu_impl``'s dimension checks)."""
    if indices.ndim not in (1, 2):
        raise RuntimeError("input has to be a 1D or 2D Tensor, but got Tensor of dimension "
                           f"{indices.ndim}")
    if indices.ndim == 1 and offsets.ndim != 1:
        raise RuntimeError("offsets has to be a 1D Tensor, but got Tensor of dimension "
                           f"{offsets.ndim}")
    idt = _index_types(indices, offsets)
    _scalar_types(weight, "weight", _WEIGHT_DTYPES, "Half, BFloat16, Float, Double")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    off = offsets._data.reshape(-1).astype(np.int64)
    n = indices._data.size
    if off.size:
        if off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{int(off[0])}\n[ torch.{idt.legacy_name}{{}} ]")
        if off[-1] > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but "
                               f"got offsets[-1] of {int(off[-1])}")
    if psw is not None:
        if mode != SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with "
                               "mode='sum'")
        if psw.dtype is not weight.dtype:
            raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type "
                               "as tensor for argument #1 'per_sample_weights'; but type "
                               f"torch.{weight.dtype.legacy_name} does not equal torch."
                               f"{psw.dtype.legacy_name} (while checking arguments for "
                               "embedding_bag)")
        if psw.ndim != 1 or psw._data.size != n:
            raise RuntimeError("per_sample_weights must be 1-D with one weight per index")
    if include_last_offset and off.size < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    return idt, off


def _offset2bag(off, n, num_bags):
    """The bag of each of the ``n`` positions (ATen's ``make_offset2bag`` over the first
    ``num_bags`` offsets)."""
    if n == 0 or num_bags == 0:
        return np.zeros(n, np.int64)
    return np.searchsorted(off[:num_bags], np.arange(n), side="right") - 1


def _bag_sizes(off, n, num_bags):
    sizes = np.zeros(num_bags, np.int64)
    if num_bags:
        sizes[:-1] = np.diff(off[:num_bags])
        sizes[-1] = n - off[num_bags - 1]
    return sizes


def _rank_in_group(group):
    """For positions sorted by ``group`` (non-decreasing): each one's rank inside its group."""
    if group.size == 0:
        return np.zeros(0, np.int64)
    start = np.r_[0, np.flatnonzero(group[1:] != group[:-1]) + 1]
    return np.arange(group.size) - np.repeat(start, np.diff(np.r_[start, group.size]))


def _round_ties_away_bf16(x32):
    """fbgemm's fp32 -> bf16 store: add half an ulp to the bits and truncate."""
    bits = np.ascontiguousarray(x32, np.float32).view(np.uint32)
    nan = np.isnan(x32)
    out = ((bits + np.uint32(0x8000)) & np.uint32(0xFFFF0000)).view(np.float32)
    return np.where(nan, x32, out).astype(_dt.bfloat16.np)


# ---------------------------------------------------------------------------- forward
def _forward(weight, indices, offsets, mode, psw, include_last_offset, padding_idx,
             requires_grad):
    """The four outputs of ``_embedding_bag`` / ``_embedding_bag_forward_only``."""
    mode = int(mode)
    idt, off = _check_arguments(weight, indices, offsets, mode, psw, include_last_offset)
    idx = indices._data.reshape(-1).astype(np.int64)
    n, (num, d) = idx.size, weight.shape
    dt = weight.dtype
    num_bags = off.size - (1 if include_last_offset else 0)
    fast = dt is not _dt.float64 and padding_idx < 0
    bag = _offset2bag(off, n, num_bags)
    keep = idx != padding_idx
    # fbgemm's sum/mean bags end at the next offset (include_last_offset: at offsets[-1])
    if fast and mode != MAX and include_last_offset and num_bags:
        keep &= np.arange(n) < off[-1]
    bad = np.flatnonzero((idx < 0) | (idx >= num))
    if bad.size:
        i = int(bad[0])
        if fast and mode != MAX:
            raise RuntimeError(f"Index {i} of input takes value {int(idx[i])} which is not in "
                               f"the valid range [0, {num})")
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {int(idx[i])}")
    sizes = _bag_sizes(off, n, num_bags) - np.bincount(bag[idx == padding_idx],
                                                       minlength=num_bags)[:num_bags]
    w = opmath(weight, dt)
    rank = np.arange(n) - off[bag] if n else bag
    acc = np.zeros((num_bags, d), w.dtype)
    if mode == MAX:
        max_idx = np.zeros((num_bags, d), np.int64)
        empty = np.ones(num_bags, bool)
        for r in range(int(rank.max()) + 1 if n else 0):
            sel = np.flatnonzero((rank == r) & keep)
            b, rows = bag[sel], w[idx[sel]]
            upd = empty[b][:, None] | (rows > acc[b])
            acc[b] = np.where(upd, rows, acc[b])
            max_idx[b] = np.where(upd, idx[sel][:, None], max_idx[b])
            empty[b] = False
        out = wrap(acc, dt)
    else:
        s = None if psw is None else opmath(psw, dt).reshape(-1)
        for r in range(int(rank.max()) + 1 if n else 0):
            sel = np.flatnonzero((rank == r) & keep)
            b, rows = bag[sel], w[idx[sel]]
            if s is None:
                acc[b] = acc[b] + rows
            elif fast:
                acc[b] = fma32(rows, s[sel][:, None], acc[b])
            else:
                acc[b] = acc[b] + rows * s[sel][:, None]
        out = wrap(_round_ties_away_bf16(acc) if fast and dt is _dt.bfloat16 else acc, dt)
        if mode == MEAN:
            div = np.maximum(sizes, 1).astype(w.dtype)[:, None]
            out = wrap(opmath(out, dt) / div, dt)
        else:
            sizes = np.zeros(num_bags if requires_grad else off.size, np.int64)
        max_idx = sizes
    o2b = bag if (mode != SUM or not fast) else np.zeros(0, np.int64)
    ints = [Tensor._make(np.ascontiguousarray(a).astype(idt.np), idt)
            for a in (o2b, sizes, max_idx)]
    return (out, *ints)


@register_op("_embedding_bag")
class EmbeddingBag(Function):
    """``_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
    sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=-1)`` ->
    ``(output, offset2bag, bag_size, max_indices)`` (``aten::_embedding_bag``).

    Shapes: weight (num_embeddings, D) fp16/bf16/fp32/fp64; indices (n,) int64/int32 (contiguous
    1-d: ``F.embedding_bag`` flattens a 2-d input); offsets (B,) or (B + 1,) with
    ``include_last_offset``; per_sample_weights (n,) of weight's dtype, sum mode only. Output
    (B, D) in weight's dtype; the integer outputs in the indices' dtype (int64 unless both
    indices and offsets are int32). Differentiable in weight and per_sample_weights.

    Raises:
        RuntimeError: ATen's checks: index/offset/weight dtypes, ``offsets[0] != 0``,
            ``offsets[-1] > len(indices)``, per_sample_weights with another mode or dtype, an
            index out of range, no offsets with ``include_last_offset``.
    """

    _backward_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                per_sample_weights=None, include_last_offset=False, padding_idx=-1):
        outs = _forward(weight, indices, offsets, mode, per_sample_weights,
                        include_last_offset, padding_idx, True)
        psw_grad = ctx.needs_input_grad[6] if len(ctx.needs_input_grad) > 6 else False
        ctx.save_for_backward(indices, offsets, *outs[1:], per_sample_weights,
                              weight if psw_grad else None)
        ctx.args = (weight.shape[0], scale_grad_by_freq, int(mode), sparse, padding_idx)
        ctx.mark_non_differentiable(*outs[1:])
        return outs

    @staticmethod
    def backward(ctx, grad, *_):
        indices, offsets, o2b, sizes, max_idx, psw, weight = ctx.saved_tensors
        num, by_freq, mode, sparse, pad = ctx.args
        gw = gp = None
        if ctx.needs_input_grad[0]:
            gw = dispatch("_embedding_bag_backward", grad, indices, offsets, o2b, sizes,
                          max_idx, num, by_freq, mode, sparse, psw, pad)
        if psw is not None and weight is not None:
            gp = dispatch("_embedding_bag_per_sample_weights_backward", grad, weight, indices,
                          offsets, o2b, mode, pad)
        return gw, None, None, None, None, None, gp, None, None


@register_op("_embedding_bag_forward_only")
def _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                                sparse=False, per_sample_weights=None,
                                include_last_offset=False, padding_idx=-1):
    """``_embedding_bag`` for inputs that need no gradient (what ``embedding_bag`` calls then):
    the same outputs, no graph; sum mode's ``bag_size`` has one entry per offset (ATen's
    ``make_bag_size`` without ``requires_grad``). Raises as ``_embedding_bag``."""
    return _forward(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                    padding_idx, False)


@register_op("embedding_bag")
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag`` (aten composite): wraps a negative ``padding_idx`` (None: no
    padding) and runs ``_embedding_bag``, or ``_embedding_bag_forward_only`` when neither
    weight nor per_sample_weights requires grad. Returns the four outputs.

    Raises:
        RuntimeError: ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``
            ("padding_idx must be within the number of embeddings, -5 through 4, but got 5");
            the ``_embedding_bag`` errors.
        NotImplementedError: ``sparse=True`` with a weight that requires grad (minigrad has no
            sparse gradients; as ``embedding``).
    """
    if sparse and weight.requires_grad:
        raise NotImplementedError("embedding_bag(sparse=True): sparse gradients are not "
                                  "implemented in minigrad; use sparse=False")
    pad = -1
    if padding_idx is not None:
        num = weight.shape[0]
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                               f"through {num - 1}, but got {padding_idx}")
        pad = padding_idx + num if padding_idx < 0 else padding_idx
    grad = weight.requires_grad or (per_sample_weights is not None and
                                    per_sample_weights.requires_grad)
    op = "_embedding_bag" if grad else "_embedding_bag_forward_only"
    return dispatch(op, weight, indices.contiguous(), offsets.contiguous(), scale_grad_by_freq,
                    mode, sparse, per_sample_weights, include_last_offset, pad)


# ---------------------------------------------------------------------------- backward
def _replay_adds(out, target, rows, dt):
    """``out[target[i]] += rows[i]`` for i in order, each add rounded to ``dt`` (16-bit: an
    fp32 add then one rounding, as ATen's Half/BFloat16 ``+=``)."""
    order = np.argsort(target, kind="stable")
    rank = np.empty_like(order)
    rank[order] = _rank_in_group(target[order])
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = rank == r
        t = target[sel]
        out[t] = (out[t] + rows[sel]).astype(dt.np).astype(out.dtype)
    return out


@register_op("_embedding_bag_backward")
def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
                            num_weights, scale_grad_by_freq, mode, sparse,
                            per_sample_weights=None, padding_idx=-1):
    """``aten::_embedding_bag_backward``: the weight gradient of ``_embedding_bag``. Rebuilds
    ``offset2bag`` when the forward left it empty (sum mode's fast path), then runs
    ``_embedding_bag_dense_backward``.

    Raises:
        NotImplementedError: ``sparse=True`` (minigrad has no sparse tensors).
        RuntimeError: index/offset dtypes other than int64/int32.
    """
    idt = _index_types(indices, offsets)
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True): sparse gradients are not "
                                  "implemented in minigrad; use sparse=False")
    n = indices._data.size
    if n and offset2bag._data.size == 0:
        off = offsets._data.reshape(-1).astype(np.int64)
        bag = np.minimum(_offset2bag(off, n, off.size), max(grad.shape[0] - 1, 0))
        offset2bag = Tensor._make(bag.astype(idt.np), idt)
    return dispatch("_embedding_bag_dense_backward", grad, indices, offset2bag, bag_size,
                    maximum_indices, num_weights, scale_grad_by_freq, mode,
                    per_sample_weights, padding_idx)


@register_op("_embedding_bag_dense_backward")
class EmbeddingBagDenseBackward(Function):
    """``_embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
    num_weights, scale_grad_by_freq, mode, per_sample_weights, padding_idx=-1)`` -> the
    (num_weights, D) weight gradient in grad's dtype, accumulated as ATen's CPU kernel (module
    docstring). Its graph node ``EmbeddingBagBackwardBackward0`` raises on backward, as
    PyTorch's: "the derivative for '_embedding_bag_backward' is not implemented."
    """

    _backward_name = "EmbeddingBagBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
                scale_grad_by_freq, mode, per_sample_weights=None, padding_idx=-1):
        dt = grad.dtype
        _scalar_types(grad, "grad_", _WEIGHT_DTYPES, "Half, BFloat16, Float, Double")
        g = opmath(grad, dt)
        d = g.shape[1]
        out = np.zeros((num_weights, d), g.dtype)
        sizes = bag_size._data.astype(np.int64)
        if int(mode) == MAX:
            bags = np.flatnonzero(sizes != 0)
            mi = maximum_indices._data.astype(np.int64)[bags]
            flat = out.reshape(-1)
            _replay_adds(flat, (mi * d + np.arange(d)).reshape(-1), g[bags].reshape(-1), dt)
            return wrap(flat.reshape(num_weights, d), dt)
        idx = indices._data.reshape(-1).astype(np.int64)
        order = std_sort_order(idx)
        sidx, src = idx[order], offset2bag._data.astype(np.int64)[order]
        rank = _rank_in_group(sidx)
        scale = np.ones(idx.size)
        if per_sample_weights is not None:
            scale *= per_sample_weights._data.astype(np.float64)[order]
        if scale_grad_by_freq:
            counts = np.bincount(idx, minlength=num_weights)
            group = np.cumsum(rank == 0) - 1            # ATen reads counts[sorted[group]]
            scale /= counts[sidx[group]]
        if int(mode) == MEAN:
            bs = sizes[src]
            scale = np.where(bs != 0, scale / np.where(bs != 0, bs, 1), scale)
        a = scale.astype(dt.np).astype(g.dtype)[:, None]      # (scalar_t)scale
        live = sidx != padding_idx
        with np.errstate(all="ignore"):
            _accumulate(out, sidx, src, rank, live, a, g, dt)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_embedding_bag_backward' is not "
                                  "implemented.")


def _accumulate(out, sidx, src, rank, live, a, g, dt):
    """``out[k] += a * g[src]`` position by position, rank by rank (every index's r-th
    occurrence at once): fp32/fp64 as an fma, 16-bit as a rounded product and a rounded add."""
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = np.flatnonzero((rank == r) & live)
        k, x, y = sidx[sel], g[src[sel]], a[sel]
        if dt in LOW:
            out[k] = (out[k] + (y * x).astype(dt.np).astype(g.dtype)).astype(dt.np) \
                .astype(g.dtype)
        else:
            out[k] = (fma32 if dt is _dt.float32 else fma64)(y, x, out[k])


@register_op("_embedding_bag_per_sample_weights_backward")
class EmbeddingBagPerSampleWeightsBackward(Function):
    """``_embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag,
    mode, padding_idx=-1)`` -> (n,): ``dot(grad[bag], weight[index])`` for each index (0 at
    ``padding_idx``), in opmath, rounded once. Node ``torch::autograd::NotImplemented`` (no
    derivative, as PyTorch).

    Raises:
        RuntimeError: ``mode`` other than sum ("embedding_bag_backward: per_sample_weights only
            supported for mode='sum'").
    """

    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
        if int(mode) != SUM:
            raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for "
                               "mode='sum'")
        dt = grad.dtype
        idx = indices._data.reshape(-1).astype(np.int64)
        bag = offset2bag._data.astype(np.int64)
        if idx.size and bag.size == 0:
            off = offsets._data.reshape(-1).astype(np.int64)
            bag = np.minimum(_offset2bag(off, idx.size, off.size), max(grad.shape[0] - 1, 0))
        g, w = opmath(grad, dt), opmath(weight, dt)
        out = np.zeros(idx.size, g.dtype)
        live = np.flatnonzero(idx != padding_idx)
        out[live] = np.sum(g[bag[live]] * w[idx[live]], axis=1)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::_embedding_bag_per_sample_weights_backward "
                           "is not implemented")
