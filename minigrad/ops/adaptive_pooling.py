"""Adaptive pooling: windows chosen so that the output has a given size.

Output position ``o`` of ``out`` along an input dim of size ``n`` pools the input range
``[floor(o * n / out), ceil((o + 1) * n / out))`` (PyTorch's ``start_index``/``end_index``).
Ops: ``_adaptive_avg_pool2d`` and ``adaptive_max_pool2d`` with their fused backwards
(``_adaptive_avg_pool2d_backward``, ``adaptive_max_pool2d_backward``), and the composites
``adaptive_avg_pool2d`` (a 1x1 output is a ``mean``, as in PyTorch), ``adaptive_avg_pool1d``
and ``adaptive_max_pool1d`` (the 2-d ops over (.., 1, L)).

Average: each window summed in order in opmath (fp32 for 16-bit), divided by its height and
then its width, rounded once; the backward follows PyTorch's CPU loop (per output, in the
gradient's dtype). Loops over output positions: meant for the small maps of CNN heads.
Max: exact; NaN wins (its last occurrence, as PyTorch's CPU loop).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap, wrap_dim
from .pooling import gather_from_input, scatter_to_input, window_max


def _windows(input, output_size, name):
    """The shared set-up of the 2-d adaptive pools: checks, the opmath input and each output
    row's / column's window ranges ``(lo, hi)`` (PyTorch's start/end index rule)."""
    sizes = _output_size(input, output_size, name)
    _check(input, sizes, name)
    a = opmath(input, input.dtype)
    h, w = a.shape[-2:]
    return a, sizes, _ranges(h, sizes[0]), _ranges(w, sizes[1])


def _ranges(n, out):
    o = np.arange(out)
    return (o * n) // out, -((-(o + 1) * n) // out)


def _output_size(input, output_size, op, nd=2):
    """Checks (PyTorch's messages) and the output size with ``None`` entries filled in."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if isinstance(output_size, (int, np.integer)):
        output_size = (int(output_size),) * nd
    output_size = tuple(output_size)
    if len(output_size) == 1 and nd == 2:
        output_size = output_size * 2
    if len(output_size) != nd:
        raise RuntimeError(f"{op}: internal error: output_size.size() must be {nd}")
    sizes = tuple(input.shape[-nd + i] if s is None else int(s)
                  for i, s in enumerate(output_size))
    return sizes


def _check(input, sizes, op):
    if input.ndim not in (3, 4):
        sep = ":" if op == "adaptive_max_pool2d" else ""      # PyTorch's two spellings
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got{sep} "
                           f"{list(input.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {i} being empty")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(map(str, sizes))}}}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}" not implemented for \'{input.dtype.scalar_name}\'')


@register_op("_adaptive_avg_pool2d")
class AdaptiveAvgPool2d(Function):
    """``_adaptive_avg_pool2d(input, output_size)``: (N, C, H, W) or (C, H, W) ->
    (.., C, OH, OW), each output the mean of its adaptive window (floating dtypes only).

    Raises:
        RuntimeError: not 3-D/4-D, an empty non-batch dim, a negative output size.
        NotImplementedError: integer inputs ('"adaptive_avg_pool2d" not implemented for
            'Long'').
    """

    _backward_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size):
        dt = input.dtype
        a, sizes, (hlo, hhi), (wlo, whi) = _windows(input, output_size, "adaptive_avg_pool2d")
        out = np.empty(a.shape[:-2] + sizes, a.dtype)
        for i in range(sizes[0]):
            for j in range(sizes[1]):
                acc = a[..., hlo[i], wlo[j]].copy()      # PyTorch's loop: in order, in opmath
                for ih in range(hlo[i], hhi[i]):
                    for iw in range(wlo[j], whi[j]):
                        if ih != hlo[i] or iw != wlo[j]:
                            acc += a[..., ih, iw]
                out[..., i, j] = acc / (hhi[i] - hlo[i]) / (whi[j] - wlo[j])
        ctx.save_for_backward(input)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return dispatch("_adaptive_avg_pool2d_backward", grad, input), None


@register_op("_adaptive_avg_pool2d_backward")
class AdaptiveAvgPool2dBackward(Function):
    """``_adaptive_avg_pool2d_backward(grad_output, input)``: each output gradient divided by
    the window's height, then width (each rounded to the gradient's dtype) and added over the
    window in output order, in that dtype (PyTorch's CPU loop). Differentiable in
    ``grad_output`` (its derivative is ``_adaptive_avg_pool2d``)."""

    _backward_name = "AdaptiveAvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input):
        dt = grad_output.dtype
        g = grad_output._data
        oh, ow = g.shape[-2:]
        h, w = input.shape[-2:]
        hlo, hhi = _ranges(h, oh)
        wlo, whi = _ranges(w, ow)
        out = np.zeros(g.shape[:-2] + (h, w), dt.np)
        cd = dt.opmath.np
        for i in range(oh):
            for j in range(ow):
                # grad_delta = gO / kh / kw, each division rounded to the grad's dtype; then
                # gI += grad_delta over the window, in that dtype (PyTorch's loop)
                d = (g[..., i, j].astype(cd) / cd.type(hhi[i] - hlo[i])).astype(dt.np)
                d = (d.astype(cd) / cd.type(whi[j] - wlo[j])).astype(dt.np)
                out[..., hlo[i]:hhi[i], wlo[j]:whi[j]] += d[..., None, None]
        ctx.out_size = (oh, ow)
        return Tensor._make(out, dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_adaptive_avg_pool2d", grad, ctx.out_size), None


@register_op("adaptive_avg_pool2d")
def adaptive_avg_pool2d(input, output_size):
    """``adaptive_avg_pool2d`` (aten composite): a 1x1 output is ``mean`` over the last two
    dims (keepdim), otherwise ``_adaptive_avg_pool2d``."""
    sizes = _output_size(input, output_size, "adaptive_avg_pool2d")
    wrap_dim(-2, input.ndim)       # PyTorch reads input.size(-2) first: IndexError below 2-D
    if sizes == (1, 1) and input.ndim in (3, 4) and input.dtype.is_floating_point and \
            input.numel():
        return dispatch("mean", input, (-1, -2), True)
    return dispatch("_adaptive_avg_pool2d", input, sizes)


@register_op("adaptive_max_pool2d")
class AdaptiveMaxPool2d(Function):
    """``adaptive_max_pool2d(input, output_size)`` -> ``(values, indices)``: the maximum of
    each adaptive window and its flat position ``h * W + w`` in the input plane (int64).

    Raises:
        RuntimeError: not 3-D/4-D, an empty non-batch dim, a negative output size.
        NotImplementedError: integer inputs.
    """

    _backward_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size):
        dt = input.dtype
        a, sizes, (hlo, hhi), (wlo, whi) = _windows(input, output_size, "adaptive_max_pool2d")
        w = a.shape[-1]
        vals = np.empty(a.shape[:-2] + sizes, a.dtype)
        idx = np.empty(a.shape[:-2] + sizes, np.int64)
        for i in range(sizes[0]):
            for j in range(sizes[1]):
                win = a[..., hlo[i]:hhi[i], wlo[j]:whi[j]]
                kw = whi[j] - wlo[j]
                pos, vals[..., i, j] = window_max(win.reshape(win.shape[:-2] + (-1,)))
                idx[..., i, j] = (hlo[i] + pos // kw) * w + wlo[j] + pos % kw
        indices = Tensor._make(idx, _dt.int64)
        ctx.save_for_backward(input, indices)
        ctx.mark_non_differentiable(indices)
        return wrap(vals, dt), indices

    @staticmethod
    def backward(ctx, grad, _gi=None):
        input, indices = ctx.saved_tensors
        return dispatch("adaptive_max_pool2d_backward", grad, input, indices), None


@register_op("adaptive_max_pool2d_backward")
class AdaptiveMaxPool2dBackward(Function):
    """``adaptive_max_pool2d_backward(grad_output, input, indices)``: each gradient added at
    its input position (opmath sums, one rounding). Differentiable in ``grad_output``."""

    _backward_name = "AdaptiveMaxPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, indices):
        ctx.save_for_backward(indices)
        return scatter_to_input(grad_output, indices, input.shape, grad_output.dtype)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return gather_from_input(grad, indices), None, None


def _one_d(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{op}(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return dispatch("unsqueeze", input, -2)


def _size1(output_size, op):
    if not isinstance(output_size, (int, np.integer)):
        output_size = tuple(output_size)
        if len(output_size) != 1:
            raise RuntimeError(f"{op}: output_size must be 1")
        output_size = output_size[0]
    return (1, int(output_size))


@register_op("adaptive_avg_pool1d")
def adaptive_avg_pool1d(input, output_size):
    """``adaptive_avg_pool1d``: (N, C, L) or (C, L) -> (.., C, output_size), via the 2-d op."""
    x = _one_d(input, "adaptive_avg_pool1d")
    out = dispatch("_adaptive_avg_pool2d", x, _size1(output_size, "adaptive_avg_pool1d"))
    return dispatch("squeeze", out, -2)


@register_op("adaptive_max_pool1d")
def adaptive_max_pool1d(input, output_size):
    """``adaptive_max_pool1d`` -> ``(values, indices)`` via ``adaptive_max_pool2d``."""
    x = _one_d(input, "adaptive_max_pool1d")
    out, idx = dispatch("adaptive_max_pool2d", x, _size1(output_size, "adaptive_max_pool1d"))
    return dispatch("squeeze", out, -2), dispatch("squeeze", idx, -2)
