"""Whole-tensor writes of ``Tensor``: ``zero_``, ``fill_``, ``copy_`` (each a dispatched op, so
a mode sees every write).
"""
from __future__ import annotations

from ..dispatch import dispatch


class WritesMixin:
    """Whole-tensor write methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def zero_(self):
        """Mirrors ``torch.Tensor.zero_``: the ``zero_`` op (its errors apply)."""
        return dispatch("zero_", self)

    def fill_(self, value):
        """Mirrors ``torch.Tensor.fill_``: the ``fill_`` op (its errors apply)."""
        return dispatch("fill_", self, value)

    def copy_(self, src, non_blocking: bool = False):
        """Mirrors ``torch.Tensor.copy_``: the ``copy_`` op (its errors apply);
        ``non_blocking`` changes nothing (every copy is finished when it returns)."""
        return dispatch("copy_", self, src)
