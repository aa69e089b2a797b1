"""Functions about tensors themselves: ``torch.is_tensor``, ``torch.numel``, ``torch.clone``.
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["is_tensor", "numel", "clone"]


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
