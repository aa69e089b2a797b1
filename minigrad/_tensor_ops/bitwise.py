"""Bit and truth-value logic methods of ``Tensor``: the operators ``& | ^ << >> ~`` (and their
in-place and reflected forms), ``bitwise_*`` and ``logical_*``. Each is one ``dispatch`` call.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch


_NUM = (bool, int, float, np.number, np.bool_)


def _ok(other):
    """True for an operand the bitwise operators accept (else they return NotImplemented)."""
    return isinstance(other, _NUM) or isinstance(other, BitwiseMixin)


class BitwiseMixin:
    """Bitwise and logical methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __and__(self, other):
        """``torch.Tensor.__and__``: the ``bitwise_and`` op."""
        return dispatch("bitwise_and", self, other) if _ok(other) else NotImplemented

    def __rand__(self, other):
        """``torch.Tensor.__rand__``: the ``bitwise_and`` op."""
        return dispatch("bitwise_and", self, other) if _ok(other) else NotImplemented

    def __iand__(self, other):
        """``torch.Tensor.__iand__``: the ``bitwise_and_`` op."""
        return dispatch("bitwise_and_", self, other) if _ok(other) else NotImplemented

    def __or__(self, other):
        """``torch.Tensor.__or__``: the ``bitwise_or`` op."""
        return dispatch("bitwise_or", self, other) if _ok(other) else NotImplemented

    def __ror__(self, other):
        """``torch.Tensor.__ror__``: the ``bitwise_or`` op."""
        return dispatch("bitwise_or", self, other) if _ok(other) else NotImplemented

    def __ior__(self, other):
        """``torch.Tensor.__ior__``: the ``bitwise_or_`` op."""
        return dispatch("bitwise_or_", self, other) if _ok(other) else NotImplemented

    def __xor__(self, other):
        """``torch.Tensor.__xor__``: the ``bitwise_xor`` op."""
        return dispatch("bitwise_xor", self, other) if _ok(other) else NotImplemented

    def __rxor__(self, other):
        """``torch.Tensor.__rxor__``: the ``bitwise_xor`` op."""
        return dispatch("bitwise_xor", self, other) if _ok(other) else NotImplemented

    def __ixor__(self, other):
        """``torch.Tensor.__ixor__``: the ``bitwise_xor_`` op."""
        return dispatch("bitwise_xor_", self, other) if _ok(other) else NotImplemented

    def __lshift__(self, other):
        """``torch.Tensor.__lshift__``: the ``bitwise_left_shift`` op."""
        return dispatch("bitwise_left_shift", self, other) if _ok(other) else NotImplemented

    def __rlshift__(self, other):
        """``torch.Tensor.__rlshift__``: the ``bitwise_left_shift`` op (``other << self``)."""
        return dispatch("bitwise_left_shift", other, self) if _ok(other) else NotImplemented

    def __ilshift__(self, other):
        """``torch.Tensor.__ilshift__``: the ``bitwise_left_shift_`` op."""
        return dispatch("bitwise_left_shift_", self, other) if _ok(other) else NotImplemented

    def __rshift__(self, other):
        """``torch.Tensor.__rshift__``: the ``bitwise_right_shift`` op."""
        return dispatch("bitwise_right_shift", self, other) if _ok(other) else NotImplemented

    def __rrshift__(self, other):
        """``torch.Tensor.__rrshift__``: the ``bitwise_right_shift`` op (``other >> self``)."""
        return dispatch("bitwise_right_shift", other, self) if _ok(other) else NotImplemented

    def __irshift__(self, other):
        """``torch.Tensor.__irshift__``: the ``bitwise_right_shift_`` op."""
        return dispatch("bitwise_right_shift_", self, other) if _ok(other) else NotImplemented

    def __invert__(self):
        """``torch.Tensor.__invert__`` (``~``): the ``bitwise_not`` op.

        Raises:
            TypeError: a floating tensor ("~ (operator.invert) is only implemented on integer
                and Boolean-type tensors").
        """
        if self.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and "
                            "Boolean-type tensors")
        return dispatch("bitwise_not", self)

    def bitwise_and(self, other):
        """Mirrors ``torch.Tensor.bitwise_and``: the ``bitwise_and`` op (its errors apply)."""
        return dispatch("bitwise_and", self, other)

    def bitwise_or(self, other):
        """Mirrors ``torch.Tensor.bitwise_or``: the ``bitwise_or`` op (its errors apply)."""
        return dispatch("bitwise_or", self, other)

    def bitwise_xor(self, other):
        """Mirrors ``torch.Tensor.bitwise_xor``: the ``bitwise_xor`` op (its errors apply)."""
        return dispatch("bitwise_xor", self, other)

    def bitwise_not(self):
        """Mirrors ``torch.Tensor.bitwise_not``: the ``bitwise_not`` op (its errors apply)."""
        return dispatch("bitwise_not", self)

    def bitwise_left_shift(self, other):
        """Mirrors ``torch.Tensor.bitwise_left_shift``: the ``bitwise_left_shift`` op."""
        return dispatch("bitwise_left_shift", self, other)

    def bitwise_right_shift(self, other):
        """Mirrors ``torch.Tensor.bitwise_right_shift``: the ``bitwise_right_shift`` op."""
        return dispatch("bitwise_right_shift", self, other)

    def bitwise_and_(self, other):
        """Mirrors ``torch.Tensor.bitwise_and_``: the ``bitwise_and_`` op (its errors apply)."""
        return dispatch("bitwise_and_", self, other)

    def bitwise_or_(self, other):
        """Mirrors ``torch.Tensor.bitwise_or_``: the ``bitwise_or_`` op (its errors apply)."""
        return dispatch("bitwise_or_", self, other)

    def bitwise_xor_(self, other):
        """Mirrors ``torch.Tensor.bitwise_xor_``: the ``bitwise_xor_`` op (its errors apply)."""
        return dispatch("bitwise_xor_", self, other)

    def bitwise_not_(self):
        """Mirrors ``torch.Tensor.bitwise_not_``: the ``bitwise_not_`` op (its errors apply)."""
        return dispatch("bitwise_not_", self)

    def logical_and(self, other):
        """Mirrors ``torch.Tensor.logical_and``: the ``logical_and`` op (its errors apply)."""
        return dispatch("logical_and", self, other)

    def logical_or(self, other):
        """Mirrors ``torch.Tensor.logical_or``: the ``logical_or`` op (its errors apply)."""
        return dispatch("logical_or", self, other)

    def logical_xor(self, other):
        """Mirrors ``torch.Tensor.logical_xor``: the ``logical_xor`` op (its errors apply)."""
        return dispatch("logical_xor", self, other)

    def logical_not(self):
        """Mirrors ``torch.Tensor.logical_not``: the ``logical_not`` op (its errors apply)."""
        return dispatch("logical_not", self)
