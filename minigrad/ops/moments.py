"""Moments: ``var``, ``std``, ``var_mean``, ``std_mean`` with Bessel's ``correction``.

Kernel as PyTorch's CPU one: the accumulation runs in float64 (ATen's CPU ``acc_type`` of float
is double: Welford over a dim, a two-pass ``sum((x - mean)**2)`` over all elements) and the result
is rounded once into float32; fp16/bf16 inputs are computed as float32 tensors and the float32
result rounded into 16 bits (PyTorch's ``std_var_out`` upcasts reduced floats, then copies back).
``correction >= N`` warns as PyTorch and gives ``inf`` (or ``nan`` for 0/0).

Backward formulas are PyTorch's ``var_backward`` / ``std_backward`` / ``var_mean_backward`` of
``tools/autograd/derivatives.yaml``, written as dispatched ops.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, wrap, wrap_dims


def _check(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")


def _reduced_count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


_WELFORD_MAX = 4096      # longer reductions take the two-pass sum (not PyTorch's order)


def welford(a, dims):
    """ATen's ``WelfordOps`` over ``dims`` of the float64 array ``a``, element by element in
    memory order (vectorised over the outputs): ``(mean, m2)`` with the reduced dims kept."""
    kept = [i for i in range(a.ndim) if i not in dims]
    t = np.transpose(a, kept + list(dims))
    rows = t.reshape(t.shape[:len(kept)] + (_reduced_count(a.shape, dims),))
    mean = np.zeros(rows.shape[:-1])
    m2 = np.zeros(rows.shape[:-1])
    for i in range(rows.shape[-1]):
        x = rows[..., i]
        delta = x - mean
        mean = mean + delta / float(i + 1)
        m2 = m2 + delta * (x - mean)
    shape = [1 if i in dims else s for i, s in enumerate(a.shape)]
    return mean.reshape(shape), m2.reshape(shape)


def moments_kernel(input, dim, correction, keepdim, op, take_sqrt):
    """``(var or std, mean)`` of ``input`` over ``dim`` as float64 arrays (not yet rounded).

    Warns (UserWarning) when ``N - correction <= 0``, with PyTorch's message.
    """
    nd = input.ndim
    dims = wrap_dims(dim, nd)
    dims = dims if nd else ()
    full = dim is None or len(dims) == nd
    n = _reduced_count(input.shape, dims)
    c = 1.0 if correction is None else float(correction)
    dof = n - c
    if dof <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    a = np.asarray(input._data, np.float64)
    axes = dims if nd else None
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = np.mean(a, axis=axes, keepdims=True) if a.size else \
            np.full([1 if i in dims else s for i, s in enumerate(a.shape)], np.nan)
        if full and input.dtype is not _dt.float64 and a.size and op in ("var", "std"):
            # std_var_all_cpu: the mean is self.mean() in float32, then a float64 sum
            mean = mean.astype(np.float32).astype(np.float64)
        if (not full or op.endswith("_mean")) and 0 < n <= _WELFORD_MAX:
            mean, ss = welford(a, dims)
        else:
            ss = np.add.reduce((a - mean) ** 2, axis=axes, keepdims=True)
        var = ss / max(0.0, dof) if dof > 0 else ss / 0.0
        out = np.sqrt(var) if take_sqrt else var
    if not keepdim or not nd:
        out = out.reshape([s for i, s in enumerate(a.shape) if i not in dims])
        mean = mean.reshape(out.shape)
    return out, mean, dims, n, c


def _round(arr, dtype):
    """float64 -> float32 once; 16-bit dtypes then round that float32 once more (as PyTorch)."""
    if dtype in _LOW:
        arr = np.asarray(arr).astype(np.float32)
    return wrap(np.asarray(arr), dtype)


def var_backward(grad, self, dims, n, correction, keepdim, full=False):
    """PyTorch's ``var_backward``: ``(2 / (N - correction)) * grad * (self - self.mean(dim))``;
    over all elements (``full``) with ``N - correction <= 0``: ``grad * (nan where self ==
    mean, else inf)``."""
    dof = n - correction
    if (full or not self.ndim) and dof <= 0:
        same = dispatch("eq", self, dispatch("mean", self))
        return dispatch("mul", grad, dispatch("where", same, math.nan, math.inf))
    if self.ndim and not keepdim:
        for d in dims:
            grad = dispatch("unsqueeze", grad, d)
    scale = 2.0 / dof if dof != 0 else math.inf
    centred = dispatch("sub", self, dispatch("mean", self, dims if self.ndim else None,
                                             bool(self.ndim)))
    return dispatch("mul", dispatch("mul", grad, scale), centred)


def std_backward(result, grad, self, dims, n, correction, keepdim, full=False):
    """PyTorch's ``std_backward``: ``var_backward(grad / (2 * result))``, 0 where result == 0."""
    g = dispatch("masked_fill", dispatch("div", grad, dispatch("mul", result, 2)),
                 dispatch("eq", result, 0), 0)
    return var_backward(g, self, dims, n, correction, keepdim, full)


def mean_backward(grad, self, dims, n, keepdim):
    """PyTorch's ``mean_backward``: ``grad`` expanded back to ``self``'s shape, over ``N``."""
    if self.ndim and not keepdim:
        kshape = tuple(1 if i in dims else s for i, s in enumerate(self.shape))
        grad = dispatch("reshape", grad, kshape)
    return dispatch("div", dispatch("expand", grad, tuple(self.shape)), n)


class _Moment(Function):
    _take_sqrt = False
    _op = "var"

    @classmethod
    def _run(cls, ctx, input, dim, correction, keepdim):
        """The kernel, rounded, with what the backward formulas need saved: (result, mean)."""
        _check(input, cls._op)
        out, mean, dims, n, c = moments_kernel(input, dim, correction, keepdim, cls._op,
                                               cls._take_sqrt)
        res = _round(out, input.dtype)
        ctx.dims, ctx.n, ctx.c, ctx.keepdim, ctx.full = dims, n, c, keepdim, dim is None
        ctx.save_for_backward(input, res if cls._take_sqrt else None)
        return res, mean

    @classmethod
    def forward(cls, ctx, input, dim=None, *, correction=None, keepdim=False):
        return cls._run(ctx, input, dim, correction, keepdim)[0]


@register_op("var")
class Var(_Moment):
    """``var(input, dim=None, *, correction=1, keepdim=False)`` (``torch.var``): the variance
    ``sum((x - mean)**2) / (N - correction)`` over ``dim`` (None: all dims), input's dtype.
    ``VarBackward0``. The legacy ``unbiased`` argument is mapped to ``correction`` by
    ``minigrad.var``.

    Raises:
        RuntimeError: a non-floating input ("std and var only support floating point and
            complex dtypes"). IndexError: a dim out of range.
    Warns:
        UserWarning: ``N - correction <= 0`` (the result is inf or nan), as PyTorch.
    """

    _backward_name = "VarBackward0"

    @staticmethod
    def backward(ctx, grad):
        input, _ = ctx.saved_tensors
        return var_backward(grad, input, ctx.dims, ctx.n, ctx.c, ctx.keepdim, ctx.full)


@register_op("std")
class Std(_Moment):
    """``std(input, dim=None, *, correction=1, keepdim=False)`` (``torch.std``): the square root
    of ``var`` (taken in float64 before the rounding). ``StdBackward0``; errors as ``var``."""

    _backward_name = "StdBackward0"
    _take_sqrt = True
    _op = "std"

    @staticmethod
    def backward(ctx, grad):
        input, res = ctx.saved_tensors
        return std_backward(res, grad, input, ctx.dims, ctx.n, ctx.c, ctx.keepdim, ctx.full)


class _MomentMean(_Moment):
    _op = "var_mean"

    @classmethod
    def forward(cls, ctx, input, dim=None, *, correction=None, keepdim=False):
        res, mean = cls._run(ctx, input, dim, correction, keepdim)
        m = _round(mean, input.dtype)
        ctx.set_materialize_grads(False)
        return res, m

    @classmethod
    def backward(cls, ctx, gout, gmean):
        input, res = ctx.saved_tensors
        g = None
        if gout is not None:
            args = (input, ctx.dims, ctx.n, ctx.c, ctx.keepdim, ctx.full)
            g = std_backward(res, gout, *args) if cls._take_sqrt else var_backward(gout, *args)
        if gmean is not None:
            aux = mean_backward(gmean, input, ctx.dims, ctx.n, ctx.keepdim)
            g = aux if g is None else dispatch("add", g, aux)
        return g


@register_op("var_mean")
class VarMean(_MomentMean):
    """``var_mean(input, dim=None, *, correction=1, keepdim=False)`` -> ``(var, mean)`` (a
    plain tuple, as ``torch.var_mean``); ``VarMeanBackward0``; errors as ``var``."""

    _backward_name = "VarMeanBackward0"


@register_op("std_mean")
class StdMean(_MomentMean):
    """``std_mean(input, dim=None, *, correction=1, keepdim=False)`` -> ``(std, mean)``
    (``torch.std_mean``); ``StdMeanBackward0``; errors as ``var``."""

    _backward_name = "StdMeanBackward0"
    _take_sqrt = True
    _op = "std_mean"
