"""Pointwise arithmetic and math as torch-level functions (``torch.add``, ``torch.exp``,
``torch.clamp``, ``torch.relu``...): each is one ``dispatch`` call of the op of the same name.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["remainder", "fmod", "floor_divide", "add", "sub", "rsub", "mul", "div", "neg", "reciprocal", "sign", "pow", "exp", "log",
           "sqrt", "square", "abs", "maximum", "minimum", "fmax", "fmin", "clamp", "tanh", "sigmoid", "relu",
           "clip"]


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

    A Python number as ``input`` is accepted, as PyTorch does: it becomes a tensor of the
    result dtype, as in ``floor_divide``.
    """
    if isinstance(input, (int, float)) and not isinstance(input, bool) \
            and isinstance(other, Tensor):
        from .. import dtypes as _dt
        input = dispatch("full_like", other, input, dtype=_dt.result_type(input, other))
    return dispatch("div", input, other, rounding_mode=rounding_mode)


def neg(input):
    """``-input`` elementwise (``torch.neg``), same shape and dtype.

    Raises:
        RuntimeError: bool input ("Negation, the `-` operator, on a bool tensor is not
            supported").
    """
    return dispatch("neg", input)


def reciprocal(input):
    """``1 / input`` elementwise (``torch.reciprocal``); integer/bool inputs give the
    default float dtype."""
    return dispatch("reciprocal", input)


def sign(input):
    """-1, 0 or 1 elementwise (``torch.sign``), same dtype as ``input`` (nan stays nan)."""
    return dispatch("sign", input)


def pow(input, exponent):
    """``input ** exponent`` (``torch.pow``): Tensor/scalar in either position (the ``pow``
    packet picks ``pow.Tensor_Tensor``, ``pow.Tensor_Scalar`` or ``pow.Scalar``), broadcasting;
    dtype by ``result_type``.

    Raises:
        RuntimeError: shapes not broadcastable (PyTorch's message naming both sizes).
        RuntimeError: integer tensor to a negative integer power ("Integers to negative
            integer powers are not allowed.").
    """
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


def remainder(input, other):
    """Python's ``%`` elementwise (``torch.remainder``): the ``remainder`` op."""
    return dispatch("remainder", input, other)


def fmod(input, other):
    """C's ``fmod`` elementwise (``torch.fmod``): the ``fmod`` op."""
    return dispatch("fmod", input, other)


def floor_divide(input, other):
    """Python's ``//`` elementwise (``torch.floor_divide``): the ``floor_divide`` op."""
    return dispatch("floor_divide", input, other)


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


def fmax(input, other):
    """Elementwise maximum ignoring NaN (``torch.fmax``): a NaN loses to a number, two NaNs give
    NaN; broadcasting, dtype by ``promote_types``; the ``fmax`` op (its errors apply)."""
    return dispatch("fmax", input, other)


def fmin(input, other):
    """Elementwise minimum ignoring NaN (``torch.fmin``); see ``fmax``."""
    return dispatch("fmin", input, other)


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
