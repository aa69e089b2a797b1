"""Max unpooling: ``max_unpool2d`` (``aten::max_unpool2d``), the partial inverse of
``max_pool2d_with_indices``: each input value written at its flat index into a zero
(oH, oW) plane. ``F.max_unpool1d`` reaches it through a width-1 image, as PyTorch.

ATen's CPU kernel (``MaxUnpoolKernel.cpp``) zeroes the output and walks each plane's indices
in order, so a repeated index keeps the value written last; an index outside the plane is
reported after the walk ("Found an invalid max index: ..."; none for an empty output plane;
PyTorch walks the planes on several threads, so which bad index it names can vary between
runs; here, the last one).
Exact in fp16/bf16/fp32/fp64 (integer and bool inputs raise NotImplementedError, as there).

Backward (derivatives.yaml ``max_pool_double_backward(grad, indices, 2)``): the gradient read
at the same indices, as PyTorch's composite (``view``, ``gather``, ``view``: differentiable
again).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap

_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check(input, indices, output_size):
    """ATen's ``max_unpooling2d_forward_out_cpu`` checks; returns (oH, oW)."""
    for t, arg in ((input, "input"), (indices, "indices")):
        if not isinstance(t, Tensor):
            raise TypeError(f"max_unpool2d(): argument '{arg}' must be Tensor, not "
                            f"{type(t).__name__}")
    if indices.dtype is not _dt.int64:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{indices.dtype.scalar_name}")
    size = [int(s) for s in output_size]
    if len(size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in "
                           f"output_size, but got {len(size)} elements.")
    if input.ndim not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.ndim} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({_shape_str(input.shape)}) but got indices tensor with shape: "
                           f"{_shape_str(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError("max_unpooling2d_forward_out_cpu(): Expected input to have "
                               "non-zero size for non-batch dimensions, but got "
                               f"{_shape_str(input.shape)} with dimension {i} being empty.")
    if min(size) < 0:
        raise RuntimeError("max_unpooling2d(): output_size must contain non-negative spatial "
                           f"dimensions, but got output_size=({size[0]}, {size[1]})")
    if input.dtype not in _FLOATS:
        raise NotImplementedError(f'"max_unpool2d" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return size


@register_op("max_unpool2d")
class MaxUnpool2d(Function):
    """``max_unpool2d(input, indices, output_size)`` -> (N, C, oH, oW) or (C, oH, oW):
    ``input``'s values at their int64 ``indices`` (flat ``h * oW + w`` positions in each
    plane, as ``max_pool2d_with_indices`` gives them), zeros elsewhere.

    Raises:
        RuntimeError: indices not int64, ``output_size`` not two non-negative sizes, input not
            3-D/4-D or empty in a non-batch dim, indices of another shape, an index outside
            the output plane (PyTorch's messages).
        NotImplementedError: integer or bool input.
    """

    _backward_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, input, indices, output_size):
        oh, ow = _check(input, indices, output_size)
        lead = tuple(input.shape[:-2])
        planes = int(np.prod(lead, dtype=np.int64))
        hw = oh * ow
        idx = indices._data.reshape(planes, -1).astype(np.int64)
        vals = input._data.reshape(planes, -1)
        bad = (idx < 0) | (idx >= hw)
        if bad.any() and hw:            # (an empty output plane checks nothing)
            last = idx[bad][-1]
            raise RuntimeError(f"Found an invalid max index: {int(last)} (output volumes are "
                               f"of size {oh}x{ow})")
        out = np.zeros((planes, hw), input.dtype.np)
        if hw:
            # a repeated index keeps the value written last (ATen's loop, in order)
            flat = (idx + (np.arange(planes, dtype=np.int64) * hw)[:, None]).reshape(-1)
            _, first_in_rev = np.unique(flat[::-1], return_index=True)
            keep = flat.size - 1 - first_in_rev
            out.reshape(-1)[flat[keep]] = vals.reshape(-1)[keep]
        ctx.save_for_backward(indices)
        return wrap(out.reshape(lead + (oh, ow)), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return max_pool_double_backward(grad, indices), None, None


def max_pool_double_backward(grad, indices, dim=2):
    """ATen's composite ``max_pool_double_backward(grad, indices, dim)``: ``grad``'s last
    ``dim`` dims flattened and read at ``indices`` (view, gather, view)."""
    shape = tuple(indices.shape)
    lead = shape[:-dim]
    g = dispatch("view", grad, lead + (-1,))
    i = dispatch("view", indices, lead + (-1,))
    return dispatch("view", dispatch("gather", g, -1, i), shape)
