"""Comparisons as torch-level functions: elementwise (``torch.eq``... ``torch.isnan``) and
whole-tensor (``torch.isclose``, ``torch.allclose``, ``torch.equal``), the latter composed of
dispatched ops as PyTorch composes them.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor
from .. import dtypes as _dt

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "isfinite", "isnan", "isinf", "isclose", "allclose",
           "equal"]


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


def _close_checks(name, input, other, rtol, atol):
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_dt_name(input.dtype)} did not match {_dt_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _dt_name(d):
    return d.scalar_name


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``), or exactly
    equal (so equal infinities are close); NaNs are close to each other only when
    ``equal_nan``. Composed of dispatched ops as PyTorch composes it, so the tolerance
    arithmetic runs in the inputs' dtype (fp16 inputs: fp16 rounding), bool inputs in the
    default float dtype. Bool result of the broadcast shape; no gradient.

    Raises:
        TypeError: a non-Tensor operand. RuntimeError: different dtypes ("Float did not match
            Long"), a negative rtol/atol, shapes not broadcastable.
    """
    _close_checks("isclose", input, other, rtol, atol)
    close = dispatch("eq", input, other)
    if equal_nan and input.dtype.is_floating_point:
        close = dispatch("logical_or", close, dispatch("logical_and", dispatch("isnan", input),
                                                       dispatch("isnan", other)))
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if a.dtype is _dt.bool_:
        a = dispatch("_to_copy", a, dtype=_dt.get_default_dtype())
        b = dispatch("_to_copy", b, dtype=_dt.get_default_dtype())
    allowed = dispatch("add", dispatch("abs", dispatch("mul", b, rtol)), atol)
    actual = dispatch("abs", dispatch("sub", a, b))
    finite_close = dispatch("logical_and", dispatch("isfinite", actual),
                            dispatch("le", actual, allowed))
    return dispatch("logical_or", close, finite_close)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when ``isclose(input, other, rtol, atol, equal_nan)`` holds everywhere
    (``torch.allclose``); a Python bool.

    Raises:
        The errors of ``isclose``.
    """
    return bool(dispatch("all", isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input, other):
    """True when both tensors have the same shape and equal elements (``torch.equal``); dtypes
    are promoted for the comparison; NaN is never equal. A Python bool.

    Raises:
        TypeError: a non-Tensor operand.
    """
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"equal(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(dispatch("all", dispatch("eq", input, other)).item())
