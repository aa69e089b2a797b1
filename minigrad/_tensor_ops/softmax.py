"""``Tensor.softmax`` and ``Tensor.log_softmax`` (the ``softmax`` / ``log_softmax`` ops).
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch


def _dtype_arg(d, fname):
    return None if d is None else _dt.dtype_arg(d, fname)


class SoftmaxMixin:
    """Softmax methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.softmax``: the ``softmax`` op (its errors apply)."""
        return dispatch("softmax", self, dim, dtype=_dtype_arg(dtype, "softmax"))

    def log_softmax(self, dim, dtype=None):
        """Mirrors ``torch.Tensor.log_softmax``: the ``log_softmax`` op (its errors apply)."""
        return dispatch("log_softmax", self, dim, dtype=_dtype_arg(dtype, "log_softmax"))
