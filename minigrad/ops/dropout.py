"""Dropout: ``dropout``, ``feature_dropout`` (channel masks), ``alpha_dropout``,
``feature_alpha_dropout`` and their in-place forms, as PyTorch's ATen composites; and the fused
``native_dropout`` / ``native_dropout_backward`` kernels.

On CPU, PyTorch 2.13's ``aten::dropout`` is a composite (what a ``TorchDispatchMode`` sees):

    noise = empty_like(input).bernoulli_(1 - p)     # feature: new_empty((N, C, 1, ...))
    noise.div_(1 - p)                               # the mask holds 0 or round(1 / (1 - p))
    return input * noise                            # (mul_ when in place); MulBackward0

so a 16-bit mask value is ``1/(1-p)`` rounded to the input's dtype and the output is one more
rounded multiply: we dispatch the same ops, so the numerics are PyTorch's by construction.
``p == 1`` multiplies by zeros; ``p == 0`` or ``train=False`` returns ``input`` itself. Alpha
dropout (SELU networks) keeps mean and variance:

    a = 1 / sqrt((alpha^2 p + 1)(1 - p)),  b = (noise - 1) * (alpha' a) + alpha' a p
    return input * (noise * a) + b          (alpha' = 1.7580993408473766, noise in {0, 1})

On CUDA PyTorch calls the fused ``native_dropout`` instead (0 < p < 1, training, non-empty):
``out = input * mask * (1 / (1 - p))`` in opmath, one rounding, a bool mask, node
``NativeDropoutBackward0`` whose backward is ``native_dropout_backward(grad, mask, scale)``. The
emulated cuda device does the same.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..random import _gen
from . import _distributions as D
from ..tensor import Tensor
from ._util import opmath, wrap

_ALPHA = 1.7580993408473766     # SELU's alpha * scale, as ATen's alpha_dropout


def _check_p(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, feature):
    """The mask tensor's shell: ``input``'s shape, or (N, C, 1, ...) for feature dropout."""
    if not feature:
        noise = dispatch("empty_like", input)
        a = input._data
        if a.ndim > 1 and D.permuted(a):
            # PyTorch's empty_like keeps the input's dim order, and bernoulli_ then fills it in
            # memory order: the mask of a transposed input (MultiheadAttention's batch_first
            # output) holds PyTorch's numbers in PyTorch's places
            noise._data = D.strided_like(a, noise._data.dtype)
        return noise
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return dispatch("empty", shape, dtype=input.dtype, device=input.device)


def _dropout_impl(input, p, train, *, feature, alpha, inplace, generator=None):
    """ATen's ``_dropout_impl``: see the module docstring."""
    if not isinstance(input, Tensor):
        raise TypeError(f"dropout(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    mul = "mul_" if inplace else "mul"
    if p == 1:
        zero = dispatch("zeros", (), dtype=input.dtype, device=input.device)
        return dispatch(mul, input, zero)
    if not feature and not alpha and input.device.type == "cuda" and not inplace:
        return dispatch("native_dropout", input, p, train, generator=generator)[0]
    noise = _noise(input, feature)
    dispatch("bernoulli_.float", noise, 1 - p, generator=generator)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = dispatch("add", noise, -1)
        dispatch("mul_", b, _ALPHA * a)
        dispatch("add_", b, _ALPHA * a * p)
        dispatch("mul_", noise, a)
        return dispatch("add_", dispatch(mul, input, noise), b)
    dispatch("div_", noise, 1 - p)
    return dispatch(mul, input, noise)


def _composite(name, feature, alpha, inplace):
    def op(input, p, train, *, generator=None):
        return _dropout_impl(input, p, train, feature=feature, alpha=alpha, inplace=inplace,
                             generator=generator)
    kind = ("feature " if feature else "") + ("alpha " if alpha else "") + "dropout"
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``{name}(input, p, train, *, generator=None)``: {kind}"
                  f"{' in place' if inplace else ''}, ATen's composite (see "
                  "``minigrad/ops/dropout.py``); returns ``input`` itself when ``p == 0`` or not "
                  "training.\n\n    Raises:\n        ValueError: ``p`` outside [0, 1] (\"dropout "
                  "probability has to be between 0 and 1, but got 1.5\").\n"
                  + ("        RuntimeError: an input with fewer than 2 dims (\"Feature dropout "
                     "requires at least 2 dimensions in the input\").\n" if feature else ""))
    return register_op(name, op)


for _name, _feature, _alpha in (("dropout", False, False), ("feature_dropout", True, False),
                                ("alpha_dropout", False, True),
                                ("feature_alpha_dropout", True, True)):
    _composite(_name, _feature, _alpha, False)
    _composite(_name + "_", _feature, _alpha, True)


# ------------------------------------------------------------------------------ the fused kernel
@register_op("native_dropout")
class NativeDropout(Function):
    """``native_dropout(input, p, train)`` -> ``(output, mask)``: PyTorch's fused kernel (used
    on CUDA): ``mask`` a bool tensor of keep draws (probability ``1 - p``), ``output = input *
    mask * (1 / (1 - p))`` in opmath with one rounding; ``train=False`` returns a copy and an
    all-True mask. Node ``NativeDropoutBackward0``.
    """

    _backward_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, input, p, train, *, generator=None):
        _check_p(p)
        dt = input.dtype
        if not train:
            mask = np.ones(input.shape, dtype=bool)
            scale = 1.0
        else:
            # the CPU kernel: mask.bernoulli_(1 - p), keep with probability 1 - p
            mask = D.bernoulli_scalar(_gen(generator), input.numel(), 1 - p).reshape(input.shape)
            if D.permuted(input._data):       # the mask is empty_like(input): input's layout
                mask = D.memory_order(mask, input._data)
            scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        ctx.scale = scale
        m = Tensor._make(mask, _dt.bool_)
        ctx.save_for_backward(m)
        ctx.mark_non_differentiable(m)
        x = opmath(input, dt)
        out = wrap(x * mask * dt.opmath.np.type(scale), dt)
        return out, m

    @staticmethod
    def backward(ctx, grad, grad_mask=None):
        mask, = ctx.saved_tensors
        return dispatch("native_dropout_backward", grad, mask, ctx.scale), None, None


@register_op("native_dropout_backward")
class NativeDropoutBackward(Function):
    """``native_dropout_backward(grad_output, mask, scale)`` = ``grad_output * mask * scale``
    in opmath, one rounding (node ``NativeDropoutBackwardBackward0``: the same op again)."""

    _backward_name = "NativeDropoutBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, mask, scale):
        ctx.scale = scale
        ctx.save_for_backward(mask)
        dt = grad_output.dtype
        return wrap(opmath(grad_output, dt) * mask._data * dt.opmath.np.type(scale), dt)

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        return dispatch("native_dropout_backward", grad, mask, ctx.scale), None, None
