"""Comparison methods of ``Tensor``: the operators ``== != < <= > >=``, ``eq``... ``isnan``,
and the whole-tensor tests ``isclose``, ``allclose``, ``equal`` (``minigrad.isclose``...).
"""
from __future__ import annotations

import numpy as np

from ..dispatch import dispatch
from .pointwise import _nd, _not_implemented

_NUMBER = (bool, int, float, np.number, np.bool_)


def _fns():
    """``minigrad._functional.comparison``, imported on first use (it imports ``Tensor``,
    which inherits this mixin)."""
    from .._functional import comparison
    return comparison


class ComparisonMixin:
    """Comparison methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __eq__(self, other):
        """``torch.Tensor.__eq__``: the ``eq`` op; an ndarray is taken as a tensor of its
        dtype, and another object gives ``NotImplemented`` (so ``t == None`` is
        False, as in PyTorch)."""
        other = _nd(other)
        if not isinstance(other, (ComparisonMixin,) + _NUMBER):
            return NotImplemented
        return dispatch("eq", self, other)

    def __contains__(self, element):
        """``element in t`` as ``torch.Tensor.__contains__``: whether ``element == t`` is True
        anywhere (broadcast; so a row tensor is found elementwise), not Python's walk over
        ``t``'s first dim (whose ``bool`` of a row would raise).

        Raises:
            RuntimeError: ``element`` neither a Tensor nor a number (PyTorch's message).
        """
        if not isinstance(element, (ComparisonMixin,) + _NUMBER):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool(dispatch("any", dispatch("eq", self, element)).item())

    def __ne__(self, other):
        """``torch.Tensor.__ne__``: the ``ne`` op for a Tensor or number; another object (an
        ndarray too: PyTorch 2.13's quirk, mirrored) gives ``NotImplemented``, so ``t != None``
        is True."""
        if not isinstance(other, (ComparisonMixin,) + _NUMBER):
            return NotImplemented
        return dispatch("ne", self, other)

    def __lt__(self, other):
        """``torch.Tensor.__lt__``: the ``lt`` op (an ndarray is taken as a tensor)."""
        try:
            return dispatch("lt", self, _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __le__(self, other):
        """``torch.Tensor.__le__``: the ``le`` op (an ndarray is taken as a tensor)."""
        try:
            return dispatch("le", self, _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __gt__(self, other):
        """``torch.Tensor.__gt__``: the ``gt`` op (an ndarray is taken as a tensor)."""
        try:
            return dispatch("gt", self, _nd(other))
        except TypeError:
            return _not_implemented(other)

    def __ge__(self, other):
        """``torch.Tensor.__ge__``: the ``ge`` op (an ndarray is taken as a tensor)."""
        try:
            return dispatch("ge", self, _nd(other))
        except TypeError:
            return _not_implemented(other)

    def eq(self, other):
        """Mirrors ``torch.Tensor.eq``: the ``eq`` op (its errors apply)."""
        return dispatch("eq", self, other)

    def ne(self, other):
        """Mirrors ``torch.Tensor.ne``: the ``ne`` op (its errors apply)."""
        return dispatch("ne", self, other)

    def lt(self, other):
        """Mirrors ``torch.Tensor.lt``: the ``lt`` op (its errors apply)."""
        return dispatch("lt", self, other)

    def le(self, other):
        """Mirrors ``torch.Tensor.le``: the ``le`` op (its errors apply)."""
        return dispatch("le", self, other)

    def gt(self, other):
        """Mirrors ``torch.Tensor.gt``: the ``gt`` op (its errors apply)."""
        return dispatch("gt", self, other)

    def ge(self, other):
        """Mirrors ``torch.Tensor.ge``: the ``ge`` op (its errors apply)."""
        return dispatch("ge", self, other)

    def isfinite(self):
        """Mirrors ``torch.Tensor.isfinite``: the ``isfinite`` op (its errors apply)."""
        return dispatch("isfinite", self)

    def isnan(self):
        """Mirrors ``torch.Tensor.isnan``: the ``isnan`` op (its errors apply)."""
        return dispatch("isnan", self)

    def isinf(self):
        """Mirrors ``torch.Tensor.isinf``: the ``isinf`` op (its errors apply)."""
        return dispatch("isinf", self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Mirrors ``torch.Tensor.isclose``: ``minigrad.isclose`` (its errors apply)."""
        return _fns().isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Mirrors ``torch.Tensor.allclose``: ``minigrad.allclose`` (its errors apply)."""
        return _fns().allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other):
        """Mirrors ``torch.Tensor.equal``: ``minigrad.equal`` (its errors apply)."""
        return _fns().equal(self, other)
