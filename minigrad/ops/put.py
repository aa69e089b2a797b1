"""Flat (row-major) indices: ``take`` reads ``input``'s elements at them (``torch.take``);
``put`` / ``put_`` write ``source``'s elements into ``input`` at them,
as PyTorch's ``Tensor.put_(index, source, accumulate=False)``; negative indices count from the
end. With ``accumulate`` repeated indices add up (in order, each addition rounded in the
dtype); without, the last write wins (PyTorch: unspecified order). Node ``PutBackward0``: the
input's gradient is ``grad`` (accumulate) or ``grad`` with zeros put at ``index``; source's
is ``grad.take(index)`` in source's shape.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .inplace import run_inplace


def _check(input, index, source):
    for name, t in (("index", index), ("source", source)):
        if not isinstance(t, Tensor):
            raise TypeError(f"put_(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if index.dtype is not _dt.int64:
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{index.dtype.scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input.dtype.scalar_name} and source.dtype = "
                           f"{source.dtype.scalar_name}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    return _flat_indices(index, input.numel(), "put_(): Tried to put elements into an empty "
                                                "tensor")


def _flat_indices(index, n, empty_msg):
    """``index``'s entries as non-negative flat indices into ``n`` elements.

    Raises:
        IndexError: indices into no elements (``empty_msg``), an index out of range ("out of
            range: tried to access index 6 on a tensor of 6 elements.").
    """
    idx = index._data.reshape(-1).astype(np.int64)
    if idx.size and n == 0:
        raise IndexError(empty_msg)
    if idx.size:
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor "
                             f"of {n} elements.")
    return np.where(idx < 0, idx + n, idx)


@register_op("put")
class Put(Function):
    """``put(input, index, source, accumulate=False)``: ``input`` with ``source``'s elements at
    the flat indices ``index`` (``torch.put``; node ``PutBackward0``).

    Raises:
        TypeError: ``index``/``source`` not Tensors. RuntimeError: an index that is not int64
            ("put_(): Expected a long tensor for index, but got Int"), ``source`` of another
            dtype. IndexError: element counts that differ, an index out of range ("out of
            range: tried to access index 6 on a tensor of 6 elements."), an empty ``input``.
    """

    _backward_name = "PutBackward0"

    @staticmethod
    def forward(ctx, input, index, source, accumulate=False):
        idx = _check(input, index, source)
        ctx.accumulate, ctx.src_shape = bool(accumulate), tuple(source.shape)
        ctx.save_for_backward(index, source)
        out = input._data.copy().reshape(-1)
        src = source._data.reshape(-1)
        if accumulate:
            np.add.at(out, idx, src)
        else:
            out[idx] = src
        return Tensor._make(out.reshape(input.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        index, source = ctx.saved_tensors
        nig = ctx.needs_input_grad
        gi = gs = None
        if nig[0]:
            gi = grad if ctx.accumulate else \
                dispatch("put", grad, index, dispatch("zeros_like", source))
        if nig[2]:
            flat = dispatch("reshape", grad, (-1,))
            gs = dispatch("index_select", flat, 0, dispatch("reshape", index, (-1,)))
            gs = dispatch("reshape", gs, ctx.src_shape)
        return gi, None, gs, None


@register_op("put_")
def put_(self, index, source, accumulate=False):
    """In-place ``put`` (``Tensor.put_``); returns ``self``. Errors as ``put``'s and
    ``run_inplace``'s (a leaf that requires grad...)."""
    return run_inplace(self, Put.apply, index, source, accumulate)


@register_op("take")
class Take(Function):
    """``take(input, index)``: ``input``'s elements at the flat (row-major) indices ``index``,
    in ``index``'s shape; negative indices count from the end (``torch.take``). Node
    ``TakeBackward0``: the input's gradient is zeros with ``grad`` put at ``index``,
    accumulated (a repeated index gets the sum).

    Raises:
        TypeError: ``index`` not a Tensor. RuntimeError: an index that is not int64 ("take():
            Expected a long tensor for index, but got Int"). IndexError: an index out of range
            ("out of range: tried to access index 6 on a tensor of 6 elements."), indices into
            an empty ``input`` ("take(): tried to take from an empty tensor").
    """

    _backward_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, input, index):
        if not isinstance(index, Tensor):
            raise TypeError("take(): argument 'index' (position 2) must be Tensor, not "
                            f"{type(index).__name__}")
        if index.dtype is not _dt.int64:
            raise RuntimeError("take(): Expected a long tensor for index, but got "
                               f"{index.dtype.scalar_name}")
        idx = _flat_indices(index, input.numel(), "take(): tried to take from an empty tensor")
        ctx.in_shape = tuple(input.shape)
        ctx.save_for_backward(index)
        out = input._data.reshape(-1)[idx]
        return Tensor._make(out.reshape(index._data.shape), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        zeros = dispatch("zeros", ctx.in_shape, dtype=grad.dtype, device=grad.device)
        return dispatch("put", zeros, index, grad, True), None
