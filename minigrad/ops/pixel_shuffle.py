"""``pixel_shuffle`` and ``pixel_unshuffle``: moving channel blocks into space and back.

``pixel_shuffle(x, r)``: (*, C * r * r, H, W) -> (*, C, H * r, W * r), output
``[c, h * r + i, w * r + j] = x[c * r * r + i * r + j, h, w]``; ``pixel_unshuffle`` is its
inverse. Each is the other's gradient (PyTorch's ``PixelShuffleBackward0`` dispatches
``pixel_unshuffle``), exact in every dtype.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor


def _check(input, factor, op, arg):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input "
                           f"with {input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{op} expects a positive {arg}, but got {factor}")


@register_op("pixel_shuffle")
class PixelShuffle(Function):
    """``pixel_shuffle(input, upscale_factor)``: (*, C r^2, H, W) -> (*, C, H r, W r).

    Raises:
        RuntimeError: fewer than 3 dims, a non-positive factor, channels not divisible by r^2
            (PyTorch's messages).
    """

    _backward_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, input, upscale_factor):
        r = int(upscale_factor)
        _check(input, r, "pixel_shuffle", "upscale_factor")
        *lead, c, h, w = input.shape
        if c % (r * r):
            raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                               f"divisible by the square of upscale_factor, but input.size(-3)"
                               f"={c} is not divisible by {r * r}")
        a = input._data.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
        k = len(lead)
        a = a.transpose(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
        ctx.r = r
        return Tensor._make(np.ascontiguousarray(a).reshape(tuple(lead) + (c // (r * r), h * r,
                                                                          w * r)), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("pixel_unshuffle", grad, ctx.r), None


@register_op("pixel_unshuffle")
class PixelUnshuffle(Function):
    """``pixel_unshuffle(input, downscale_factor)``: (*, C, H r, W r) -> (*, C r^2, H, W).

    Raises:
        RuntimeError: fewer than 3 dims, a non-positive factor, height or width not divisible
            by the factor (PyTorch's messages).
    """

    _backward_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, input, downscale_factor):
        r = int(downscale_factor)
        _check(input, r, "pixel_unshuffle", "downscale_factor")
        *lead, c, h, w = input.shape
        for name, n, d in (("height", h, -2), ("width", w, -1)):
            if n % r:
                raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                                   f"downscale_factor, but input.size({d})={n} is not divisible "
                                   f"by {r}")
        a = input._data.reshape(tuple(lead) + (c, h // r, r, w // r, r))
        k = len(lead)
        a = a.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
        ctx.r = r
        return Tensor._make(np.ascontiguousarray(a).reshape(tuple(lead) + (c * r * r, h // r,
                                                                          w // r)), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("pixel_shuffle", grad, ctx.r), None
