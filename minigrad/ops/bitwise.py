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
from .compare import logical_op
from .kernel import EXACT, KEEP_DTYPE
from .inplace import run_inplace



def _not_impl(kernel, dt):
    return NotImplementedError(f'"{kernel}_cpu" not implemented for '
                               f"'{dt.scalar_name}'")


def _integral(kernel, allow_bool=True):
    """The check every bitwise kernel starts with: an integral (or bool) result dtype."""
    def check(rt):
        if rt.is_floating_point or (rt is _dt.bool_ and not allow_bool):
            raise _not_impl(kernel, rt)
    return check


def _run(name, kernel, input, other):
    """Through the kernel base (rule ``EXACT``); a number ``input`` goes second there, and
    ``kernel(dtype, a, b)`` still receives ``(input, other)`` in that order."""
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return EXACT.run(lambda rt, b, a: kernel(rt, a, b), (other, input), op=name)
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return EXACT.run(kernel, (input, other), op=name)


def _make_bitwise(name, kernel, ufunc):
    check = _integral(kernel)

    def k(rt, a, b):
        check(rt)
        return ufunc(a, b)

    def op(input, other):
        return _run(name, k, input, other)
    op.rule = EXACT
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


_lshift_check = _integral("lshift", allow_bool=False)
_rshift_check = _integral("rshift", allow_bool=False)


def _lshift(rt, a, b):
    _lshift_check(rt)
    return _shift(a, b, rt, True)


def _rshift(rt, a, b):
    _rshift_check(rt)
    return _shift(a, b, rt, False)


@register_op("bitwise_left_shift")
def bitwise_left_shift(input, other):
    """``bitwise_left_shift(input, other)`` (``torch.bitwise_left_shift``, ``<<``): integer
    tensors, wrapping in the result dtype; shifts < 0 or >= the bit width give 0.

    Raises:
        NotImplementedError: a floating or bool result dtype ('"lshift_cpu" not implemented
            for 'Float''). RuntimeError: shapes that do not broadcast.
    """
    return _run("bitwise_left_shift", _lshift, input, other)


@register_op("bitwise_right_shift")
def bitwise_right_shift(input, other):
    """``bitwise_right_shift(input, other)`` (``torch.bitwise_right_shift``, ``>>``):
    arithmetic shift for signed dtypes; shifts < 0 or >= the bit width give the sign fill
    (-1 for negative values, else 0).

    Raises:
        NotImplementedError: a floating or bool result dtype ('"rshift_cpu" not implemented
            for 'Float''). RuntimeError: shapes that do not broadcast.
    """
    return _run("bitwise_right_shift", _rshift, input, other)


bitwise_left_shift.rule = bitwise_right_shift.rule = EXACT


@register_op("bitwise_not")
def bitwise_not(input):
    """``bitwise_not(input)`` (``torch.bitwise_not``, ``~``): logical NOT for bool, two's
    complement NOT for integers; same dtype.

    Raises:
        TypeError: ``input`` not a Tensor. NotImplementedError: a floating tensor
            ('"bitwise_not_cpu" not implemented for 'Float'').
    """
    return KEEP_DTYPE.run(_invert, (input,), op="bitwise_not")


_not_check = _integral("bitwise_not")


def _invert(rt, a):
    _not_check(rt)
    return np.invert(a)


bitwise_not.rule = KEEP_DTYPE


@register_op("logical_xor")
def logical_xor(input, other):
    """``logical_xor(input, other)`` (``torch.logical_xor``): bool tensor, True where exactly
    one operand is nonzero (in the promoted dtype, see ``compare.logical_op``);
    broadcasting.

    Raises:
        TypeError: an operand that is not a Tensor (PyTorch takes no numbers here).
        RuntimeError: shapes that do not broadcast.
    """
    return logical_op(np.logical_xor, input, other, "logical_xor")


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

