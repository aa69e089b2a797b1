"""``minigrad.autograd.Variable`` (``torch.autograd.Variable``): the pre-0.4 wrapper, kept as
PyTorch keeps it.

Since PyTorch 0.4 a Variable is a Tensor. ``Variable(t, requires_grad=True)`` returns a new leaf
sharing ``t``'s storage (``t.detach().requires_grad_(requires_grad)``), ``Variable()`` an empty
tensor, and ``isinstance(x, Variable)`` is True for every tensor. ``volatile`` has no effect and
warns, as in PyTorch.
"""
from __future__ import annotations

import warnings

__all__ = ["Variable"]


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` True for every minigrad tensor, as PyTorch's metaclass."""

    def __instancecheck__(cls, other):
        from ..tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: ``data`` detached (sharing its
    storage), with ``requires_grad`` set; an empty float32 tensor without ``data``.

    Raises:
        TypeError: ``data`` is not a tensor ("Variable data has to be a tensor, but got int").
        RuntimeError: ``requires_grad=True`` on an integer or bool tensor ("Only Tensors of
            floating point and complex dtype can require gradients").
    Warns:
        UserWarning: ``volatile=True`` ("volatile was removed and now has no effect...").
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from ..tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            from .. import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return data.detach().requires_grad_(bool(requires_grad))
