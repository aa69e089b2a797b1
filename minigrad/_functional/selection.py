"""Selecting elements by a mask as torch-level functions: ``torch.where`` and
``torch.masked_fill``.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor
from .. import dtypes as _dt

__all__ = ["where", "masked_fill", "isin"]


_NOTHING = object()


def where(condition, input=_NOTHING, other=_NOTHING):
    """Elementwise ``input if condition else other`` (``torch.where``), broadcasting all
    three; dtype by ``result_type(input, other)``. ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``, as in PyTorch.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: ``condition`` is not bool ("where expected condition to be a boolean
            tensor").
    """
    if input is _NOTHING and other is _NOTHING:
        return _nonzero_tuple(condition)
    if input is _NOTHING or other is _NOTHING:
        raise TypeError("where() missing required argument 'other'" if other is _NOTHING
                        else "where() missing required argument 'input'")
    return dispatch("where", condition, input, other)


def _nonzero_tuple(condition):
    from .indexing import nonzero
    return nonzero(condition, as_tuple=True)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (``torch.isin``): a bool
    tensor of ``elements``' shape (0-dim for a number); ``invert`` negates it. Either argument
    may be a number (not both). ``assume_unique`` is accepted (it only lets PyTorch pick a
    faster algorithm). Composed of dispatched ops (``eq`` against every test value, ``any``).

    Raises:
        TypeError: neither argument a Tensor.
    """
    from .factories import tensor as _tensor
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    e = elements if isinstance(elements, Tensor) else _tensor(elements)
    t = test_elements if isinstance(test_elements, Tensor) else _tensor([test_elements])
    flat = dispatch("reshape", t, (-1,))
    hit = dispatch("eq", dispatch("unsqueeze", e, -1), flat)
    out = dispatch("any", hit, -1) if flat.numel() else dispatch("zeros", tuple(e.shape),
                                                                  dtype=_dt.bool_)
    return dispatch("logical_not", out) if invert else out


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
