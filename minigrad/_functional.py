"""Top-level functional forms (``torch.add``, ``torch.exp``...): each is one ``dispatch`` call.

Every function mirrors the torch function of the same name and signature.
"""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "abs", "maximum",
           "minimum", "clamp", "clip", "tanh", "sigmoid", "relu", "matmul", "mm", "bmm", "mv", "dot", "addmm", "sum",
           "mean", "max", "min", "amax", "amin", "argmax", "argmin", "reshape", "transpose",
           "permute", "t", "unsqueeze", "squeeze", "flatten", "softmax", "log_softmax", "eq",
           "ne", "lt", "le", "gt", "ge", "isfinite", "isnan", "isinf", "clone", "where", "cat",
           "stack", "square", "all", "any", "rsub", "reciprocal", "sign", "logical_not",
           "logical_and", "logical_or"]


def add(input, other, *, alpha=1):
    """``input + alpha * other`` (``torch.add``), broadcasting; result dtype by
    ``result_type`` (weak Python scalars). Computed in opmath (fp32 for fp16/bf16), rounded
    once; a scalar ``other``/``alpha`` is rounded to a 16-bit dtype first, as PyTorch does.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: bool tensors with a non-bool ``alpha``; TypeError: ``alpha`` not a
            number.
    """
    return dispatch("add", input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (``torch.sub``), broadcasting; dtype and rounding as
    ``add``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: bool operands ("Subtraction, the `-` operator, with two bool tensors
            is not supported").
    """
    return dispatch("sub", input, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``torch.rsub``); dtype and rounding as ``sub``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("rsub", input, other, alpha=alpha)


def reciprocal(input):
    """``1 / input`` elementwise (``torch.reciprocal``); integer/bool inputs give the
    default float dtype."""
    return dispatch("reciprocal", input)


def sign(input):
    """-1, 0 or 1 elementwise (``torch.sign``), same dtype as ``input`` (nan stays nan)."""
    return dispatch("sign", input)


def logical_not(input):
    """Elementwise NOT (``torch.logical_not``): a bool tensor of ``input``'s shape (nonzero
    -> False)."""
    return dispatch("logical_not", input)


def logical_and(input, other):
    """Elementwise AND of the truth values (``torch.logical_and``), broadcasting; bool
    result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("logical_and", input, other)


def logical_or(input, other):
    """Elementwise OR of the truth values (``torch.logical_or``), broadcasting; bool result.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("logical_or", input, other)


def mul(input, other):
    """``input * other`` (``torch.mul``), broadcasting; dtype by ``result_type``; fp16/bf16
    computed in fp32 and rounded once (a Python scalar is used in fp32).

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
    """
    return dispatch("mul", input, other)


def div(input, other, *, rounding_mode=None):
    """``input / other`` (``torch.div``), broadcasting. ``rounding_mode`` None (true
    division; integer inputs give the default float dtype), ``"trunc"`` or ``"floor"`` (keep
    the integer dtype).

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: integer ``"trunc"``/``"floor"`` division by zero ("ZeroDivisionError"),
            or an unknown ``rounding_mode``.
    """
    return dispatch("div", input, other, rounding_mode=rounding_mode)


def neg(input):
    """``-input`` elementwise (``torch.neg``), same shape and dtype.

    Raises:
        RuntimeError: bool input ("Negation, the `-` operator, on a bool tensor is not
            supported").
    """
    return dispatch("neg", input)


def pow(input, exponent):
    """``input ** exponent`` (``torch.pow``): Tensor/scalar in either position (a scalar
    base dispatches ``rpow``), broadcasting; dtype by ``result_type``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: integer tensor to a negative integer power ("Integers to negative
            integer powers are not allowed.").
    """
    if not hasattr(input, "dtype"):
        return dispatch("rpow", exponent, input)
    return dispatch("pow", input, exponent)


def exp(input):
    """``e ** input`` elementwise (``torch.exp``); integer/bool inputs give the default
    float dtype; overflow gives inf (no warning)."""
    return dispatch("exp", input)


def log(input):
    """Natural logarithm elementwise (``torch.log``); integer inputs give the default float
    dtype; ``log(0) = -inf``, negative -> nan (no warning)."""
    return dispatch("log", input)


def sqrt(input):
    """Square root elementwise (``torch.sqrt``); integer inputs give the default float
    dtype; negative -> nan."""
    return dispatch("sqrt", input)


def square(input):
    """``input ** 2`` (``torch.square``, i.e. ``pow(input, 2)``); same dtype (bool -> int64
    as PyTorch)."""
    return dispatch("pow", input, 2)


def abs(input):
    """Absolute value elementwise (``torch.abs``), same dtype."""
    return dispatch("abs", input)


def maximum(input, other):
    """Elementwise maximum of two tensors (``torch.maximum``), broadcasting, nan-
    propagating; dtype by ``promote_types``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        TypeError: ``other`` not a Tensor.
    """
    return dispatch("maximum", input, other)


def minimum(input, other):
    """Elementwise minimum of two tensors (``torch.minimum``), broadcasting, nan-
    propagating; dtype by ``promote_types``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        TypeError: ``other`` not a Tensor.
    """
    return dispatch("minimum", input, other)


def clamp(input, min=None, max=None):
    """Clamp ``input`` into ``[min, max]`` (``torch.clamp``/``torch.clip``); ``min``/``max``
    are scalars, Tensors (broadcast) or None; ``min > max`` gives ``max`` as in PyTorch.

    Raises:
        RuntimeError: both ``min`` and ``max`` are None ("torch.clamp: At least one of 'min'
            or 'max' must not be None").
    """
    return dispatch("clamp", input, min, max)


clip = clamp


def tanh(input):
    """Hyperbolic tangent elementwise (``torch.tanh``); integer inputs give the default
    float dtype."""
    return dispatch("tanh", input)


def sigmoid(input):
    """``1 / (1 + exp(-input))`` elementwise (``torch.sigmoid``); integer inputs give the
    default float dtype."""
    return dispatch("sigmoid", input)


def relu(input):
    """``max(input, 0)`` elementwise (``torch.relu``), same dtype.

    Raises:
        RuntimeError: bool input.
    """
    return dispatch("relu", input)


def matmul(input, other):
    """Matrix product with NumPy/PyTorch broadcasting rules (``torch.matmul``): 1-D x 1-D
    dot, 2-D mm, batched for >2-D; fp16/bf16 accumulate in fp32.

    Raises:
        RuntimeError: size mismatch of the contracted dims or mismatched dtypes (PyTorch's
            messages).
    """
    return dispatch("matmul", input, other)


def mm(input, mat2):
    """``(n, m) @ (m, p) -> (n, p)`` (``torch.mm``); both 2-D, same dtype.

    Raises:
        RuntimeError: not 2-D, inner sizes differ, or dtypes differ.
    """
    return dispatch("mm", input, mat2)


def bmm(input, mat2):
    """Batched ``(b, n, m) @ (b, m, p) -> (b, n, p)`` (``torch.bmm``); both 3-D, same dtype,
    no broadcasting.

    Raises:
        RuntimeError: not 3-D, batch or inner sizes differ, or dtypes differ.
    """
    return dispatch("bmm", input, mat2)


def mv(input, vec):
    """``(n, m) @ (m,) -> (n,)`` (``torch.mv``).

    Raises:
        RuntimeError: wrong dims, size mismatch, or dtypes differ.
    """
    return dispatch("mv", input, vec)


def dot(input, other):
    """Inner product of two 1-D tensors of equal length and dtype (``torch.dot``), a 0-dim
    tensor.

    Raises:
        RuntimeError: not 1-D, lengths differ, or dtypes differ.
    """
    return dispatch("dot", input, other)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); ``input`` broadcasts to
    ``(n, p)``; fp16/bf16 accumulate in fp32 and round once.

    Raises:
        RuntimeError: shape or dtype mismatch (PyTorch's messages).
    """
    return dispatch("addmm", input, mat1, mat2, beta=beta, alpha=alpha)


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
