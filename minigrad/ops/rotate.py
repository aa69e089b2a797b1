"""``rot90``: a quarter-turn rotation in the plane of two dims (``torch.rot90``).

As PyTorch's composite, ``k`` (mod 4) picks ``flip`` then ``transpose`` (k = 1: flip the
second dim; k = 3: the first), ``flip`` of both (k = 2) or a copy; the result is a new tensor.
``Rot90Backward0``: ``rot90(grad, -k, dims)``.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim


@register_op("rot90")
class Rot90(Function):
    """``rot90(input, k=1, dims=[0, 1])`` (``torch.rot90``, ``Tensor.rot90``): rotated ``k``
    times by 90 degrees from the first of ``dims`` towards the second. ``Rot90Backward0``.

    Raises:
        RuntimeError: "expected total rotation dims == 2, but got dims = 1"; "expected total
            dims >= 2, but got total dims = 1"; "expected rotation dims to be different, but got
            dim0 = 0 and dim1 = 0". IndexError: a dim out of range.
    """

    _backward_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, input, k=1, dims=(0, 1)):
        if not isinstance(input, Tensor):
            raise TypeError(f"rot90(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        dims = list(dims)
        if len(dims) != 2:
            raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
        if input.ndim < 2:
            raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
        if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.ndim:
            raise RuntimeError(f"expected rotation dims to be different, but got dim0 = "
                               f"{dims[0]} and dim1 = {dims[1]}")
        d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
        ctx.k, ctx.dims = k, (dims[0], dims[1])
        out = np.rot90(input._data, k % 4, axes=(d0, d1))    # NumPy's turn: first towards second
        return Tensor._make(np.ascontiguousarray(out), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("rot90", grad, -ctx.k, ctx.dims)
