"""Bit and truth-value logic as torch-level functions (``torch.bitwise_and``, shifts,
``torch.logical_and``...): each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "logical_not", "logical_and", "logical_or", "logical_xor"]


def bitwise_and(input, other):
    """Elementwise AND of bool/integer tensors (``torch.bitwise_and``), broadcasting; either
    operand may be a Python number; dtype ``result_type(input, other)``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_and_cpu" not implemented for
            'Float'').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_and", input, other)


def bitwise_or(input, other):
    """Elementwise OR of bool/integer tensors (``torch.bitwise_or``); as ``bitwise_and``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_or_cpu" not implemented ...').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_or", input, other)


def bitwise_xor(input, other):
    """Elementwise XOR of bool/integer tensors (``torch.bitwise_xor``); as ``bitwise_and``.

    Raises:
        NotImplementedError: a floating result dtype ('"bitwise_xor_cpu" not implemented ...').
        RuntimeError: shapes not broadcastable.
    """
    return dispatch("bitwise_xor", input, other)


def bitwise_not(input):
    """Elementwise NOT (``torch.bitwise_not``): logical for bool, two's complement for ints.

    Raises:
        NotImplementedError: a floating tensor ('"bitwise_not_cpu" not implemented for ...').
    """
    return dispatch("bitwise_not", input)


def bitwise_left_shift(input, other):
    """``input << other`` for integer tensors (``torch.bitwise_left_shift``), wrapping in the
    result dtype; shifts < 0 or >= the bit width give 0.

    Raises:
        NotImplementedError: floating or bool result dtype ('"lshift_cpu" not implemented ...').
    """
    return dispatch("bitwise_left_shift", input, other)


def bitwise_right_shift(input, other):
    """``input >> other`` for integer tensors (``torch.bitwise_right_shift``), arithmetic for
    signed dtypes.

    Raises:
        NotImplementedError: floating or bool result dtype ('"rshift_cpu" not implemented ...').
    """
    return dispatch("bitwise_right_shift", input, other)


def logical_not(input):
    """Elementwise NOT (``torch.logical_not``): a bool tensor of ``input``'s shape (nonzero
    -> False)."""
    return dispatch("logical_not", input)


def logical_and(input, other):
    """Elementwise AND of the truth values (``torch.logical_and``), broadcasting; bool
    result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("logical_and", input, other)


def logical_or(input, other):
    """Elementwise OR of the truth values (``torch.logical_or``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("logical_or", input, other)


def logical_xor(input, other):
    """Elementwise XOR of truth values (``torch.logical_xor``), broadcasting; bool result.

    Raises:
        TypeError: ``other`` not a Tensor. RuntimeError: shapes not broadcastable.
    """
    return dispatch("logical_xor", input, other)
