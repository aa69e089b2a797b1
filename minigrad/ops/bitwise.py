"""Bitwise ops on bool and integer tensors: bitwise_and/or/xor/not, bitwise_left_shift /
bitwise_right_shift, their in-place forms, and logical_xor.

Semantics as PyTorch's CPU kernels:
- The result dtype is ``result_type(input, other)`` (weak Python scalars); a floating result
  dtype raises ``NotImplementedError: "bitwise_and_cpu" not implemented for 'Float'`` (shifts:
  ``"lshift_cpu"`` / ``"rshift_cpu"``, which also reject Bool).
- Shifts by a negative amount or by at least the bit width give 0 (left) or the sign fill
  (right), as PyTorch defines them; left shifts wrap around in the dtype.
- Results are bool/integer tensors, so they never require grad (no backward).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..dispatch import register_op
from ..tensor import Tensor
from ..numerics import scalar_in
from ._util import broadcast_shapes
from .compare import logical_operands
from .inplace import run_inplace

_NUM = (bool, int, float, np.number, np.bool_)


def _not_impl(kernel, dt):
    return NotImplementedError(f'"{kernel}_cpu" not implemented for '
                               f"'{dt.scalar_name}'")


def _operand(x, rt):
    if isinstance(x, Tensor):
        a = x._data
        return a if x.dtype is rt else a.astype(rt.np)
    if rt is _dt.bool_:
        return np.bool_(x)
    return scalar_in(x, rt)


def _prepare(name, kernel, input, other, allow_bool=True):
    """Checks shared by the binary bitwise ops; returns (a, b, result dtype)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    for pos, x in ((1, input), (2, other)):
        if not isinstance(x, (Tensor,) + _NUM):
            arg = "input" if pos == 1 else "other"
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor or "
                            f"Number, not {type(x).__name__}")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.shape != other.shape:
        broadcast_shapes(input.shape, other.shape)
    rt = _dt.result_type(input, other)
    if rt.is_floating_point or (rt is _dt.bool_ and not allow_bool):
        raise _not_impl(kernel, rt)
    return _operand(input, rt), _operand(other, rt), rt


def _result(out, rt):
    return Tensor._make(np.asarray(out, dtype=rt.np), rt)


def _make_bitwise(name, kernel, ufunc):
    def op(input, other):
        a, b, rt = _prepare(name, kernel, input, other)
        return _result(ufunc(a, b), rt)
    op.__name__ = name
    op.__doc__ = (
        f"``{name}(input, other)`` (``torch.{name}``): elementwise on bool/integer tensors, "
        "broadcasting; either operand may be a Python number; dtype ``result_type(input, "
        f"other)``; never requires grad.\n\n    Raises:\n        NotImplementedError: a "
        f"floating result dtype ('\"{kernel}_cpu\" not implemented for 'Float''). RuntimeError: "
        "shapes that do not broadcast. TypeError: operands that are not Tensors or numbers.")
    return register_op(name, op)


bitwise_and = _make_bitwise("bitwise_and", "bitwise_and", np.bitwise_and)
bitwise_or = _make_bitwise("bitwise_or", "bitwise_or", np.bitwise_or)
bitwise_xor = _make_bitwise("bitwise_xor", "bitwise_xor", np.bitwise_xor)


def _shift(a, b, rt, left):
    bits = rt.itemsize * 8
    b = np.asarray(b)
    bad = (b >= bits) if not rt.is_signed else ((b < 0) | (b >= bits))
    safe = np.where(bad, 0, b).astype(rt.np)
    if left:
        return np.where(bad, 0, np.left_shift(a, safe)).astype(rt.np)
    fill = np.right_shift(a, bits - 1) if rt.is_signed else np.zeros_like(a)
    return np.where(bad, fill, np.right_shift(a, safe)).astype(rt.np)


@register_op("bitwise_left_shift")
def bitwise_left_shift(input, other):
    """``bitwise_left_shift(input, other)`` (``torch.bitwise_left_shift``, ``<<``): integer
    tensors, wrapping in the result dtype; shifts < 0 or >= the bit width give 0.

    Raises:
        NotImplementedError: a floating or bool result dtype ('"lshift_cpu" not implemented
            for 'Float''). RuntimeError: shapes that do not broadcast.
    """
    a, b, rt = _prepare("bitwise_left_shift", "lshift", input, other, allow_bool=False)
    return _result(_shift(a, b, rt, True), rt)


@register_op("bitwise_right_shift")
def bitwise_right_shift(input, other):
    """``bitwise_right_shift(input, other)`` (``torch.bitwise_right_shift``, ``>>``):
    arithmetic shift for signed dtypes; shifts < 0 or >= the bit width give the sign fill
    (-1 for negative values, else 0).

    Raises:
        NotImplementedError: a floating or bool result dtype ('"rshift_cpu" not implemented
            for 'Float''). RuntimeError: shapes that do not broadcast.
    """
    a, b, rt = _prepare("bitwise_right_shift", "rshift", input, other, allow_bool=False)
    return _result(_shift(a, b, rt, False), rt)


@register_op("bitwise_not")
def bitwise_not(input):
    """``bitwise_not(input)`` (``torch.bitwise_not``, ``~``): logical NOT for bool, two's
    complement NOT for integers; same dtype.

    Raises:
        TypeError: ``input`` not a Tensor. NotImplementedError: a floating tensor
            ('"bitwise_not_cpu" not implemented for 'Float'').
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bitwise_not(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dtype.is_floating_point:
        raise _not_impl("bitwise_not", input.dtype)
    return _result(np.invert(input._data), input.dtype)


@register_op("logical_xor")
def logical_xor(input, other):
    """``logical_xor(input, other)`` (``torch.logical_xor``): bool tensor, True where exactly
    one operand is nonzero (in the promoted dtype, see ``compare.logical_operands``);
    broadcasting.

    Raises:
        TypeError: an operand that is not a Tensor (PyTorch takes no numbers here).
        RuntimeError: shapes that do not broadcast.
    """
    return _result(np.logical_xor(*logical_operands(input, other, "logical_xor")), _dt.bool_)


def _make_inplace(name, fn):
    def op(self, other):
        return run_inplace(self, fn, other)
    op.__name__ = name
    op.__doc__ = (f"In-place ``{name[:-1]}`` (``Tensor.{name}``): the result is written into "
                  "``self``.\n\n    Raises:\n        The errors of the out-of-place op; "
                  "RuntimeError: a result dtype ``self`` cannot hold (\"result type Long can't "
                  "be cast to the desired output type Bool\") or a broadcast shape other than "
                  "``self``'s.")
    return register_op(name, op)


bitwise_and_ = _make_inplace("bitwise_and_", bitwise_and)
bitwise_or_ = _make_inplace("bitwise_or_", bitwise_or)
bitwise_xor_ = _make_inplace("bitwise_xor_", bitwise_xor)
bitwise_left_shift_ = _make_inplace("bitwise_left_shift_", bitwise_left_shift)
bitwise_right_shift_ = _make_inplace("bitwise_right_shift_", bitwise_right_shift)


@register_op("bitwise_not_")
def bitwise_not_(self):
    """In-place ``bitwise_not`` (``Tensor.bitwise_not_``); errors of ``bitwise_not``."""
    return run_inplace(self, bitwise_not)
