"""Casts and copies: ``_to_copy`` (every dtype change, ``ToCopyBackward0``) and ``clone``.

Conversions follow PyTorch's CPU copy kernel: float64/int -> fp16/bf16 goes through float32
(c10::Half and c10::BFloat16 are constructed from float), float -> int truncates toward zero.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .factory import _convert


@register_op("_to_copy")
class ToCopy(Function):
    """``_to_copy(input, *, dtype)``: a new tensor of ``dtype``; gradient cast back."""

    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, input, *, dtype=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"_to_copy(): expected a Tensor, got {type(input).__name__}")
        dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
        ctx.src_dtype = input.dtype
        return Tensor._make(_convert(input._data, dt).copy() if dt is input.dtype
                            else _convert(input._data, dt), dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_to_copy", grad, dtype=ctx.src_dtype)


@register_op("clone")
class Clone(Function):
    """``clone(input)``: a copy with its own storage (``CloneBackward0``)."""

    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, input, *, memory_format=None):
        return Tensor._make(input._data.copy(), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad
