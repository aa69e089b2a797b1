"""Casts, moves and copies: ``_to_copy`` (every dtype or device change, ``ToCopyBackward0``) and
``clone``.

A move between cpu and the emulated cuda device copies the array (both live in host memory) and
labels the copy with its device; its backward moves the gradient back (see ``minigrad.devices``).

Conversions follow PyTorch's CPU copy kernel: float64/int -> fp16/bf16 goes through float32
(c10::Half and c10::BFloat16 are constructed from float), float -> int truncates toward zero.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import devices as _devices
from .. import memory_layout as _mf
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .. import _widening
from .._fp16 import MIN_SIZE as _F16_MIN, float32_to_float16_widened
from .factory import _convert

_F32 = np.dtype(np.float32)


@register_op("_to_copy")
class ToCopy(Function):
    """``_to_copy(input, *, dtype=None, device=None, non_blocking=False)``: a new tensor of
    ``dtype`` on ``device`` (each defaulting to ``input``'s); the gradient is cast and moved back.

    Raises:
        TypeError: ``input`` not a Tensor. The errors of ``minigrad.device`` for ``device``.
    """

    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, input, *, dtype=None, device=None, non_blocking=False, layout=None,
                pin_memory=None, memory_format=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"_to_copy(): expected a Tensor, got {type(input).__name__}")
        dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
        dev = input._device if device is None else _devices.as_device(device)
        ctx.src_dtype = input.dtype
        ctx.src_device = input._device
        src, wide = input._data, None
        if dt is input.dtype:
            arr = src.copy()
        elif dt is _dt.float16 and src.dtype == _F32 and src.size >= _F16_MIN:
            # the rounding also gives the result's fp32 image (one more pass), kept for the
            # matmul that reads it next (minigrad/_widening.py): the same bits as widening it
            arr, wide = float32_to_float16_widened(src)
        elif dt is _dt.float32 and input.dtype is _dt.float16 and src.size >= _F16_MIN:
            arr = _widened_copy(input)
        else:
            arr = _convert(src, dt)
        if memory_format is not None and memory_format is not _mf.preserve_format:
            arr = _laid_out(arr, src, memory_format)
            wide = None
        out = Tensor._make(arr, dt)
        if wide is not None:
            _widening.put(out, wide)
        if dev is not _devices.CPU:
            out._device = dev
            _devices.state.cuda_seen = True
            _devices.track_storage(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        if grad._device is not ctx.src_device:
            return dispatch("_to_copy", grad, dtype=ctx.src_dtype, device=ctx.src_device)
        return dispatch("_to_copy", grad, dtype=ctx.src_dtype)


def _widened_copy(t):
    """fp16 tensor ``t`` widened to a new float32 array that owns its memory, in the layout
    ``_convert`` gives (bit-identical to it): the widening cache's image when it has one
    (handed over, or copied: ``_widening.take``), else ``_convert``'s widening."""
    w = _widening.take(t)
    return _convert(t._data, _dt.float32) if w is None else w


def _laid_out(arr, like, memory_format):
    """``arr``'s values in the layout ``memory_format`` gives a copy of ``like``
    (``minigrad.memory_format.layout_like``; None is ``preserve_format``)."""
    out = _mf.layout_like(like, arr.dtype,
                          _mf.preserve_format if memory_format is None else memory_format)
    np.copyto(out, arr)
    return out


@register_op("clone")
class Clone(Function):
    """``clone(input, *, memory_format=preserve_format)``: a copy with its own storage
    (``CloneBackward0``), laid out as ``memory_format`` says (``preserve_format``: the input's
    strides when it is dense, as PyTorch's ``empty_like``).

    Raises:
        RuntimeError: a channels-last format for a tensor of another rank ("required rank 4
            tensor to use channels_last format").
    """

    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, input, *, memory_format=None):
        a = input._data
        if a.flags.c_contiguous and (memory_format is None or
                                     memory_format is _mf.preserve_format or
                                     memory_format is _mf.contiguous_format):
            return Tensor._make(a.copy(), input.dtype)      # the common case: row-major
        return Tensor._make(_laid_out(a, a, memory_format), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad
