"""Reductions as torch-level functions (``torch.sum``, ``torch.mean``, ``torch.max``,
``torch.argmax``, ``torch.all``...): each is one ``dispatch`` call.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any"]


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (int, tuple, or None for all) (``torch.sum``); ``keepdim`` keeps
    reduced dims as size 1; integer/bool inputs sum to int64; ``dtype`` casts first.
    fp16/bf16 accumulate in fp32.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("sum", input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (``torch.mean``); floating (or complex) input or ``dtype``
    required; fp16/bf16 accumulate in fp32.

    Raises:
        RuntimeError: integer input without a floating ``dtype`` (PyTorch's message).
        IndexError: ``dim`` out of range.
    """
    return dispatch("mean", input, dim, keepdim, dtype=dtype)


def max(input, dim=None, keepdim=False):
    """``torch.max``: no ``dim`` -> the 0-dim maximum; with ``dim`` -> ``(values, indices)``
    namedtuple; with a Tensor second argument -> ``maximum``. nan propagates.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    if hasattr(dim, "dtype"):
        return dispatch("maximum", input, dim)
    return dispatch("max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """``torch.min``: no ``dim`` -> the 0-dim minimum; with ``dim`` -> ``(values,
    indices)``; with a Tensor second argument -> ``minimum``. nan propagates.

    Raises:
        RuntimeError: empty input without ``dim``.
        IndexError: ``dim`` out of range.
    """
    if hasattr(dim, "dtype"):
        return dispatch("minimum", input, dim)
    return dispatch("min", input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (default ``()`` = all dims) (``torch.amax``); values only;
    gradient shared evenly among ties.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    return dispatch("amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (default ``()`` = all dims) (``torch.amin``); values only;
    gradient shared evenly among ties.

    Raises:
        RuntimeError: empty input without ``dim`` (no identity).
        IndexError: ``dim`` out of range.
    """
    return dispatch("amin", input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """int64 index of the maximum (``torch.argmax``), over the flattened input when ``dim``
    is None; first occurrence on ties, nan counts as maximal.

    Raises:
        IndexError: empty input without ``dim``, or ``dim`` out of range.
    """
    return dispatch("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """int64 index of the minimum (``torch.argmin``), over the flattened input when ``dim``
    is None; first occurrence on ties.

    Raises:
        IndexError: empty input without ``dim``, or ``dim`` out of range.
    """
    return dispatch("argmin", input, dim, keepdim)


def all(input):
    """True if every element is nonzero (``torch.all``): a 0-dim bool tensor (uint8 input
    gives uint8)."""
    return dispatch("all", input)


def any(input):
    """True if some element is nonzero (``torch.any``): a 0-dim bool tensor (uint8 input
    gives uint8)."""
    return dispatch("any", input)
