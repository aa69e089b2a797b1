"""Reductions: sum, sum_to_size (and later mean, max/amax/argmax...).

16-bit inputs accumulate in fp32 and round each output once. Deliberate difference: PyTorch's
multithreaded full reductions round each thread's partial sum to 16 bits before combining, so its
results depend on the thread count; we round once (within 1 ULP of the 16-bit format; stated in
the op specs).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap, wrap_dims


def _sum_dtype(input, dtype):
    if dtype is not None:
        return _dt.as_dtype(dtype)
    d = input.dtype
    return _dt.int64 if not d.is_floating_point else d


def _expand_back(grad, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back to ``in_shape``."""
    if not keepdim:
        kshape = tuple(1 if i in dims else s for i, s in enumerate(in_shape))
        grad = dispatch("reshape", grad, kshape)
    return dispatch("expand", grad, tuple(in_shape))


@register_op("sum")
class Sum(Function):
    """``sum(input, dim=None, keepdim=False, *, dtype=None)`` (``torch.sum``).

    Integer and bool inputs sum to int64; ``dtype`` casts the input first.
    """

    _backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input, dim=None, keepdim=False, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"sum(): argument 'input' must be Tensor, not {type(input).__name__}")
        rt = _sum_dtype(input, dtype)
        dims = wrap_dims(dim, input.ndim)
        a = opmath(input, rt)
        axes = dims if input.ndim else None
        ctx.in_shape, ctx.dims, ctx.keepdim = input.shape, dims, keepdim
        out = np.sum(a, axis=axes, keepdims=keepdim if input.ndim else False)
        return wrap(out, rt)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.in_shape, ctx.dims, ctx.keepdim)


@register_op("sum_to_size")
class SumToSize(Function):
    """``sum_to_size(input, size)``: sum the broadcast dims away so the result has ``size``
    (``Tensor.sum_to_size``); the engine uses it to reduce broadcast gradients.

    Raises:
        RuntimeError: when ``input`` is not expandable from ``size``.
    """

    _backward_name = "SumToSizeBackward0"

    @staticmethod
    def forward(ctx, input, size):
        size = tuple(size)
        shape = input.shape
        lead = len(shape) - len(size)
        if lead < 0 or any(s != 1 and s != t for s, t in zip(size, shape[lead:])):
            raise RuntimeError(f"size {list(size)} is not expandable to size {list(shape)}.")
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                          if s == 1 and shape[lead + i] != 1)
        ctx.in_shape = shape
        if not axes:
            return Tensor._make(input._data.copy(), input.dtype)
        a = opmath(input, input.dtype)
        out = np.sum(a, axis=axes, keepdims=True)
        if lead:
            out = out.reshape(size)
        return wrap(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("expand", grad, tuple(ctx.in_shape))
