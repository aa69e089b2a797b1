"""Distances and similarities as torch-level functions (``torch.cosine_similarity``,
``torch.pairwise_distance``) and ``torch.xlogy``: each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["cosine_similarity", "pairwise_distance", "xlogy"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine similarity along ``dim`` (``torch.cosine_similarity``); see the op.

    Raises:
        RuntimeError: integer inputs, shapes that do not broadcast.
    """
    return dispatch("cosine_similarity", x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim (``torch.pairwise_distance``)."""
    return dispatch("pairwise_distance", x1, x2, p, eps, keepdim)


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` (``torch.xlogy``): the ``xlogy`` op for
    two tensors, ``xlogy.Scalar_Self`` / ``xlogy.Scalar_Other`` for a Python number on either
    side (PyTorch's three overloads).

    Raises:
        TypeError: neither argument a Tensor.
    """
    from ..ops.distribution_loss import xlogy_op
    return dispatch(xlogy_op(input, other), input, other)
