"""Selecting and writing by a bool mask: ``masked_select``, ``masked_scatter`` (and
``masked_scatter_``), ``nonzero``. (``masked_fill`` lives with indexing in ``index.py``.)

``masked_select(input, mask)`` is the 1-D tensor of ``input``'s elements where the mask
(broadcast against it) is True, in row-major order; ``masked_scatter(input, mask, source)``
writes ``source``'s leading elements, in order, where the mask is True. Backward formulas as
``tools/autograd/derivatives.yaml`` (``masked_select_backward``, ``masked_scatter_backward``).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes
from .inplace import run_inplace


def _mask_check(mask, msg):
    if not isinstance(mask, Tensor):
        raise TypeError(f"argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype is not _dt.bool_:
        raise RuntimeError(msg.format(mask.dtype.scalar_name))


@register_op("masked_select")
class MaskedSelect(Function):
    """``masked_select(input, mask)``: 1-D tensor of the elements of ``input`` where the bool
    ``mask`` is True, both broadcast (``torch.masked_select``; node
    ``MaskedSelectBackward0``).

    Raises:
        RuntimeError: a non-bool mask ("masked_select: expected BoolTensor for mask"), shapes
            that do not broadcast.
    """

    _backward_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, input, mask):
        _mask_check(mask, "masked_select: expected BoolTensor for mask")
        shape = broadcast_shapes(mask.shape, input.shape)     # PyTorch's order (its message)
        ctx.in_shape, ctx.shape = input.shape, shape
        ctx.save_for_backward(input, mask)      # as PyTorch: freed after backward
        data = np.broadcast_to(input._data, shape)
        return Tensor._make(np.array(data[np.broadcast_to(mask._data, shape)], order="C"),
                            input.dtype)

    @staticmethod
    def backward(ctx, grad):
        _, mask = ctx.saved_tensors
        zeros = dispatch("zeros", ctx.shape, dtype=grad.dtype)
        g = dispatch("masked_scatter", zeros, mask, grad)
        if tuple(ctx.shape) != tuple(ctx.in_shape):
            g = dispatch("sum_to_size", g, ctx.in_shape)
        return g, None


@register_op("masked_scatter")
class MaskedScatter(Function):
    """``masked_scatter(input, mask, source)``: ``input`` (broadcast with ``mask``) with the
    positions where ``mask`` is True filled, in row-major order, by ``source``'s first elements
    (``torch.masked_scatter``; node ``MaskedScatterBackward0``: the input's gradient is ``grad``
    with zeros under the mask, source's the masked elements of ``grad``, zero-padded).

    Raises:
        RuntimeError: a non-bool mask ("masked_scatter_ only supports boolean masks, but got
            mask with dtype Long"), ``source`` of another dtype, fewer source elements than
            True mask elements ("Number of elements of source < number of ones in mask").
    """

    _backward_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, input, mask, source):
        _mask_check(mask, "masked_scatter_ only supports boolean masks, but got mask with dtype "
                    "{}")
        if source.dtype is not input.dtype:
            raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                               f"got{input.dtype.scalar_name} and {source.dtype.scalar_name}")
        shape = broadcast_shapes(mask.shape, input.shape)     # PyTorch's order (its message)
        m = np.broadcast_to(mask._data, shape)
        n = int(m.sum())
        if n > source.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.in_shape, ctx.shape, ctx.src_shape = input.shape, shape, source.shape
        ctx.save_for_backward(mask)             # as PyTorch: freed after backward
        out = np.array(np.broadcast_to(input._data, shape))
        out[m] = source._data.reshape(-1)[:n]
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        nig = ctx.needs_input_grad
        (mask,) = ctx.saved_tensors
        gi = gs = None
        if nig[0]:
            gi = dispatch("masked_fill", grad, mask, 0.0)
            if tuple(ctx.shape) != tuple(ctx.in_shape):
                gi = dispatch("sum_to_size", gi, ctx.in_shape)
        if nig[2]:
            sel = dispatch("masked_select", grad, mask)
            numel = int(np.prod(ctx.src_shape, dtype=np.int64))
            if numel > sel.numel():
                pad = dispatch("zeros", (numel - sel.numel(),), dtype=grad.dtype)
                sel = dispatch("cat", [sel, pad], 0)
            gs = dispatch("view", sel, ctx.src_shape)
        return gi, None, gs


@register_op("masked_scatter_")
def masked_scatter_(self, mask, source):
    """In-place ``masked_scatter`` (``Tensor.masked_scatter_``); ``mask`` must broadcast to
    ``self``'s shape (it is expanded to it first, as PyTorch: ``expand``'s errors apply).
    Returns ``self``."""
    if isinstance(mask, Tensor) and tuple(mask.shape) != tuple(self.shape):
        mask = dispatch("expand", mask, tuple(self.shape))
    return run_inplace(self, MaskedScatter.apply, mask, source)


@register_op("nonzero")
class Nonzero(Function):
    """``nonzero(input)``: the int64 ``(N, ndim)`` tensor of the indices of the non-zero
    elements, row-major (``torch.nonzero``; not differentiable). ``as_tuple=True`` is
    ``minigrad.nonzero``'s ``unbind`` of it, as in PyTorch."""

    @staticmethod
    def forward(ctx, input):
        data = input._data
        if data.dtype.kind == "f" or input.dtype is _dt.bfloat16:
            data = data.astype(np.float32) if input.dtype is _dt.bfloat16 else data
        nz = np.argwhere(data.reshape(data.shape) != 0) if data.ndim else \
            np.zeros((int(data != 0), 0), np.int64)
        return Tensor._make(np.array(nz.astype(np.int64), order="C"), _dt.int64)

    @staticmethod
    def backward(ctx, grad):
        return None
