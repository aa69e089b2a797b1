"""Matrix-product methods of ``Tensor``: ``@`` (both sides), ``matmul``, ``mm``, ``bmm``,
``mv``, ``dot``, ``inner``, ``addmm``, ``baddbmm``, ``addbmm``, ``addmv``, ``addr``,
``outer``/``ger``.
"""
from __future__ import annotations

from ..dispatch import dispatch
from .pointwise import _not_implemented


class MatmulMixin:
    """Matrix-product methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __matmul__(self, other):
        """``torch.Tensor.__matmul__``: the ``matmul`` op."""
        try:
            return dispatch("matmul", self, other)
        except TypeError:
            return _not_implemented(other)

    def __rmatmul__(self, other):
        """``torch.Tensor.__rmatmul__``: the ``matmul`` op."""
        try:
            return dispatch("matmul", other, self)
        except TypeError:
            return _not_implemented(other)

    def matmul(self, other):
        """Mirrors ``torch.Tensor.matmul``: the ``matmul`` op (its errors apply)."""
        return dispatch("matmul", self, other)

    def mm(self, mat2):
        """Mirrors ``torch.Tensor.mm``: the ``mm`` op (its errors apply)."""
        return dispatch("mm", self, mat2)

    def bmm(self, mat2):
        """Mirrors ``torch.Tensor.bmm``: the ``bmm`` op (its errors apply)."""
        return dispatch("bmm", self, mat2)

    def mv(self, vec):
        """Mirrors ``torch.Tensor.mv``: the ``mv`` op (its errors apply)."""
        return dispatch("mv", self, vec)

    def dot(self, other):
        """Mirrors ``torch.Tensor.dot``: the ``dot`` op (its errors apply)."""
        return dispatch("dot", self, other)

    def inner(self, other):
        """Mirrors ``torch.Tensor.inner``: ``minigrad.inner``."""
        from .._functional.matmul import inner
        return inner(self, other)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addmm``: the ``addmm`` op (its errors apply)."""
        return dispatch("addmm", self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.baddbmm``: the ``baddbmm`` op (its errors apply)."""
        return dispatch("baddbmm", self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addbmm``: the ``addbmm`` op (its errors apply)."""
        return dispatch("addbmm", self, batch1, batch2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addmv``: the ``addmv`` op (its errors apply)."""
        return dispatch("addmv", self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addr``: the ``addr`` op (its errors apply)."""
        return dispatch("addr", self, vec1, vec2, beta=beta, alpha=alpha)

    def outer(self, vec2):
        """Mirrors ``torch.Tensor.outer``: the ``outer`` op (its errors apply)."""
        return dispatch("outer", self, vec2)

    def ger(self, vec2):
        """Mirrors ``torch.Tensor.ger`` (alias of ``outer``)."""
        return dispatch("outer", self, vec2)
