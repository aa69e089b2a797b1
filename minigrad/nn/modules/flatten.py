"""Flattening modules: ``Flatten`` and ``Unflatten`` (``torch.nn.modules.flatten``: same
constructor arguments, checks and ``repr``); each forward is one view op."""
from __future__ import annotations

from ..module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims ``start_dim..end_dim`` into one (``torch.nn.Flatten``); shape (N, *) ->
    (N, prod(*)) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (``torch.nn.Unflatten``); forward is
    ``input.unflatten(dim, unflattened_size)`` (a view; one ``-1`` is inferred).

    Args:
        dim: the dim to split (an int; PyTorch's named-tensor form, a str dim with a tuple of
            (name, size) pairs, is not supported: a deliberate omission).
        unflattened_size: a tuple or list of ints whose product is the size of ``dim``.

    Shapes: input (*, S_dim, *) -> output (*, U_1, ..., U_n, *).

    Raises:
        TypeError: ``unflattened_size`` is not a tuple/list of ints (PyTorch's message).
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(elem).__name__} at pos {idx}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
