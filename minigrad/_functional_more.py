"""Top-level functional forms, continued: reductions, comparisons, shape and nn functions
(``torch.sum``, ``torch.eq``, ``torch.reshape``, ``torch.softmax``, ``torch.cat``...). Each is one
``dispatch`` call; see ``minigrad._functional`` for the arithmetic and linalg ones.
"""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any",
           "reshape", "transpose", "permute", "t", "unsqueeze", "squeeze", "flatten", "softmax",
           "log_softmax", "eq", "ne", "lt", "le", "gt", "ge", "isfinite", "isnan", "isinf",
           "clone", "where", "cat", "stack"]


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


def softmax(input, dim, dtype=None):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (``torch.softmax``); ``dtype``
    casts the input first; fp16/bf16 computed in fp32, rounded once.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("softmax", input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)`` along ``dim`` (``torch.log_softmax``); ``dtype`` casts the input
    first; fp16/bf16 computed in fp32.

    Raises:
        IndexError: ``dim`` out of range.
    """
    return dispatch("log_softmax", input, dim, dtype=dtype)


def eq(input, other):
    """Elementwise ``input == other`` (``torch.eq``), broadcasting; compared in the promoted
    dtype; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("eq", input, other)


def ne(input, other):
    """Elementwise ``input != other`` (``torch.ne``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("ne", input, other)


def lt(input, other):
    """Elementwise ``input < other`` (``torch.lt``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("lt", input, other)


def le(input, other):
    """Elementwise ``input <= other`` (``torch.le``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("le", input, other)


def gt(input, other):
    """Elementwise ``input > other`` (``torch.gt``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("gt", input, other)


def ge(input, other):
    """Elementwise ``input >= other`` (``torch.ge``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("ge", input, other)


def isfinite(input):
    """Bool tensor: True where ``input`` is neither inf nor nan (``torch.isfinite``);
    integer inputs are all True."""
    return dispatch("isfinite", input)


def isnan(input):
    """Bool tensor: True where ``input`` is nan (``torch.isnan``)."""
    return dispatch("isnan", input)


def isinf(input):
    """Bool tensor: True where ``input`` is +inf or -inf (``torch.isinf``)."""
    return dispatch("isinf", input)


def clone(input):
    """A copy of ``input`` with its own storage (``torch.clone``), differentiable
    (``CloneBackward0``)."""
    return dispatch("clone", input)


def where(condition, input, other):
    """Elementwise ``input if condition else other`` (``torch.where``), broadcasting all
    three; dtype by ``result_type(input, other)``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: ``condition`` is not bool ("where expected condition to be a boolean
            tensor").
    """
    return dispatch("where", condition, input, other)


def cat(tensors, dim=0):
    """Concatenate tensors along existing dim ``dim`` (``torch.cat``); dtypes promote; other
    dims must match.

    Raises:
        ValueError: empty sequence ("expected a non-empty list of Tensors").
        RuntimeError: sizes differ outside ``dim`` (PyTorch's message).
        IndexError: ``dim`` out of range.
        TypeError: ``tensors`` is not a sequence of Tensors.
    """
    return dispatch("cat", tensors, dim)


def stack(tensors, dim=0):
    """Stack same-shape tensors along a new dim ``dim`` (``torch.stack``); dtypes promote.

    Raises:
        RuntimeError: empty sequence or shapes differ ("stack expects each tensor to be
            equal size").
        IndexError: ``dim`` out of range.
    """
    return dispatch("stack", tensors, dim)
