"""Functions about tensors themselves: ``torch.is_tensor``, ``torch.numel``, ``torch.clone``,
``torch.is_floating_point``, ``torch.is_nonzero``, and about dtypes: ``torch.can_cast``.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["is_tensor", "numel", "clone", "is_floating_point", "is_complex", "is_nonzero",
           "can_cast"]


def is_tensor(obj):
    """True when ``obj`` is a minigrad Tensor (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of ``input`` (``torch.numel``).

    Raises:
        TypeError: ``input`` not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.numel()


def clone(input):
    """A copy of ``input`` with its own storage (``torch.clone``), differentiable
    (``CloneBackward0``)."""
    return dispatch("clone", input)


def is_floating_point(input):
    """True if ``input``'s dtype is a floating type (``torch.is_floating_point``).

    Raises:
        TypeError: ``input`` not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError("is_floating_point(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_floating_point()


def is_complex(input):
    """False: minigrad has no complex dtypes (``torch.is_complex``).

    Raises:
        TypeError: ``input`` not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError("is_complex(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_complex()


def is_nonzero(input):
    """The truth value of a one-element tensor (``torch.is_nonzero``).

    Raises:
        RuntimeError: no element or more than one (PyTorch's messages).
    """
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def can_cast(from_, to):
    """Whether PyTorch's type promotion lets ``from_`` be cast to ``to`` (``torch.can_cast``):
    not a floating type to an integral one, and nothing but bool to bool."""
    from .. import dtypes as _dt
    a, b = _dt.as_dtype(from_), _dt.as_dtype(to)
    if a.is_floating_point and not b.is_floating_point:
        return False
    return not (a is not _dt.bool_ and b is _dt.bool_)
