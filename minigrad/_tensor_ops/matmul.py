"""Matrix-product methods of ``Tensor``: ``@`` (both sides), ``matmul``, ``mm``, ``addmm``.
"""
from __future__ import annotations

from ..dispatch import dispatch


class MatmulMixin:
    """Matrix-product methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def __matmul__(self, other):
        """``torch.Tensor.__matmul__``: the ``matmul`` op."""
        return dispatch("matmul", self, other)

    def __rmatmul__(self, other):
        """``torch.Tensor.__rmatmul__``: the ``matmul`` op."""
        return dispatch("matmul", other, self)

    def matmul(self, other):
        """Mirrors ``torch.Tensor.matmul``: the ``matmul`` op (its errors apply)."""
        return dispatch("matmul", self, other)

    def mm(self, mat2):
        """Mirrors ``torch.Tensor.mm``: the ``mm`` op (its errors apply)."""
        return dispatch("mm", self, mat2)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """Mirrors ``torch.Tensor.addmm``: the ``addmm`` op (its errors apply)."""
        return dispatch("addmm", self, mat1, mat2, beta=beta, alpha=alpha)
