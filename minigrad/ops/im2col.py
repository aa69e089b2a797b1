"""Sliding blocks of an image as columns and back: ``im2col`` (``F.unfold``) and ``col2im``
(``F.fold``), each the other's gradient.

For an input ``(N, C, H, W)`` (or ``(C, H, W)``), ``im2col`` returns ``(N, C*kh*kw, L)``: row
``(c, i, j)`` (C order) holds, for each of the ``L = oh * ow`` block positions (row-major), the
element ``x[c, y*sh - ph + i*dh, x*sw - pw + j*dw]`` (zero outside the image).
``col2im`` adds every column entry back onto that pixel: per pixel the contributions arrive
in ``(c, i, j)`` order, one rounding each in the storage dtype, as PyTorch's CPU ``col2im``.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor


def _pair(v, name):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    if len(v) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
    return tuple(int(x) for x in v)


def _params(kernel_size, dilation, padding, stride):
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    for name, (a, b), ok in (("kernel", k, k[0] > 0 and k[1] > 0),
                             ("stride", s, s[0] > 0 and s[1] > 0),
                             ("dilation", d, d[0] > 0 and d[1] > 0)):
        if not ok:
            raise RuntimeError(f"{name} should be greater than zero, but got {name}_height: {a} "
                               f"{name}_width: {b}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} "
                           f"pad_width: {p[1]}")
    return k, d, p, s


def _blocks(hw, k, d, p, s):
    return tuple((hw[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2))


def _fmt(t):
    return f"({t[0]}, {t[1]})"


def _windows(k, d, s, o):
    """(i, j, rows, cols) slices into the padded image for each kernel offset."""
    for i in range(k[0]):
        for j in range(k[1]):
            yield i, j, slice(i * d[0], i * d[0] + s[0] * (o[0] - 1) + 1, s[0]), \
                slice(j * d[1], j * d[1] + s[1] * (o[1] - 1) + 1, s[1])


@register_op("im2col")
class Im2Col(Function):
    """``im2col(input, kernel_size, dilation, padding, stride)``: the sliding blocks of a
    ``(N, C, H, W)`` or ``(C, H, W)`` input as columns ``(N, C*kh*kw, L)`` (``F.unfold``;
    node ``Im2ColBackward0``, whose gradient is ``col2im``).

    Raises:
        RuntimeError: an input of more than 4 dims, non-positive kernel/stride/dilation,
            negative padding, a kernel larger than the padded image (PyTorch's messages);
            IndexError: fewer than 3 dims.
    """

    _backward_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, dilation, padding, stride):
        k, d, p, s = _params(kernel_size, dilation, padding, stride)
        n = input.ndim
        if n < 3:       # PyTorch reads input.size(-3)... first
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got {n})" if n else
                             "Dimension specified as 1 but tensor has no dimensions")
        if n != 4 and n != 3:
            raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                               "and other non-zero dimensions for input, but got: "
                               f"{list(input.shape)}")
        x = input._data if input.ndim == 4 else input._data[None]
        n, c, h, w = x.shape
        o = _blocks((h, w), k, d, p, s)
        if o[0] < 1 or o[1] < 1:
            raise RuntimeError(f"Given input with spatial size {_fmt((h, w))}, kernel_size="
                               f"{_fmt(k)}, dilation={_fmt(d)}, padding={_fmt(p)}, calculated "
                               f"shape of the array of sliding blocks as {_fmt(o)}, but its "
                               "components must be at least one.")
        ctx.args = ((h, w), k, d, p, s)
        ctx.batched = input.ndim == 4
        xp = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), x.dtype)
        xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
        out = np.empty((n, c, k[0], k[1], o[0], o[1]), x.dtype)
        for i, j, rs, cs in _windows(k, d, s, o):
            out[:, :, i, j] = xp[:, :, rs, cs]
        out = out.reshape(n, c * k[0] * k[1], o[0] * o[1])
        return Tensor._make(out if ctx.batched else out[0], input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("col2im", grad, *ctx.args), None, None, None, None


@register_op("col2im")
class Col2Im(Function):
    """``col2im(input, output_size, kernel_size, dilation, padding, stride)``: columns ``(N,
    C*kh*kw, L)`` (or ``(C*kh*kw, L)``) summed back into an image ``(N, C, H, W)``
    (``F.fold``; node ``Col2ImBackward0``, whose gradient is ``im2col``).

    Raises:
        RuntimeError: a channel count not divisible by ``kh*kw``, a block count that does not
            match ``output_size`` (PyTorch's messages).
    """

    _backward_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, input, output_size, kernel_size, dilation, padding, stride):
        k, d, p, s = _params(kernel_size, dilation, padding, stride)
        hw = _pair(output_size, "output_size")
        if input.ndim not in (2, 3):
            raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                               "batch size and non-zero dimensions for input, but got: "
                               f"{list(input.shape)}")
        x = input._data if input.ndim == 3 else input._data[None]
        n, ckk, length = x.shape
        if ckk % (k[0] * k[1]):
            raise RuntimeError("Expected size of input's dimension 1 to be divisible by the "
                               f"product of kernel_size, but got input.size(1)={ckk} and "
                               f"kernel_size={_fmt(k)}.")
        o = _blocks(hw, k, d, p, s)
        if o[0] * o[1] != length:
            raise RuntimeError(f"Given output_size={_fmt(hw)}, kernel_size={_fmt(k)}, "
                               f"dilation={_fmt(d)}, padding={_fmt(p)}, stride={_fmt(s)}, "
                               "expected size of input's dimension 2 to match the calculated "
                               f"number of sliding blocks {o[0]} * {o[1]} = {o[0] * o[1]}, but "
                               f"got input.size(2)={length}.")
        ctx.args = (k, d, p, s)
        c = ckk // (k[0] * k[1])
        cols = x.reshape(n, c, k[0], k[1], o[0], o[1])
        out = np.zeros((n, c, hw[0] + 2 * p[0], hw[1] + 2 * p[1]), x.dtype)
        for i, j, rs, cs in _windows(k, d, s, o):
            out[:, :, rs, cs] += cols[:, :, i, j]
        out = np.array(out[:, :, p[0]:p[0] + hw[0], p[1]:p[1] + hw[1]], order="C")
        return Tensor._make(out if input.ndim == 3 else out[0], input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("im2col", grad, *ctx.args), None, None, None, None, None
