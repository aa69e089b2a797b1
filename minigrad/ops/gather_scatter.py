"""Gather and scatter along a dim: ``gather``, ``scatter`` (src / value, ``reduce=``),
``scatter_add``, ``scatter_reduce`` and their in-place forms.

For ``out = gather(self, dim, index)``: ``out[i][j][k] = self[index[i][j][k]][j][k]`` (dim 0);
``scatter`` writes the other way round, ``self[index[i][j][k]][j][k] = src[i][j][k]``. As in
PyTorch, ``index`` has the input's number of dims and may be smaller than it (and than ``src``)
in every dim but ``dim``: only the leading ``index.shape`` block of ``src`` is read.

Numerics as PyTorch 2.13's CPU kernels (measured): ``scatter_add``, ``scatter(reduce=)`` and
``scatter_reduce`` combine the input and all values sent to one position in opmath (fp32 for
fp16/bf16), in index order, and round once into the storage dtype ("mean": the sum is rounded,
then divided by the count and rounded again); so do the gradients (``gather``'s backward is a
``scatter_add``). ``scatter`` with repeated indices keeps the last
value (PyTorch documents the choice as unspecified).

Backward formulas as ``tools/autograd/derivatives.yaml`` (``gather_backward`` is a
``scatter_add`` into zeros; ``scatter_reduce_backward`` for sum/mean/prod/amax/amin).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import check_scalar, opmath, wrap, wrap_dim
from .factory import _convert
from .inplace import run_inplace

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def check_index(index, op, kinds=(_dt.int64, _dt.int32)):
    """Raise PyTorch's error for a non-empty index tensor of another dtype ("gather(): Expected
    dtype int32/int64 for index"); an empty one may have any dtype, as in PyTorch."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in kinds and index.numel():
        want = "int32/int64" if len(kinds) == 2 else "int64"
        raise RuntimeError(f"{op}(): Expected dtype {want} for index")


def _check_shapes(op, self, dim, index, src=None):
    """PyTorch's ``gather_shape_check`` / ``scatter_shape_check`` and the bounds check.

    Returns:
        the wrapped ``dim``.
    """
    n = self.ndim
    d = wrap_dim(dim, n)
    if index.numel() == 0:
        return d
    if max(index.ndim, 1) != max(n, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if src is None else 'self'} tensor")
    ish, ssh = index.shape or (1,), self.shape or (1,)
    if src is None:
        for k in range(len(ish)):
            if k != d and ish[k] > ssh[k]:
                raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                   f"{list(index.shape)} to be no larger than self "
                                   f"{list(self.shape)} apart from dimension {d}")
    else:
        srs = (src.shape or (1,)) if isinstance(src, Tensor) else None
        for k in range(len(ish)):
            if (k != d and ish[k] > ssh[k]) or (srs is not None and ish[k] > srs[k]):
                tail = (f" and to be no larger size than src {list(src.shape)}"
                        if srs is not None else "")
                raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than "
                                   f"self {list(self.shape)} apart from dimension {d}{tail}")
    size = ssh[d]
    idx = index._data
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= size:
        raise RuntimeError(f"index {lo if lo < 0 else hi} is out of bounds for dimension {d} "
                           f"with size {size}")
    return d


def _block(arr, shape):
    """The leading ``shape`` block of ``arr`` (a view)."""
    return arr[tuple(slice(0, s) for s in shape)]


def _positions(index, d):
    """NumPy fancy-index tuple of the positions ``index`` addresses along ``d``."""
    idx = index._data.astype(np.int64, copy=False).reshape(index.shape or (1,))
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


def _src_block(src, index, dtype):
    """``src``'s leading ``index.shape`` block in ``dtype`` storage (or a broadcast number)."""
    shape = index.shape or (1,)
    if isinstance(src, Tensor):
        return _block(src._data.reshape(src.shape or (1,)), shape)
    return np.broadcast_to(np.asarray(_convert(np.asarray(src), dtype)), shape)


def _result(self, out):
    return Tensor._make(out.reshape(self.shape), self.dtype)


def _opmath_copy(input):
    """The input's values as a fresh opmath array (fp32 for fp16/bf16), shape at least 1-D."""
    return np.array(opmath(input, input.dtype), copy=True).reshape(input.shape or (1,))


def _opmath_vals(src, index, dtype):
    vals = _src_block(src, index, dtype)
    return vals.astype(dtype.opmath.np) if vals.dtype != dtype.opmath.np else vals


# ------------------------------------------------------------------ gather
@register_op("gather")
class Gather(Function):
    """``gather(input, dim, index, *, sparse_grad=False)``: values of ``input`` at ``index``
    along ``dim`` (``torch.gather``; node ``GatherBackward0``). Output: ``index``'s shape, the
    input's dtype. Deliberate difference: minigrad has no sparse tensors, so ``sparse_grad=True``
    gives the same dense gradient.

    Raises:
        RuntimeError: an index that is not int32/int64, of another number of dims, larger than
            the input outside ``dim``, or out of range ("index 5 is out of bounds for dimension
            1 with size 4"); IndexError: ``dim`` out of range.
    """

    _backward_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, sparse_grad=False):
        check_index(index, "gather")
        d = _check_shapes("gather", input, dim, index)
        ctx.dim, ctx.in_shape = d, input.shape
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        if index.numel() == 0:
            return Tensor._make(np.zeros(index.shape, input._data.dtype), input.dtype)
        data = input._data.reshape(input.shape or (1,))
        out = data[_positions(index, d)]
        return Tensor._make(np.array(out, order="C").reshape(index.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        zeros = dispatch("zeros", ctx.in_shape, dtype=grad.dtype)
        return dispatch("scatter_add", zeros, ctx.dim, index, grad), None, None, None


# ------------------------------------------------------------------ scatter
class _ScatterBase(Function):
    @staticmethod
    def forward(ctx, input, dim, index, src, reduce=None):
        wrap_dim(dim, input.ndim)          # PyTorch wraps dim before its dtype checks
        check_index(index, "scatter")
        if isinstance(src, Tensor) and src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if not isinstance(src, Tensor):
            check_scalar(src, input.dtype)
        if reduce is not None and reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        d = _check_shapes("scatter", input, dim, index, src)
        ctx.dim = d
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        if reduce is not None:
            out = _opmath_copy(input)
            if index.numel():
                ufunc = np.add if reduce == "add" else np.multiply
                ufunc.at(out, _positions(index, d), _opmath_vals(src, index, input.dtype))
            return wrap(out.reshape(input.shape), input.dtype)
        out = input._data.reshape(input.shape or (1,)).copy()
        if index.numel():
            out[_positions(index, d)] = _src_block(src, index, input.dtype)
        return _result(input, out)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gi = dispatch("scatter.value", grad, ctx.dim, index, 0.0) if nig[0] else None
        gs = dispatch("gather", grad, ctx.dim, index) if nig[3] else None
        return (gi, None, None, gs) + (None,) * (len(nig) - 4)


@register_op("scatter.src")
class ScatterSrc(_ScatterBase):
    """``scatter(input, dim, index, src)``: ``input`` with ``src``'s values written at
    ``index`` along ``dim`` (``torch.scatter``; node ``ScatterBackward0``: the input's gradient
    is ``grad`` with zeros written at ``index``, src's is ``grad.gather(dim, index)``).

    Raises:
        RuntimeError: ``src`` of another dtype ("scatter(): Expected self.dtype to be equal to
            src.dtype"), index dtype/shape/bounds errors as ``gather``.
    """

    _backward_name = "ScatterBackward0"


@register_op("scatter.value")
class ScatterValue(_ScatterBase):
    """``scatter(input, dim, index, value)``: a number written at ``index`` (node
    ``ScatterBackward1``)."""

    _backward_name = "ScatterBackward1"


class _ScatterReduce(_ScatterBase):
    _backward_name = "ScatterBackward0"

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("the derivative for 'scatter' with the reduce argument is not "
                           "implemented")


@register_op("scatter.reduce")
class ScatterSrcReduce(_ScatterReduce):
    """``scatter(input, dim, index, src, reduce=)``: ``reduce`` "add" or "multiply" combines
    ``src`` into ``input`` (deprecated by PyTorch in favour of ``scatter_reduce``; not
    differentiable, as in PyTorch)."""


@register_op("scatter.value_reduce")
class ScatterValueReduce(_ScatterReduce):
    """``scatter(input, dim, index, value, reduce=)``: as ``scatter.reduce`` with a number."""


@register_op("scatter_add")
class ScatterAdd(Function):
    """``scatter_add(input, dim, index, src)``: ``src`` added into ``input`` at ``index``
    (``torch.scatter_add``; node ``ScatterAddBackward0``). Repeated indices add one after the
    other in the storage dtype, as PyTorch's CPU kernel.

    Raises:
        RuntimeError: as ``scatter``.
    """

    _backward_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, src):
        wrap_dim(dim, input.ndim)          # PyTorch wraps dim before its dtype checks
        check_index(index, "scatter")
        if not isinstance(src, Tensor):
            raise TypeError("scatter_add(): argument 'src' (position 4) must be Tensor, not "
                            f"{type(src).__name__}")
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        d = _check_shapes("scatter_add", input, dim, index, src)
        ctx.dim = d
        ctx.save_for_backward(index)       # PyTorch saves the index: freed after backward
        out = _opmath_copy(input)
        if index.numel():
            np.add.at(out, _positions(index, d), _opmath_vals(src, index, input.dtype))
        return wrap(out.reshape(input.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        return (grad if nig[0] else None), None, None, \
            (dispatch("gather", grad, ctx.dim, index) if nig[3] else None)


# ------------------------------------------------------------------ scatter_reduce
def _reduce_into(out, pos, vals, reduce, include_self, dtype):
    """``out`` (an opmath array) combined with ``vals`` at ``pos`` by ``reduce``; returns the
    (opmath) result."""
    if not include_self:
        # positions that receive a value start from the reduction's identity
        ident = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
        if out.dtype == np.bool_:
            ident = {"sum": False, "mean": False, "prod": True, "amax": False,
                     "amin": True}[reduce]
        elif out.dtype.kind in "iu" and reduce in ("amax", "amin"):
            info = np.iinfo(out.dtype)
            ident = info.min if reduce == "amax" else info.max
        out[pos] = ident
    if reduce in ("sum", "mean"):
        np.add.at(out, pos, vals)
    elif reduce == "prod":
        np.multiply.at(out, pos, vals)
    elif reduce == "amax":
        np.maximum.at(out, pos, vals)       # propagates NaN, as PyTorch's max
    else:
        np.minimum.at(out, pos, vals)
    if reduce != "mean":
        return out
    count = np.full(out.shape, 1 if include_self else 0, np.int64)
    np.add.at(count, pos, 1)
    count = np.maximum(count, 1)
    if dtype.is_floating_point:
        # PyTorch rounds the sum into the storage dtype, then divides (measured in fp16/bf16)
        return _convert(out, dtype).astype(out.dtype) / count.astype(out.dtype)
    return np.floor_divide(out, count)


@register_op("scatter_reduce.two")
class ScatterReduce(Function):
    """``scatter_reduce(input, dim, index, src, reduce, *, include_self=True)``: ``src``
    reduced into ``input`` at ``index`` by "sum", "prod", "mean", "amax" or "amin"
    (``torch.scatter_reduce``; node ``ScatterReduceBackward0``). With ``include_self=False``
    the input's values at the scattered positions take no part. "mean" divides by the count
    (floor division for integers, as PyTorch).

    Raises:
        RuntimeError: an unknown ``reduce`` ("reduce argument must be either sum, prod, mean,
            amax or amin, got foo"); errors of ``scatter``.
    """

    _backward_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, input, dim, index, src, reduce, include_self=True):
        if reduce not in _REDUCES:
            raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                               f"got {reduce}")
        wrap_dim(dim, input.ndim)          # PyTorch wraps dim before its dtype checks
        check_index(index, "scatter_reduce")
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        d = _check_shapes("scatter_reduce", input, dim, index, src)
        out = _opmath_copy(input)
        if index.numel():
            out = _reduce_into(out, _positions(index, d), _opmath_vals(src, index, input.dtype),
                               reduce, include_self, input.dtype)
        res = wrap(out.reshape(input.shape), input.dtype)
        ctx.args = (d, index, reduce, include_self)
        ctx.save_for_backward(input, src, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        self, src, result = ctx.saved_tensors
        dim, index, reduce, include_self = ctx.args
        gs, gsrc = _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self,
                                            result)
        return gs, None, None, gsrc, None, None


def _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """PyTorch's ``scatter_reduce_backward`` (``torch/csrc/autograd/FunctionsManual.cpp``) as
    dispatched ops."""
    def D(op, *a, **k):
        return dispatch(op, *a, **k)
    if reduce == "sum":
        g_self, g_src = grad, D("gather", grad, dim, index)
    elif reduce == "mean":
        start = D("ones_like", grad) if include_self else D("zeros_like", grad)
        n = D("scatter_add", start, dim, index, D("ones_like", src))
        n = D("masked_fill", n, D("eq", n, 0), 1)
        g_self = D("div", grad, n)
        g_src = D("gather", g_self, dim, index)
    elif reduce == "prod":
        masked_self = D("masked_fill", self, D("eq", self, 0), 1)
        masked_self_result = D("scatter_reduce.two", masked_self, dim, index, src, reduce,
                               include_self=include_self)
        g_self = D("div", D("mul", grad, masked_self_result), masked_self)
        src_zero = D("eq", src, 0)
        zeros = D("zeros_like", self)
        nz = D("gather", D("scatter_add", zeros, dim, index,
                           D("_to_copy", src_zero, dtype=self.dtype)), dim, index)
        single = D("logical_and", src_zero, D("eq", nz, 1))
        masked_src = D("masked_fill", src, single, 1)
        masked_src_result = D("scatter_reduce.two", self, dim, index, masked_src, reduce,
                              include_self=include_self)
        g_src1 = D("where", single, D("gather", D("mul", grad, masked_src_result), dim, index),
                   D("div", D("gather", D("mul", grad, result), dim, index),
                     D("masked_fill", src, src_zero, 1)))
        g_src = g_src1
    else:
        value = D("gather", result, dim, index)
        self_is = D("eq", self, result)
        src_is = D("eq", src, value)
        n = D("scatter_add", D("_to_copy", self_is, dtype=grad.dtype), dim, index,
              D("_to_copy", src_is, dtype=grad.dtype))
        dist = D("div", grad, n)
        g_self = D("mul", D("_to_copy", self_is, dtype=grad.dtype), dist)
        g_src = D("mul", D("_to_copy", src_is, dtype=grad.dtype), D("gather", dist, dim, index))
    if not include_self:
        g_self = D("scatter.value", g_self, dim, index, 0)
    return g_self, g_src


# ------------------------------------------------------------------ in-place forms
@register_op("scatter_.src")
def scatter__src(self, dim, index, src, *, reduce=None):
    """In-place ``scatter`` with a src tensor (``Tensor.scatter_``); returns ``self``.

    Raises:
        RuntimeError: errors of ``scatter`` and of ``run_inplace``.
    """
    if reduce is not None:
        return run_inplace(self, ScatterSrcReduce.apply, dim, index, src, reduce)
    return run_inplace(self, ScatterSrc.apply, dim, index, src)


@register_op("scatter_.value")
def scatter__value(self, dim, index, value, *, reduce=None):
    """In-place ``scatter`` with a number (``Tensor.scatter_``); returns ``self``."""
    if reduce is not None:
        return run_inplace(self, ScatterValueReduce.apply, dim, index, value, reduce)
    return run_inplace(self, ScatterValue.apply, dim, index, value)


@register_op("scatter_add_")
def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add`` (``Tensor.scatter_add_``); returns ``self``."""
    return run_inplace(self, ScatterAdd.apply, dim, index, src)


@register_op("scatter_reduce_.two")
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place ``scatter_reduce`` (``Tensor.scatter_reduce_``); returns ``self``."""
    return run_inplace(self, ScatterReduce.apply, dim, index, src, reduce, include_self)
