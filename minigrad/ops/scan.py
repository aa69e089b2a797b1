"""Scans and products: ``cumsum``, ``cumprod``, ``prod``.

Result dtypes as PyTorch: integer and bool inputs give int64 (``dtype=`` casts the input first).
Kernels as PyTorch's CPU ones: the scans accumulate in ATen's CPU ``acc_type`` (double for
float32 and float64, float32 for fp16/bf16) left to right and round every output once. ``prod``
multiplies in opmath and rounds once; PyTorch's vectorised product rounds every partial product
into the input's own format (fp16/bf16/fp32), so the catalogue states a ULP bound.

Backward formulas are PyTorch's (``cumsum_backward``, ``cumprod_backward``, ``prod_backward``
and ``prod_safe_zeros_backward`` of ``FunctionsManual.cpp``) as dispatched ops; where the input
holds zeros, PyTorch's mask recipe for the elements before and at the first zero (with
``where`` in place of its ``masked_scatter_``), or under ``create_graph`` a formula that stays
right when differentiated again (exclusive products, an ``n x n`` expansion along the dim).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, refuse_float8, wrap, wrap_dim


def _check(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _result_dtype(input, dtype, fname="cumsum"):
    if dtype is not None:
        return _dt.dtype_arg(dtype, fname)
    return input.dtype if input.dtype.is_floating_point else _dt.int64


def _acc(input, rt):
    """The input's storage as an array in the scan's accumulation dtype for result ``rt``."""
    a = input._data
    if rt in _LOW:
        return a.astype(np.float32)
    if rt.is_floating_point:
        return a.astype(np.float64)
    return a.astype(rt.np)


# ------------------------------------------------------------------------------------ helpers
def flip(t, dim):
    """``t`` reversed along ``dim`` (an ``index`` with a descending ``arange``; differentiable)."""
    n = t.shape[dim]
    rev = dispatch("arange", n - 1, -1, -1)
    return dispatch("index", t, (slice(None),) * dim + (rev,))


def reversed_cumsum(w, dim):
    """PyTorch's ``reversed_cumsum``: ``w.flip(dim).cumsum(dim).flip(dim)``."""
    return flip(dispatch("cumsum", flip(w, dim), dim), dim)


# ------------------------------------------------------------------------------------ cumsum
class _Scan(Function):
    _ufunc = np.add
    _op = "cumsum"

    @classmethod
    def forward(cls, ctx, input, dim, *, dtype=None):
        _check(input, cls._op)
        d = wrap_dim(dim, input.ndim)
        rt = _result_dtype(input, dtype, cls._op)
        a = _acc(input, rt)
        with np.errstate(over="ignore", invalid="ignore"):
            out = cls._ufunc.accumulate(a, axis=d) if input.ndim else a.copy()
        res = wrap(out, rt)
        ctx.dim, ctx.in_dtype = d, input.dtype
        if cls is CumProd:
            ctx.save_for_backward(input, res)
        return res


@register_op("cumsum")
class CumSum(_Scan):
    """``cumsum(input, dim, *, dtype=None)`` (``torch.cumsum``): running sums along ``dim``;
    integer/bool inputs give int64. ``CumsumBackward0``: the reversed cumulative sum of the
    gradient.

    Raises:
        IndexError: ``dim`` out of range.
    """

    _backward_name = "CumsumBackward0"

    @staticmethod
    def backward(ctx, grad):
        if grad.dtype is not ctx.in_dtype:
            grad = dispatch("_to_copy", grad, dtype=ctx.in_dtype)
        if grad.numel() <= 1 or grad.ndim == 0 or grad.shape[ctx.dim] == 1:
            return grad
        return reversed_cumsum(grad, ctx.dim)


def _cumprod_zeros_backward(grad, input, out, dim):
    """PyTorch's ``cumprod_backward`` for an input with zeros: positions before the first zero
    of their slice take ``reversed_cumsum(out * grad) / input`` (masked to them); the first
    zero takes ``prod_{i<z1} x_i * sum_{z1<=j<z2} g_j prod_{z1<i<=j} x_i`` (``z2`` the second
    zero); everything after it gets 0."""
    n = input.shape[dim]
    is_zero = dispatch("eq", input, 0)
    count = dispatch("cumsum", is_zero, dim)
    before = dispatch("eq", count, 0)
    after = dispatch("logical_not", before)
    w = dispatch("masked_fill", dispatch("mul", out, grad), after, 0.0)
    # (the divisor is 1 where ``where`` drops the quotient, so no 0/0 reaches a double backward)
    head = dispatch("div", reversed_cumsum(w, dim), dispatch("masked_fill", input, after, 1.0))
    in_first = dispatch("eq", count, 1)
    first = dispatch("logical_and", is_zero, in_first)
    between = dispatch("logical_and", in_first, dispatch("logical_not", first))
    run = dispatch("cumprod", dispatch("masked_fill", input, dispatch("logical_not", between),
                                       1.0), dim)
    s = dispatch("sum", dispatch("mul", run, dispatch("masked_fill", grad, dispatch(
        "logical_not", in_first), 0.0)), dim, True)
    ones_shape = tuple(1 if i == dim else x for i, x in enumerate(input.shape))
    ones = dispatch("ones", ones_shape, dtype=out.dtype)
    prefix = dispatch("cat", [ones, dispatch("index", out, (slice(None),) * dim +
                                             (slice(0, n - 1),))], dim)
    at_first = dispatch("mul", s, prefix)
    return dispatch("where", before, head, dispatch("where", first, at_first, 0.0))


def _cumprod_backward_differentiable(grad, input, dim):
    """The cumprod gradient as a function that is right to differentiate again where the input
    has zeros (PyTorch switches formulas under ``create_graph`` too): ``sum_{j>=k} g_j
    prod_{i<=j, i!=k} x_i`` from an ``n x n`` expansion of exclusive products along ``dim``."""
    last = input.ndim - 1
    x = input if dim == last else dispatch("transpose", input, dim, -1)
    g = grad if dim == last else dispatch("transpose", grad, dim, -1)
    n = x.shape[-1]
    pos = dispatch("arange", n)
    col = dispatch("reshape", pos, (n, 1))
    rows = dispatch("where", dispatch("eq", col, pos), 1.0, dispatch("unsqueeze", x, -2))
    excl = dispatch("cumprod", rows, -1)                   # [..., k, j]: prod_{i<=j, i!=k}
    terms = dispatch("mul", dispatch("unsqueeze", g, -2), excl)
    out = dispatch("sum", dispatch("where", dispatch("ge", pos, col), terms, 0.0), -1)
    return out if dim == last else dispatch("transpose", out, dim, -1)


@register_op("cumprod")
class CumProd(_Scan):
    """``cumprod(input, dim, *, dtype=None)`` (``torch.cumprod``): running products along
    ``dim``; integer/bool inputs give int64. ``CumprodBackward0`` (PyTorch's
    ``cumprod_backward``: ``reversed_cumsum(result * grad) / input`` without zeros).

    Raises:
        IndexError: ``dim`` out of range.
    """

    _backward_name = "CumprodBackward0"
    _ufunc = np.multiply
    _op = "cumprod"

    @staticmethod
    def backward(ctx, grad):
        input, out = ctx.saved_tensors
        if grad.dtype is not input.dtype:
            grad = dispatch("_to_copy", grad, dtype=input.dtype)
        if input.numel() <= 1 or input.ndim == 0 or input.shape[ctx.dim] == 1:
            return grad
        if out.dtype is not input.dtype:
            out = dispatch("_to_copy", out, dtype=input.dtype)
        if not bool(dispatch("any", dispatch("eq", input, 0))):
            w = dispatch("mul", out, grad)
            return dispatch("div", reversed_cumsum(w, ctx.dim), input)
        if is_grad_enabled():
            return _cumprod_backward_differentiable(grad, input, ctx.dim)
        return _cumprod_zeros_backward(grad, input, out, ctx.dim)


# ------------------------------------------------------------------------------------ prod
def _prod_kernel(input, rt, axis, keepdim):
    """PyTorch's CPU prod: every partial product stored in the result dtype, in
    ``binary_kernel_reduce_vec``'s order (``numerics.vec_inner_reduce``) when the reduced
    elements are contiguous, else left to right per output."""
    a = _acc(input, rt)
    if rt.is_floating_point and rt is not _dt.float64:
        a = a.astype(np.float32)                # fp32 math, stored per step (16-bit: rounded)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else (axis,)
    if nd == 0:
        out = a.copy()
    elif not rt.is_floating_point:
        with np.errstate(over="ignore"):
            out = np.multiply.reduce(a, axis=axes, keepdims=keepdim)
    else:
        inner = all(a.shape[i] == 1 for i in range(max(axes) + 1, nd))
        kept = [i for i in range(nd) if i not in axes]
        size = lambda ds: int(np.prod([a.shape[i] for i in ds], dtype=np.int64))  # noqa: E731
        rows = np.transpose(a, kept + list(axes)).reshape((size(kept), size(axes)))
        if inner and rows.shape[1]:
            vals = _nx.vec_inner_reduce(rows, np.multiply, rt)
        else:
            vals = np.ones(rows.shape[0], rows.dtype)
            with np.errstate(all="ignore"):
                for k in range(rows.shape[1]):
                    vals = _round16(vals * rows[:, k], rt)
        shape = [1 if i in axes else s for i, s in enumerate(a.shape)] if keepdim else \
            [a.shape[i] for i in kept]
        out = vals.reshape(shape)
    return wrap(np.asarray(out), rt)


def _round16(x, rt):
    return _nx.round_to(x, rt) if rt in _LOW else x


def prod_safe_zeros_backward(grad, inp, dim):
    """PyTorch's ``prod_safe_zeros_backward``: ``grad`` times the product of all other
    elements along ``dim``, from exclusive cumulative products from both ends (no division)."""
    n = inp.shape[dim]
    if inp.numel() == 0:
        return dispatch("expand", grad, tuple(inp.shape))
    ones_shape = tuple(1 if i == dim else s for i, s in enumerate(inp.shape))
    ones = dispatch("ones", ones_shape, dtype=grad.dtype)
    head = dispatch("index", inp, (slice(None),) * dim + (slice(0, n - 1),))
    tail = dispatch("index", inp, (slice(None),) * dim + (slice(1, n),))
    normal = dispatch("cumprod", dispatch("cat", [ones, head], dim), dim)
    reverse = flip(dispatch("cumprod", dispatch("cat", [ones, flip(tail, dim)], dim), dim), dim)
    return dispatch("mul", grad, dispatch("mul", normal, reverse))


def _prod_saved(ctx, grad):
    """The saved (input, result), the input in the gradient's dtype (PyTorch's
    ``self.to(grad.scalar_type())``)."""
    input, result = ctx.saved_tensors
    if input.dtype is not grad.dtype:
        input = dispatch("_to_copy", input, dtype=grad.dtype)
    return input, result


class _Prod(Function):
    _backward_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, input, *, dtype=None):
        _check(input, "prod")
        rt = _result_dtype(input, dtype, "prod")
        res = _prod_kernel(input, rt, None, False)
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        input, result = _prod_saved(ctx, grad)
        if input.ndim == 0:
            return grad
        zeros = int(dispatch("count_nonzero", dispatch("eq", input, 0)))
        if zeros == 0:
            return dispatch("mul", grad, dispatch("div", result, input))
        if zeros > 1 and not is_grad_enabled():
            return dispatch("zeros_like", input)           # as PyTorch: every product has a 0
        flat = dispatch("reshape", input, (-1,))
        g = prod_safe_zeros_backward(grad, flat, 0)
        return dispatch("reshape", g, tuple(input.shape))


class _ProdDim(Function):
    _backward_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, input, dim, keepdim=False, *, dtype=None):
        _check(input, "prod")
        d = wrap_dim(dim, input.ndim)
        rt = _result_dtype(input, dtype, "prod")
        res = _prod_kernel(input, rt, d if input.ndim else None, keepdim and input.ndim > 0)
        ctx.dim, ctx.keepdim = d, keepdim
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        input, result = _prod_saved(ctx, grad)
        if input.ndim == 0:
            return grad
        if not ctx.keepdim:
            grad = dispatch("unsqueeze", grad, ctx.dim)
            result = dispatch("unsqueeze", result, ctx.dim)
        if not bool(dispatch("any", dispatch("eq", input, 0))):
            return dispatch("mul", grad, dispatch("div", result, input))
        return prod_safe_zeros_backward(grad, input, ctx.dim)      # any zero: every slice


@register_op("prod")
def prod(input, *, dtype=None):
    """``prod(input, *, dtype=None)`` (``torch.prod``): the product of all elements, 0-dim;
    integer/bool inputs give int64; empty gives 1. ``ProdBackward0`` (``grad * result /
    input``, or the zero-safe exclusive products where the input has a zero)."""
    if dtype is None:
        refuse_float8(input, "prod_out_cpu")
    return _Prod.apply(input, dtype=dtype)


@register_op("prod.dim_int")
def prod_dim(input, dim, keepdim=False, *, dtype=None):
    """``prod(input, dim, keepdim=False, *, dtype=None)`` (``torch.prod``, aten
    ``prod.dim_int``): products along one ``dim``. ``ProdBackward1``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    if dtype is None:
        refuse_float8(input, "prod_out_cpu")
    return _ProdDim.apply(input, dim, keepdim, dtype=dtype)
