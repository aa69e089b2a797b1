"""``linalg_vector_norm``: the p-norm of a whole tensor (``torch.linalg.vector_norm`` with
``dim=None``), forward and backward.

Kernel as PyTorch's CPU one: ``sum |x|^p`` accumulated in opmath (fp32 for fp16/bf16/fp32,
fp64 for fp64), so the sum over- and underflows where PyTorch's does; a one-element tensor
gives ``|x|`` exactly; ``inf``/``-inf`` are max/min of ``|x|``; ``0`` counts non-zeros. The sum
itself is taken in float64 and then rounded to the accumulation dtype (results can differ from
PyTorch's by about one ulp: summation order). One rounding into the result dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap

_INF = float("inf")


def norm_kernel(a, p, dtype, what="linalg.vector_norm"):
    """The p-norm of the float64 array ``a`` as PyTorch's kernel for ``dtype`` computes it;
    returns a float64 scalar (not yet rounded into ``dtype``).

    Raises:
        RuntimeError: ``inf``/``-inf`` norm of an empty tensor (no identity), as PyTorch.
    """
    if a.size == 0 and p in (_INF, -_INF):
        raise RuntimeError(f"{what} cannot compute the {'inf' if p > 0 else '-inf'} norm on an "
                           "empty tensor because the operation does not have an identity")
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        x = np.abs(a.reshape(-1))
        if p == 0:
            return np.float64(np.count_nonzero(x))
        if p == _INF:
            return np.maximum.reduce(x)
        if p == -_INF:
            return np.minimum.reduce(x)
        if x.size == 1:
            return x[0]
        acc = _dt.opmath_dtype(dtype).np
        s = np.add.reduce(x if p == 1 else x * x if p == 2 else x ** p)
        s = np.float64(np.asarray(s).astype(acc))       # over/underflow like the kernel
        return s if p == 1 else np.sqrt(s) if p == 2 else s ** (1.0 / p)


@register_op("linalg_vector_norm")
class VectorNorm(Function):
    """``linalg_vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None)``: the
    ``ord``-norm of all elements (``torch.linalg.vector_norm``), a 0-dim tensor of the input's
    (or ``dtype``'s) floating dtype.

    Raises:
        RuntimeError: a non-floating input ("linalg.vector_norm: Expected a floating point or
            complex tensor as input. Got Long"); ``dim`` other than None/() (not supported:
            a deliberate limit); inf norm of an empty tensor.
    """

    _backward_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, input, ord=2, dim=None, keepdim=False, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"linalg_vector_norm(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
        if dim not in (None, ()):
            raise NotImplementedError("minigrad's linalg_vector_norm reduces all dimensions "
                                      "(dim=None) only")
        dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
        if not input.dtype.is_floating_point or not dt.is_floating_point:
            name = input.dtype.scalar_name
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex "
                               f"tensor as input. Got {name}")
        p = float(ord)
        src = input._data if dtype is None else input._data.astype(dt.np)
        res = norm_kernel(np.asarray(src, dtype=np.float64), p, dt)
        out = wrap(np.asarray(res, dtype=np.float64), dt)
        if keepdim:
            out = Tensor._make(out._data.reshape((1,) * input.ndim), dt)
        ctx.p, ctx.in_dtype = p, input.dtype
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, norm = ctx.saved_tensors
        p = ctx.p
        if x.dtype is not norm.dtype:
            x = dispatch("_to_copy", x, dtype=norm.dtype)
        if p == 0:
            return dispatch("zeros_like", x)
        sgn = dispatch("sign", x)
        if p == 1:
            return dispatch("mul", sgn, grad)
        ax = dispatch("abs", x)
        if p in (_INF, -_INF):
            # PyTorch's mask: the elements equal to the norm, or NaN (whose sign() is 0)
            hit = dispatch("logical_or", dispatch("eq", ax, norm), dispatch("isnan", ax))
            hit = dispatch("_to_copy", hit, dtype=x.dtype)
            share = dispatch("div", hit, dispatch("sum", hit))      # ties share evenly
            return dispatch("mul", dispatch("mul", sgn, share), grad)
        zero = dispatch("eq", norm, 0.0)
        if p == 2:
            scale = dispatch("masked_fill", dispatch("div", grad, norm), zero, 0.0)
            return dispatch("mul", x, scale)
        num = dispatch("mul", sgn, dispatch("pow", ax, p - 1))
        if p < 1:      # 0 * 0**(p-1) = 0 * inf: PyTorch's gradient there is 0
            num = dispatch("masked_fill", num, dispatch("eq", ax, 0.0), 0.0)
        scale = dispatch("masked_fill", dispatch("div", grad, dispatch("pow", norm, p - 1)),
                         zero, 0.0)
        return dispatch("mul", num, scale)
