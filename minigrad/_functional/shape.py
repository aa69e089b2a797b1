"""Shape views as torch-level functions (``torch.reshape``, ``transpose``, ``permute``, ``t``,
``unsqueeze``, ``squeeze``, ``flatten``): each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["reshape", "transpose", "permute", "t", "unsqueeze", "squeeze", "flatten"]


def reshape(input, shape):
    """``input`` with shape ``shape`` (``torch.reshape``): a view when possible, else a
    copy; one ``-1`` is inferred.

    Raises:
        RuntimeError: the element count does not match ("shape '[...]' is invalid for input
            of size N").
    """
    return dispatch("reshape", input, tuple(shape))


def transpose(input, dim0, dim1):
    """View with dims ``dim0`` and ``dim1`` swapped (``torch.transpose``).

    Raises:
        IndexError: a dim out of range.
    """
    return dispatch("transpose", input, dim0, dim1)


def permute(input, dims):
    """View with dims reordered by ``dims`` (``torch.permute``).

    Raises:
        RuntimeError: ``dims`` is not a permutation of the input's dims.
    """
    return dispatch("permute", input, tuple(dims))


def t(input):
    """Transpose of a tensor with <= 2 dims (``torch.t``); 0-D and 1-D are returned as is.

    Raises:
        RuntimeError: more than 2 dims.
    """
    return dispatch("t", input)


def unsqueeze(input, dim):
    """View with a size-1 dim inserted at ``dim`` (``torch.unsqueeze``); ``dim`` in
    ``[-ndim-1, ndim]``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("unsqueeze", input, dim)


def squeeze(input, dim=None):
    """View with size-1 dims removed (``torch.squeeze``): all of them, or only ``dim`` (int
    or tuple) when given.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("squeeze", input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); a view when possible;
    0-D gives shape (1,).

    Raises:
        IndexError: a dim out of range.
        RuntimeError: ``start_dim`` after ``end_dim``.
    """
    return dispatch("flatten", input, start_dim, end_dim)
