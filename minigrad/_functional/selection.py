"""Selecting elements by a mask as torch-level functions: ``torch.where`` and
``torch.masked_fill``.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor
from .. import dtypes as _dt

__all__ = ["where", "masked_fill"]


def where(condition, input, other):
    """Elementwise ``input if condition else other`` (``torch.where``), broadcasting all
    three; dtype by ``result_type(input, other)``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: ``condition`` is not bool ("where expected condition to be a boolean
            tensor").
    """
    return dispatch("where", condition, input, other)


def masked_fill(input, mask, value):
    """``input`` with ``value`` where the bool ``mask`` (broadcast) is True
    (``torch.masked_fill``). ``value`` is a number (the ``masked_fill`` op,
    ``MaskedFillBackward0``) or a 0-dim tensor, cast to ``input``'s dtype and differentiable
    (composed as ``where(mask, value.to(input.dtype), input)``: its gradient is the sum of
    ``grad`` under the mask, as PyTorch's ``MaskedFillBackward1``; the node is named
    ``WhereBackward0`` here).

    Raises:
        RuntimeError: a non-bool mask ("masked_fill_ only supports boolean masks, but got mask
            with dtype long int"); a value tensor with dimensions ("masked_fill_ only supports
            a 0-dimensional value tensor, but got tensor with 1 dimension(s)."); shapes that do
            not broadcast.
        TypeError: ``input``/``mask`` not Tensors.
    """
    for pos, (arg, x) in enumerate((("input", input), ("mask", mask)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"masked_fill(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(x).__name__}")
    if not isinstance(value, Tensor):
        return dispatch("masked_fill", input, mask, value)
    if mask.dtype is not _dt.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.cpp_name}")
    if value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if value.dtype is not input.dtype:
        value = dispatch("_to_copy", value, dtype=input.dtype)
    return dispatch("where", mask, value, input)
