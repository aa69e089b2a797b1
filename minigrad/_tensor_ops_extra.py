"""More op methods of ``Tensor`` (``torch.Tensor``'s bitwise operators, closeness tests,
``new_*`` factories, ``masked_fill``/``where`` and ``split``/``chunk``/``unbind``).

A base of ``TensorOpsMixin``; each method is a ``dispatch`` call or the torch-level function of
``minigrad._functional_extra`` (imported on first use: that module imports ``Tensor``).
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .dispatch import dispatch

_NUM = (bool, int, float, np.number, np.bool_)


def _fx():
    from . import _functional_extra
    return _functional_extra


def _ok(other):
    """True for an operand the bitwise operators accept (else they return NotImplemented)."""
    return isinstance(other, _NUM) or isinstance(other, TensorExtraOpsMixin)


def _size_arg(size, name):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


class TensorExtraOpsMixin:
    """Methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    # ------------------------------------------------------------------ bitwise operators
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

    # ------------------------------------------------------------------ logical / sign
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

    def sign(self):
        """Mirrors ``torch.Tensor.sign``: the ``sign`` op (its errors apply)."""
        return dispatch("sign", self)

    # ------------------------------------------------------------------ closeness
    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Mirrors ``torch.Tensor.isclose``: ``minigrad.isclose`` (its errors apply)."""
        return _fx().isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Mirrors ``torch.Tensor.allclose``: ``minigrad.allclose`` (its errors apply)."""
        return _fx().allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other):
        """Mirrors ``torch.Tensor.equal``: ``minigrad.equal`` (its errors apply)."""
        return _fx().equal(self, other)

    # ------------------------------------------------------------------ new_* factories
    def _new_dtype(self, dtype):
        return self.dtype if dtype is None else _dt.as_dtype(dtype)

    # new_* put the result on ``self``'s device unless ``device`` is given, as PyTorch

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_zeros``: zeros of ``size`` with ``self``'s dtype unless
        ``dtype`` is given (the ``zeros`` op; its errors apply)."""
        return dispatch("zeros", _size_arg(size, "new_zeros"), dtype=self._new_dtype(dtype),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        """Mirrors ``torch.Tensor.new_ones``: ones with ``self``'s dtype by default (the
        ``ones`` op)."""
        return dispatch("ones", _size_arg(size, "new_ones"), dtype=self._new_dtype(dtype),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_empty``: an uninitialised tensor in PyTorch; minigrad
        zero-fills it for determinism (the ``zeros`` op)."""
        return dispatch("zeros", _size_arg(size, "new_empty"), dtype=self._new_dtype(dtype),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        """Mirrors ``torch.Tensor.new_full``: ``size`` filled with ``fill_value`` cast to
        ``self``'s dtype unless ``dtype`` is given (the ``full`` op).

        Raises:
            TypeError: ``size`` not a tuple/list of ints ("new_full(): argument 'size'
                (position 1) must be tuple of ints, not int").
        """
        if not isinstance(size, (tuple, list)):
            raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(size).__name__}")
        return dispatch("full", tuple(size), fill_value, dtype=self._new_dtype(dtype),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
        """Mirrors ``torch.Tensor.new_tensor``: a new leaf copied from ``data`` with ``self``'s
        dtype unless ``dtype`` is given (the ``tensor`` op). A Tensor ``data`` is copied
        detached, with PyTorch's UserWarning recommending ``detach().clone()``.

        Raises:
            The errors of the ``tensor`` op.
        """
        if isinstance(data, TensorExtraOpsMixin):
            _fx()._new_tensor_warning()
            data = data.detach()
        return dispatch("tensor", data, dtype=self._new_dtype(dtype),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    # ------------------------------------------------------------------ masking / splitting
    def masked_fill(self, mask, value):
        """Mirrors ``torch.Tensor.masked_fill``: ``minigrad.masked_fill`` (its errors apply)."""
        return _fx().masked_fill(self, mask, value)

    def where(self, condition, other):
        """Mirrors ``torch.Tensor.where``: ``where(condition, self, other)`` (the ``where`` op;
        its errors apply)."""
        return dispatch("where", condition, self, other)

    def split(self, split_size, dim=0):
        """Mirrors ``torch.Tensor.split``: ``minigrad.split`` (a tuple of views)."""
        return _fx().split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        """Mirrors ``torch.Tensor.chunk``: ``minigrad.chunk`` (a tuple of views)."""
        return _fx().chunk(self, chunks, dim)

    def unbind(self, dim=0):
        """Mirrors ``torch.Tensor.unbind``: ``minigrad.unbind`` (a tuple of views)."""
        return _fx().unbind(self, dim)
