"""``logsumexp``: ``log(sum(exp(x)))`` over dims, stabilised by the maximum.

PyTorch's kernel is a composite of whole-tensor ops, each rounding into the input's dtype:
``m = amax(x, dim, keepdim=True)`` (0 where it is infinite), ``round(x - m)``,
``round(exp(.))``, ``round(sum(.))`` (fp32 accumulation for fp16/bf16), ``round(log(.))``,
``round(. + m)``. The forward replays exactly that sequence (``numerics.round_to`` at each
step), so fp16/bf16 results match PyTorch's bits wherever its vectorised ``exp``/``log`` are
correctly rounded. Integer and bool inputs are first converted to the default float dtype.

Backward (``LogsumexpBackward0``): PyTorch's ``logsumexp_backward``, ``grad * exp(self -
result)``, as dispatched ops.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, opmath, wrap, wrap_dims


def _rounder(dtype):
    """Round an opmath array into ``dtype`` and back (identity for fp32/fp64)."""
    if dtype in _LOW:
        return lambda x: np.asarray(x, np.float32).astype(dtype.np).astype(np.float32)
    return lambda x: x


@register_op("logsumexp")
class LogSumExp(Function):
    """``logsumexp(input, dim, keepdim=False)`` (``torch.logsumexp``): ``dim`` an int or a
    tuple of ints; the result has the input's floating dtype (the default float dtype for
    integer/bool inputs). An empty reduction gives ``-inf``.

    Raises:
        IndexError: a dim out of range. RuntimeError: a repeated dim.
    """

    _backward_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim=False):
        if not isinstance(input, Tensor):
            raise TypeError(f"logsumexp(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        rt = input.dtype if input.dtype.is_floating_point else _dt.get_default_dtype()
        dims = wrap_dims(dim, input.ndim)
        axes = dims if input.ndim else None
        kd = keepdim if input.ndim else False
        r = _rounder(rt)
        a = opmath(input, rt)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if a.size:
                m = np.max(a, axis=axes, keepdims=True)
                m = np.where(np.isinf(m), a.dtype.type(0), m)
                s = r(np.add.reduce(r(np.exp(r(a - m))), axis=axes, keepdims=kd))
                ms = m if kd else m.reshape(s.shape)
                out = r(r(np.log(s)) + ms)
            else:
                out = np.log(np.add.reduce(np.exp(a), axis=axes, keepdims=kd))
        res = wrap(out, rt)
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(input, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        input, result = ctx.saved_tensors
        if not ctx.keepdim and input.ndim:
            for d in ctx.dims:
                grad = dispatch("unsqueeze", grad, d)
                result = dispatch("unsqueeze", result, d)
        return dispatch("mul", grad, dispatch("exp", dispatch("sub", input, result)))
