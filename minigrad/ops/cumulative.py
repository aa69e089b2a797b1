"""Running extrema and running log-sum-exp: ``cummax``, ``cummin``, ``logcumsumexp``.

As PyTorch's CPU kernels (``ReduceOpsKernel.cpp``), each walks the dim left to right:

- ``cummax``/``cummin`` keep the running value and its index, updating when ``x >= best``
  (``<=`` for ``cummin``: a tie moves the index to the later element) or when ``x`` is NaN (a
  NaN then stays, with the index of the latest NaN). Exact in every dtype.
- ``logcumsumexp`` accumulates ``log1p(exp(min - max)) + max`` in ATen's CPU ``acc_type``
  (double for float32/float64, float32 for 16-bit) and rounds each output once. For 16-bit the
  float32 ``exp``/``log1p`` are glibc's (correctly rounded in practice): here each is evaluated
  in float64 and rounded to float32, the same values.

Backward formulas are PyTorch's: ``cummaxmin_backward`` (the gradient scatter-added to the
indices) and ``logcumsumexp_backward`` (positive and negative parts of the gradient through
reversed ``logcumsumexp`` in log space, which never overflows).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, wrap, wrap_dim
from .reduce import _Ret


class cummax_ret(_Ret):
    __slots__ = ()
    _name = "cummax"


class cummin_ret(_Ret):
    __slots__ = ()
    _name = "cummin"


def _c(a):
    """``a`` C-ordered (0-dim kept 0-dim, unlike ``np.ascontiguousarray``)."""
    return np.array(a, order="C", copy=not a.flags.c_contiguous)


def _check(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _cmp_array(input):
    """Storage as an array NumPy compares exactly (bf16 -> fp32, bool -> uint8)."""
    d = input._data
    if input.dtype is _dt.bfloat16:
        return d.astype(np.float32)
    return d.astype(np.uint8) if d.dtype == np.bool_ else d


class _CumMax(Function):
    _backward_name = "CummaxBackward0"
    _better = staticmethod(np.greater_equal)
    _ret = cummax_ret
    _op = "cummax"

    @classmethod
    def forward(cls, ctx, input, dim):
        _check(input, cls._op)
        if input.dtype.is_float8:
            raise NotImplementedError(f'"{cls._op}_cpu" not implemented for '
                                      f'\'{input.dtype.scalar_name}\'')
        d = wrap_dim(dim, input.ndim)
        a = _cmp_array(input)
        if input.ndim == 0 or a.size == 0:
            vals, idx = input._data.copy(), np.zeros(a.shape, np.int64)
        else:
            x = np.moveaxis(a, d, 0)
            best, bi = x[0].copy(), np.zeros(x.shape[1:], np.int64)
            vout, iout = np.empty_like(x), np.empty(x.shape, np.int64)
            vout[0], iout[0] = best, 0
            isnan = np.isnan if x.dtype.kind == "f" else (lambda v: np.zeros(v.shape, bool))
            for k in range(1, x.shape[0]):
                take = isnan(x[k]) | (~isnan(best) & cls._better(x[k], best))
                best = np.where(take, x[k], best)
                bi = np.where(take, k, bi)
                vout[k], iout[k] = best, bi
            idx = np.moveaxis(iout, 0, d)
            vals = np.take_along_axis(input._data, idx, axis=d)
        ind = Tensor._make(_c(idx), _dt.int64)
        ctx.mark_non_differentiable(ind)
        ctx.dim = d
        ctx.save_for_backward(input, ind)
        return cls._ret(Tensor._make(_c(vals), input.dtype), ind)

    @staticmethod
    def backward(ctx, grad, grad_idx=None):
        input, ind = ctx.saved_tensors
        if input.numel() == 0 or input.ndim == 0:
            return grad
        zeros = dispatch("zeros_like", input, dtype=grad.dtype)
        return dispatch("scatter_add", zeros, ctx.dim, ind, grad)


class _CumMin(_CumMax):
    _backward_name = "CumminBackward0"
    _better = staticmethod(np.less_equal)
    _ret = cummin_ret
    _op = "cummin"


@register_op("cummax")
def cummax(input, dim):
    """``cummax(input, dim)`` -> ``(values, indices)`` (``torch.cummax``): the running maximum
    along ``dim`` and the index where it was reached (a tie takes the later index; NaN
    propagates). Any dtype but float8. ``CummaxBackward0``: the gradient scatter-added to the
    indices.

    Raises:
        IndexError: ``dim`` out of range.
    """
    out = _CumMax.apply(input, dim)
    return cummax_ret(out[0], out[1])


@register_op("cummin")
def cummin(input, dim):
    """``cummin(input, dim)`` -> ``(values, indices)`` (``torch.cummin``): as ``cummax`` with
    the running minimum. ``CumminBackward0``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    out = _CumMin.apply(input, dim)
    return cummin_ret(out[0], out[1])


# ------------------------------------------------------------------------------ logcumsumexp
def _f32(fn, x):
    """A float32 libm function as glibc's (correctly rounded): evaluated in float64, rounded."""
    return fn(x.astype(np.float64)).astype(np.float32)


def _log_add_exp(x, y, low):
    """ATen's ``_log_add_exp_helper(x, y)`` elementwise: ``log1p(exp(min - max)) + max``, or
    ``x`` where both are the same infinity; NaN propagates. ``low``: the float32 recipe."""
    ynan = np.isnan(y)
    mn = np.where(ynan, y, np.minimum(x, y))
    mx = np.where(ynan, y, np.maximum(x, y))
    xnan = np.isnan(x)
    mn = np.where(xnan, x, mn)
    mx = np.where(xnan, x, mx)
    if low:
        r = _f32(np.log1p, _f32(np.exp, (mn - mx).astype(np.float32))) + mx
    else:
        r = np.log1p(np.exp(mn - mx)) + mx
    same_inf = (mn == mx) & ~np.isfinite(mn)
    return np.where(same_inf, x, r)


@register_op("logcumsumexp")
class LogCumSumExp(Function):
    """``logcumsumexp(input, dim)`` (``torch.logcumsumexp``): ``log(cumsum(exp(input), dim))``
    without overflow, as PyTorch's CPU kernel (see the module docstring). Floating dtypes only.
    ``LogcumsumexpBackward0``: PyTorch's ``logcumsumexp_backward``.

    Raises:
        NotImplementedError: integer or bool input ('"logcumsumexp_out_cpu" not implemented
            for 'Long''). IndexError: ``dim`` out of range.
    """

    _backward_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, input, dim):
        _check(input, "logcumsumexp")
        dt = input.dtype
        if not dt.is_floating_point or dt.is_float8:
            raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                      f'\'{dt.scalar_name}\'')
        d = wrap_dim(dim, input.ndim)
        low = dt in _LOW
        a = input._data.astype(np.float32 if low else np.float64)
        if input.ndim == 0 or a.size == 0:
            out = a.copy()
        else:
            x = np.moveaxis(a, d, 0)
            res = np.empty_like(x)
            cum = np.full(x.shape[1:], -np.inf, x.dtype)
            with np.errstate(all="ignore"):
                for k in range(x.shape[0]):
                    cum = _log_add_exp(x[k], cum, low)
                    res[k] = cum
            out = np.moveaxis(res, 0, d)
        r = wrap(_c(out), dt)
        ctx.dim = d
        ctx.save_for_backward(input, r)
        return r

    @staticmethod
    def backward(ctx, grad):
        input, result = ctx.saved_tensors
        if grad.ndim == 0 or grad.numel() == 0:
            return grad
        d = ctx.dim
        lowest = float(_dt.finfo(grad.dtype).min)

        def rev_lcse(x):
            return dispatch("flip", dispatch("logcumsumexp", dispatch("flip", x, (d,)), d), (d,))

        log_abs = dispatch("log", dispatch("abs", grad))
        pos = dispatch("where", dispatch("gt", grad, 0), log_abs, lowest)
        neg = dispatch("where", dispatch("lt", grad, 0), log_abs, lowest)
        out_pos = dispatch("exp", dispatch("add", rev_lcse(dispatch("sub", pos, result)), input))
        out_neg = dispatch("exp", dispatch("add", rev_lcse(dispatch("sub", neg, result)), input))
        return dispatch("sub", out_pos, out_neg)

