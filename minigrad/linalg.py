"""``minigrad.linalg`` (mirrors ``torch.linalg``): only ``vector_norm`` so far."""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["vector_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of all elements of ``x`` (``torch.linalg.vector_norm``): ``ord`` any
    float, ``inf`` (max |x|), ``-inf`` (min |x|), 0 (count of non-zeros). Returns a 0-dim
    tensor of ``x``'s floating dtype (or ``dtype``); differentiable.

    Raises:
        RuntimeError: integer input; inf norm of an empty tensor.
        NotImplementedError: a ``dim`` other than None (deliberate limit for now).
    """
    return dispatch("linalg_vector_norm", x, ord, dim, keepdim, dtype=dtype)
