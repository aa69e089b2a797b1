"""PyTorch's alias functions (``torch.subtract`` is ``torch.sub``...) and ``select``: each calls
the op it names, so node names, numerics and errors are that op's (as in PyTorch, where the
alias dispatches to the same kernel)."""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["absolute", "negative", "positive", "multiply", "divide", "subtract", "true_divide",
           "greater", "greater_equal", "less", "less_equal", "not_equal", "ravel", "select"]


def absolute(input):
    """``torch.absolute``: ``abs``."""
    return dispatch("abs", input)


def negative(input):
    """``torch.negative``: ``neg``."""
    return dispatch("neg", input)


def positive(input):
    """``torch.positive``: ``input`` itself.

    Raises:
        RuntimeError: a bool tensor (PyTorch's message).
    """
    if input.dtype.name == "bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def multiply(input, other):
    """``torch.multiply``: ``mul``."""
    return dispatch("mul", input, other)


def divide(input, other, *, rounding_mode=None):
    """``torch.divide``: ``div`` (``rounding_mode`` None, "trunc" or "floor")."""
    return dispatch("div", input, other, rounding_mode=rounding_mode)


def true_divide(input, other):
    """``torch.true_divide``: ``div`` with ``rounding_mode=None``."""
    return dispatch("div", input, other)


def subtract(input, other, *, alpha=1):
    """``torch.subtract``: ``sub`` (``input - alpha * other``)."""
    return dispatch("sub", input, other, alpha=alpha)


def greater(input, other):
    """``torch.greater``: ``gt``."""
    return dispatch("gt", input, other)


def greater_equal(input, other):
    """``torch.greater_equal``: ``ge``."""
    return dispatch("ge", input, other)


def less(input, other):
    """``torch.less``: ``lt``."""
    return dispatch("lt", input, other)


def less_equal(input, other):
    """``torch.less_equal``: ``le``."""
    return dispatch("le", input, other)


def not_equal(input, other):
    """``torch.not_equal``: ``ne``."""
    return dispatch("ne", input, other)


def ravel(input):
    """``torch.ravel``: ``reshape(-1)`` (a view when possible, else a copy)."""
    return input.reshape(-1)


def select(input, dim, index):
    """The slice of ``input`` at ``index`` along ``dim`` (``torch.select``): a view without
    that dim, node ``SelectBackward0``.

    Raises:
        IndexError: ``dim`` out of range (the dim-wrapping message); ``index`` out of range
            ("select(): index 5 out of range for tensor of size [3, 4] at dimension 0").
    """
    from ..ops._util import wrap_dim
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return input[(slice(None),) * d + (index,)]
