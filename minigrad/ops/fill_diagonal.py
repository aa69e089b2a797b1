"""``fill_diagonal_``: a ``fill_`` of ``self``'s main diagonal, as PyTorch builds it.

PyTorch takes the diagonal as an ``as_strided`` view of ``self`` (one step is the sum of
``self``'s strides, so every dim advances by one) and fills it; with ``wrap=True`` a 2-D matrix
taller than ``width + 1`` rows gets the diagonal continued every ``width + 1`` rows below. Being
a ``fill_`` on a view, it records ``CopySlices`` on ``self`` (``FillBackward2`` inside): the
gradient is zero on the diagonal.
"""
from __future__ import annotations

from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .strided import geometry


@register_op("fill_diagonal_")
def fill_diagonal_(self, fill_value, wrap=False):
    """``Tensor.fill_diagonal_(fill_value, wrap=False)``: write ``fill_value`` on the main
    diagonal of ``self`` (>= 2 dims, all of equal length when more than 2); returns ``self``.

    Raises:
        RuntimeError: fewer than 2 dims ("dimensions must larger than 1"); more than 2 dims of
            unequal lengths ("all dimensions of input must be of equal length"); ``fill_``'s
            errors (a leaf that requires grad...).
        TypeError: ``self`` not a Tensor.
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"fill_diagonal_(): expected a Tensor, got {type(self).__name__}")
    n = self.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if n > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    root = self if self._base is None else self._base
    _, strides, offset = geometry(self._data, root._data)
    step = sum(strides)
    size = min(shape)
    dispatch("fill_", dispatch("as_strided", self, (size,), (step,), offset), fill_value)
    height, width = shape[0], shape[1]
    if wrap and n == 2 and height > width + 1:
        rest = (self.numel() + width) // (width + 1) - size
        start = offset + strides[0] * (width + 1)
        dispatch("fill_", dispatch("as_strided", self, (rest,), (step,), start), fill_value)
    return self
