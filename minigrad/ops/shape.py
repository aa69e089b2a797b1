"""Shape ops and views: expand, reshape/view (and later transpose, permute, squeeze, index...).

Views share storage with their base (NumPy views) and record ``_base``, as PyTorch views do.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor


def _view_of(base, arr):
    t = Tensor._make(arr, base.dtype)
    t._vc = base._vc
    t._base = base if base._base is None else base._base
    return t


@register_op("expand")
class Expand(Function):
    """``expand(input, size)``: a broadcast view; -1 keeps a dim (``Tensor.expand``).

    Raises:
        RuntimeError: "The expanded size of the tensor (4) must match the existing size (3) at
            non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]"
    """

    _backward_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, input, size):
        size = tuple(size)
        shape = input.shape
        lead = len(size) - len(shape)
        if lead < 0:
            raise RuntimeError(f"expand(minigrad.{input.dtype.name}{{{list(shape)}}}, "
                               f"size={list(size)}): the number of sizes provided "
                               f"({len(size)}) must be greater or equal to the number of "
                               f"dimensions in the tensor ({len(shape)})")
        target = []
        for i, s in enumerate(size):
            if i < lead:
                if s < 0:
                    raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in "
                                       "a leading, non-existing dimension 0")
                target.append(s)
                continue
            cur = shape[i - lead]
            if s == -1:
                s = cur
            if cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({cur}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(size)}.  Tensor sizes: {list(shape)}")
            target.append(s)
        ctx.in_shape = shape
        return _view_of(input, np.broadcast_to(input._data, tuple(target)))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("sum_to_size", grad, ctx.in_shape)


def _infer_shape(shape, numel, input_shape):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


@register_op("reshape")
class Reshape(Function):
    """``reshape(input, shape)``: a view when possible, else a copy (``torch.reshape``).

    Raises:
        RuntimeError: "shape '[2, 5]' is invalid for input of size 6".
    """

    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, input, shape):
        shape = _infer_shape(shape, input.numel(), input.shape)
        ctx.in_shape = input.shape
        arr = input._data.reshape(shape)
        if np.shares_memory(arr, input._data) if arr.size else True:
            return _view_of(input, arr)
        return Tensor._make(arr, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("reshape", grad, ctx.in_shape)
