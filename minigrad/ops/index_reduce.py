"""``index_reduce`` (``torch.Tensor.index_reduce``) and its in-place form ``index_reduce_``:
slices of ``source`` reduced into the slices of ``input`` that ``index`` names along ``dim``,
by "prod", "mean", "amax" or "amin" (``index_add`` is the "sum"). It is to ``index_add`` what
``scatter_reduce`` is to ``scatter_add``.

For a 2-D input and ``dim=0``: ``out[index[k]] = reduce(out[index[k]], source[k])`` for each
``k`` in order, starting from ``input`` (``include_self=True``) or, at the indexed rows, from
the reduction's identity (1, -inf, +inf, 0; the dtype's lowest/highest value for integers).

Numerics as PyTorch's CPU kernel (``index_reduce_func_impl``): one ``mul`` / ``maximum`` /
``minimum`` / ``add`` per index, each computed in opmath and rounded into the storage dtype,
so repeated indices round once per step (unlike ``scatter_reduce``, which rounds once at the
end); NaN propagates through amax/amin. "mean" then divides by the count of values that each
slice received (plus one with ``include_self``; a slice that received none is divided by 1),
floor division for integers (the counts are exact: PyTorch's ``index_add_`` of ones
rounds them into the storage dtype, which for bfloat16 loses counts above 256 where that
``index_add_`` adds one slice at a time; that case is not reproduced). Backward PyTorch's
``index_reduce_backward`` composite (``torch/csrc/autograd/FunctionsManual.cpp``) as
dispatched ops.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap_dim
from .factory import _convert
from .index_dim import _moved, _vector
from .inplace import run_inplace

_REDUCES = ("prod", "mean", "amax", "amin")
_BETA_WARNED = []        # PyTorch's TORCH_WARN_ONCE: the beta warning once per process


def _identity(reduce, dtype):
    """The value ``include_self=False`` starts the indexed slices from (PyTorch's
    ``init_val``)."""
    if reduce == "prod":
        return 1
    if reduce in ("amax", "amin"):
        if dtype.is_floating_point:
            return -np.inf if reduce == "amax" else np.inf
        info = np.iinfo(dtype.np)
        return info.min if reduce == "amax" else info.max
    return 0


def _checks(input, d, index, source, reduce):
    """PyTorch's ``index_reduce`` meta checks (``index_func_meta_impl``), in its order."""
    if reduce not in _REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    idx = _vector(index, "index_reduce_", "Index is supposed to be a vector, but got dim: "
                  f"{getattr(index, 'ndim', 0)} with type: "
                  f"{getattr(getattr(index, 'dtype', None), 'scalar_name', '')} and size: "
                  f"{list(getattr(index, 'shape', ()))}")
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype.scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.scalar_name}) and source "
                           f"({source.dtype.scalar_name}) must have the same scalar type")
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"index_reduce_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {source.ndim}")
    n_src = source.shape[d] if source.ndim else 1
    if idx.size != n_src:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal "
                           f"to source.size(dim): ({n_src}), for dim: {d}")
    rest_in, rest_src = list(input.shape), list(source.shape)
    if source.ndim and input.ndim:
        del rest_in[d], rest_src[d]
    if rest_in != rest_src:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    return idx


def _step(reduce, acc, val):
    """One reduction step on opmath values (``mul_stub``, ``maximum_stub``...)."""
    if reduce == "prod":
        return acc * val
    if reduce == "amax":
        return np.maximum(acc, val)          # propagates NaN, as PyTorch's kernel
    if reduce == "amin":
        return np.minimum(acc, val)
    return acc + val                          # "mean": the sum first


@register_op("index_reduce")
class IndexReduce(Function):
    """``index_reduce(input, dim, index, source, reduce, *, include_self=True)``: ``input`` with
    ``source.select(dim, k)`` reduced into slice ``index[k]`` by "prod", "mean", "amax" or
    "amin" (``torch.Tensor.index_reduce``; node ``IndexReduceBackward0``). Same shape and dtype
    as ``input``; ``source`` has ``input``'s dtype and shape except along ``dim``, where it has
    one slice per index. Warns once, as PyTorch, that the API is in beta.

    Deliberate difference: PyTorch's backward of "prod" refuses a double backward when two or
    more zeros of ``source`` reach one slice (a ``DelayedError``); here that second-order
    gradient is computed from the same composite. PyTorch 2.13 fails an internal assert
    ("iter.ninputs() == traits::arity") for fp16/bf16 "prod" on a 2+-dim input whose slices
    have one element; here that case is computed like the others.

    Raises:
        RuntimeError: an unknown ``reduce`` ("index_reduce(): Expected reduce to be one of
            prod, mean, amax or amin but got sum."), an index of another dtype, ``source`` of
            another dtype or slice shape, an index count that differs from
            ``source.size(dim)``.
        IndexError: a 2-D index, an index out of range ("index out of range in self"),
            ``dim`` out of range.
        NotImplementedError: a bool input ('"index_func_" not implemented for 'Bool'').
    """

    _backward_name = "IndexReduceBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, source, reduce, include_self=True):
        if not _BETA_WARNED:
            _BETA_WARNED.append(True)
            warnings.warn("index_reduce() is in beta and the API may change at any time.",
                          UserWarning, stacklevel=3)
        d = wrap_dim(dim, input.ndim)
        idx = _checks(input, d, index, source, reduce)
        dt = input.dtype
        if dt is _dt.bool_:
            raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
        out = input._data.reshape(input.shape or (1,)).copy()
        dst = _moved(out, d)
        size = dst.shape[0]
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise IndexError("index out of range in self")
        if not include_self:
            dst[idx] = _convert(np.asarray(_identity(reduce, dt)), dt)
        src = _moved(source._data, 0 if source.ndim == 0 else d)
        for k, i in enumerate(idx):           # one rounding per index, as PyTorch's loop
            dst[i] = _convert(np.asarray(_step(reduce, opmath(dst[i], dt), opmath(src[k], dt))),
                              dt)
        if reduce == "mean":
            # PyTorch: counts = (ones or zeros).index_add_(dim, index, ones); 0 -> 1; div_
            counts = np.full(size, 1 if include_self else 0, np.int64)
            np.add.at(counts, idx, 1)
            counts = np.maximum(counts, 1).reshape((size,) + (1,) * (dst.ndim - 1))
            if dt.is_floating_point:
                counts = opmath(_convert(counts, dt), dt)
                dst[...] = _convert(opmath(dst, dt) / counts, dt)
            else:
                dst[...] = np.floor_divide(dst, counts)
        res = Tensor._make(out.reshape(input.shape), dt)
        ctx.args = (d, reduce, include_self)
        ctx.save_for_backward(input, index, source, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        self, index, source, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.args
        g_self, g_src = _index_reduce_backward(grad, self, dim, index, source, reduce,
                                               include_self, result)
        return g_self, None, None, g_src, None, None


def _index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result):
    """PyTorch's ``index_reduce_backward`` (``FunctionsManual.cpp``), op for op."""
    def D(op, *a, **k):
        return dispatch(op, *a, **k)
    if reduce == "prod":
        masked_self = D("masked_fill", self, D("eq", self, 0), 1)
        masked_self_result = D("index_reduce", masked_self, dim, index, source, reduce,
                               include_self=include_self)
        g_self = D("div", D("mul", grad, masked_self_result), masked_self)
        src_zero = D("eq", source, 0)
        src_num_zeros = D("index_select", D("index_add", D("zeros_like", self), dim, index,
                                            D("_to_copy", src_zero, dtype=self.dtype)),
                          dim, index)
        src_single_zero = D("bitwise_and", src_zero, D("eq", src_num_zeros, 1))
        masked_src = D("masked_fill", source, src_single_zero, 1)
        masked_src_result = D("index_reduce", self, dim, index, masked_src, reduce,
                              include_self=include_self)
        g_src = D("where", src_single_zero,
                  D("index_select", D("mul", grad, masked_src_result), dim, index),
                  D("div", D("index_select", D("mul", grad, result), dim, index),
                    D("masked_fill", source, src_zero, 1)))
    elif reduce == "mean":
        n = D("ones_like" if include_self else "zeros_like", grad)
        n = D("index_add", n, dim, index, D("ones_like", source))
        n = D("masked_fill", n, D("eq", n, 0), 1)
        g_self = D("div", grad, n)
        g_src = D("div", D("index_select", grad, dim, index), D("index_select", n, dim, index))
    else:
        value = D("index_select", result, dim, index)
        self_is_result = D("_to_copy", D("eq", self, result), dtype=self.dtype)
        source_is_result = D("_to_copy", D("eq", source, value), dtype=self.dtype)
        n = D("index_add", self_is_result, dim, index, source_is_result)
        distributed = D("div", grad, n)
        g_self = D("mul", self_is_result, distributed)
        g_src = D("mul", source_is_result, D("index_select", distributed, dim, index))
    if not include_self:
        g_self = D("index_fill.int_Scalar", g_self, dim, index, 0)
    return g_self, g_src


@register_op("index_reduce_")
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce`` (``Tensor.index_reduce_``); returns ``self``."""
    return run_inplace(self, IndexReduce.apply, dim, index, source, reduce, include_self)
