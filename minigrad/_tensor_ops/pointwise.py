"""Pointwise arithmetic and math methods of ``Tensor``: the Python operators ``+ - * / ** // %``,
unary ``- + abs()``, their in-place forms (``+=``...), and ``add``, ``exp``, ``clamp``, ``relu``...
with their in-place variants. Each is one ``dispatch`` call (the binary operators: ``dispatch2``,
its two-argument form, through its table ``OPERATOR2``: no frame of its own).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import OPERATOR2, dispatch, use_operator2


_ND = np.ndarray
use_operator2("add", "sub", "rsub", "mul", "div", "rdiv", "pow", "rpow", "floor_divide",
              "remainder")


def _nd(other):
    """An ``ndarray`` operand of a Python operator as a Tensor of its own dtype (as PyTorch's
    ``t * ndarray``); NumPy defers to us (``Tensor.__array_ufunc__ = None``), so ``ndarray * t``
    is a Tensor too (PyTorch 2.13 raises TypeError for ``ndarray`` +, -, * ``Tensor`` but
    returns a Tensor for ``/``: a deliberate difference, all four return a Tensor here)."""
    if isinstance(other, np.ndarray):
        from .._functional.factories import as_tensor
        return as_tensor(other)
    return other


def _not_implemented(other):
    """What a Python operator returns when its op raised TypeError: ``NotImplemented`` for an
    operand that is no Tensor, number or ndarray (PyTorch's ``TypeError_to_NotImplemented_``),
    so that Python tries the other operand and then raises its own message ("unsupported
    operand type(s) for +: 'Tensor' and 'str'"; ``"a" + t``: "can only concatenate str (not
    "Tensor") to str"). The op's own TypeError stands for a proper operand (called from the
    ``except`` block: the bare ``raise`` re-raises it)."""
    if isinstance(other, (PointwiseMixin, bool, int, float, complex, np.number, np.bool_, _ND)):
        raise        # noqa: PLE0704 -- the TypeError being handled by the caller
    return NotImplemented


class PointwiseMixin:
    """Pointwise math methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __add__(self, other):
        """``torch.Tensor.__add__``: the ``add`` op."""
        try:
            return OPERATOR2["add"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __radd__(self, other):
        """``torch.Tensor.__radd__``: the ``add`` op."""
        try:
            return OPERATOR2["add"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __sub__(self, other):
        """``torch.Tensor.__sub__``: the ``sub`` op."""
        try:
            return OPERATOR2["sub"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rsub__(self, other):
        """``torch.Tensor.__rsub__``: the ``rsub`` op."""
        try:
            return OPERATOR2["rsub"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __mul__(self, other):
        """``torch.Tensor.__mul__``: the ``mul`` op."""
        try:
            return OPERATOR2["mul"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rmul__(self, other):
        """``torch.Tensor.__rmul__``: the ``mul`` op."""
        try:
            return OPERATOR2["mul"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __truediv__(self, other):
        """``torch.Tensor.__truediv__``: the ``div`` op."""
        try:
            return OPERATOR2["div"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rtruediv__(self, other):
        """``torch.Tensor.__rtruediv__``: the ``rdiv`` op."""
        try:
            return OPERATOR2["rdiv"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __pow__(self, other):
        """``torch.Tensor.__pow__``: the ``pow`` op."""
        try:
            return OPERATOR2["pow"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rpow__(self, other):
        """``torch.Tensor.__rpow__``: the ``rpow`` op."""
        try:
            return OPERATOR2["rpow"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __floordiv__(self, other):
        """``torch.Tensor.__floordiv__``: the ``floor_divide`` op (no derivative, as PyTorch)."""
        try:
            return OPERATOR2["floor_divide"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rfloordiv__(self, other):
        """``torch.Tensor.__rfloordiv__``: the ``floor_divide`` op."""
        try:
            return dispatch("floor_divide", _nd(other), self)
        except TypeError:
            return _not_implemented(other)

    def __mod__(self, other):
        """``torch.Tensor.__mod__``: the ``remainder`` op (Python's sign convention)."""
        try:
            return OPERATOR2["remainder"](self, other if type(other) is not _ND else _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __rmod__(self, other):
        """``torch.Tensor.__rmod__``: the ``remainder`` op with a number ``other``."""
        try:
            return dispatch("remainder", _nd(other), self)
        except TypeError:
            return _not_implemented(other)

    def remainder(self, other):
        """Mirrors ``torch.Tensor.remainder``: the ``remainder`` op (its errors apply)."""
        return dispatch("remainder", self, other)

    def fmod(self, other):
        """Mirrors ``torch.Tensor.fmod``: the ``fmod`` op (its errors apply)."""
        return dispatch("fmod", self, other)

    def floor_divide(self, other):
        """Mirrors ``torch.Tensor.floor_divide``: the ``floor_divide`` op."""
        return dispatch("floor_divide", self, other)

    def __neg__(self):
        """``torch.Tensor.__neg__``: the ``neg`` op."""
        return dispatch("neg", self)

    def __pos__(self):
        """Mirrors ``torch.Tensor.__pos__``."""
        return self

    def __abs__(self):
        """``torch.Tensor.__abs__``: the ``abs`` op."""
        return dispatch("abs", self)

    def __iadd__(self, other):
        """``torch.Tensor.__iadd__``: the ``add_`` op."""
        try:
            return dispatch("add_", self, other)
        except TypeError:
            return _not_implemented(other)

    def __isub__(self, other):
        """``torch.Tensor.__isub__``: the ``sub_`` op."""
        try:
            return dispatch("sub_", self, other)
        except TypeError:
            return _not_implemented(other)

    def __imul__(self, other):
        """``torch.Tensor.__imul__``: the ``mul_`` op."""
        try:
            return dispatch("mul_", self, other)
        except TypeError:
            return _not_implemented(other)

    def __itruediv__(self, other):
        """``torch.Tensor.__itruediv__``: the ``div_`` op."""
        try:
            return dispatch("div_", self, other)
        except TypeError:
            return _not_implemented(other)

    def add(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add``: the ``add`` op (its errors apply)."""
        return dispatch("add", self, other, alpha=alpha)

    def sub(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub``: the ``sub`` op (its errors apply)."""
        return dispatch("sub", self, other, alpha=alpha)

    def mul(self, other):
        """Mirrors ``torch.Tensor.mul``: the ``mul`` op (its errors apply)."""
        return dispatch("mul", self, other)

    def div(self, other, rounding_mode=None):
        """Mirrors ``torch.Tensor.div``: the ``div`` op (its errors apply)."""
        return dispatch("div", self, other, rounding_mode=rounding_mode)

    def add_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.add_``: the ``add_`` op (its errors apply)."""
        return dispatch("add_", self, other, alpha=alpha)

    def sub_(self, other, alpha=1):
        """Mirrors ``torch.Tensor.sub_``: the ``sub_`` op (its errors apply)."""
        return dispatch("sub_", self, other, alpha=alpha)

    def mul_(self, other):
        """Mirrors ``torch.Tensor.mul_``: the ``mul_`` op (its errors apply)."""
        return dispatch("mul_", self, other)

    def div_(self, other, *, rounding_mode=None):
        """Mirrors ``torch.Tensor.div_``: the ``div_`` op (its errors apply)."""
        return dispatch("div_", self, other, rounding_mode=rounding_mode)

    def clamp_(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp_``: the ``clamp_`` op (its errors apply)."""
        return dispatch("clamp_", self, min, max)

    def relu_(self):
        """Mirrors ``torch.Tensor.relu_``: the ``relu_`` op (its errors apply)."""
        return dispatch("relu_", self)

    def sigmoid_(self):
        """Mirrors ``torch.Tensor.sigmoid_``: the ``sigmoid_`` op (its errors apply)."""
        return dispatch("sigmoid_", self)

    def tanh_(self):
        """Mirrors ``torch.Tensor.tanh_``: the ``tanh_`` op (its errors apply)."""
        return dispatch("tanh_", self)

    def reciprocal(self):
        """Mirrors ``torch.Tensor.reciprocal``: the ``reciprocal`` op (its errors apply)."""
        return dispatch("reciprocal", self)

    def neg(self):
        """Mirrors ``torch.Tensor.neg``: the ``neg`` op (its errors apply)."""
        return dispatch("neg", self)

    def pow(self, exponent):
        """Mirrors ``torch.Tensor.pow``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, exponent)

    def exp(self):
        """Mirrors ``torch.Tensor.exp``: the ``exp`` op (its errors apply)."""
        return dispatch("exp", self)

    def log(self):
        """Mirrors ``torch.Tensor.log``: the ``log`` op (its errors apply)."""
        return dispatch("log", self)

    def sqrt(self):
        """Mirrors ``torch.Tensor.sqrt``: the ``sqrt`` op (its errors apply)."""
        return dispatch("sqrt", self)

    def abs(self):
        """Mirrors ``torch.Tensor.abs``: the ``abs`` op (its errors apply)."""
        return dispatch("abs", self)

    def maximum(self, other):
        """Mirrors ``torch.Tensor.maximum``: the ``maximum`` op (its errors apply)."""
        return dispatch("maximum", self, other)

    def minimum(self, other):
        """Mirrors ``torch.Tensor.minimum``: the ``minimum`` op (its errors apply)."""
        return dispatch("minimum", self, other)

    def fmax(self, other):
        """Mirrors ``torch.Tensor.fmax``: the ``fmax`` op (NaN ignored; its errors apply)."""
        return dispatch("fmax", self, other)

    def fmin(self, other):
        """Mirrors ``torch.Tensor.fmin``: the ``fmin`` op (NaN ignored; its errors apply)."""
        return dispatch("fmin", self, other)

    def clamp(self, min=None, max=None):
        """Mirrors ``torch.Tensor.clamp``: the ``clamp`` op (its errors apply)."""
        return dispatch("clamp", self, min, max)

    clip = clamp

    def tanh(self):
        """Mirrors ``torch.Tensor.tanh``: the ``tanh`` op (its errors apply)."""
        return dispatch("tanh", self)

    def sigmoid(self):
        """Mirrors ``torch.Tensor.sigmoid``: the ``sigmoid`` op (its errors apply)."""
        return dispatch("sigmoid", self)

    def relu(self):
        """Mirrors ``torch.Tensor.relu``: the ``relu`` op (its errors apply)."""
        return dispatch("relu", self)

    def square(self):
        """Mirrors ``torch.Tensor.square``: the ``pow`` op (its errors apply)."""
        return dispatch("pow", self, 2)

    def sign(self):
        """Mirrors ``torch.Tensor.sign``: the ``sign`` op (its errors apply)."""
        return dispatch("sign", self)
