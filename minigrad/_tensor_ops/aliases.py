"""PyTorch's alias methods of ``Tensor`` (``t.subtract`` is ``t.sub``...), ``select`` and the
small queries scripts call (``ndimension``, ``is_signed``, ``is_same_size``...)."""
from __future__ import annotations



def _fn(name):
    from .._functional import aliases     # imported on use: _functional imports Tensor
    return getattr(aliases, name)

__all__ = ["AliasesMixin"]


class AliasesMixin:
    """Alias methods (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def absolute(self):
        """Mirrors ``torch.Tensor.absolute``: ``abs``."""
        return _fn("absolute")(self)

    def negative(self):
        """Mirrors ``torch.Tensor.negative``: ``neg``."""
        return _fn("negative")(self)

    def positive(self):
        """Mirrors ``torch.Tensor.positive``."""
        return _fn("positive")(self)

    def multiply(self, other):
        """Mirrors ``torch.Tensor.multiply``: ``mul``."""
        return _fn("multiply")(self, other)

    def divide(self, other, *, rounding_mode=None):
        """Mirrors ``torch.Tensor.divide``: ``div``."""
        return _fn("divide")(self, other, rounding_mode=rounding_mode)

    def true_divide(self, other):
        """Mirrors ``torch.Tensor.true_divide``: ``div``."""
        return _fn("true_divide")(self, other)

    def subtract(self, other, *, alpha=1):
        """Mirrors ``torch.Tensor.subtract``: ``sub``."""
        return _fn("subtract")(self, other, alpha=alpha)

    def greater(self, other):
        """Mirrors ``torch.Tensor.greater``: ``gt``."""
        return _fn("greater")(self, other)

    def greater_equal(self, other):
        """Mirrors ``torch.Tensor.greater_equal``: ``ge``."""
        return _fn("greater_equal")(self, other)

    def less(self, other):
        """Mirrors ``torch.Tensor.less``: ``lt``."""
        return _fn("less")(self, other)

    def less_equal(self, other):
        """Mirrors ``torch.Tensor.less_equal``: ``le``."""
        return _fn("less_equal")(self, other)

    def not_equal(self, other):
        """Mirrors ``torch.Tensor.not_equal``: ``ne``."""
        return _fn("not_equal")(self, other)

    def ravel(self):
        """Mirrors ``torch.Tensor.ravel``."""
        return _fn("ravel")(self)

    def select(self, dim, index):
        """Mirrors ``torch.Tensor.select`` (a view, ``SelectBackward0``)."""
        return _fn("select")(self, dim, index)

    def ndimension(self) -> int:
        """Mirrors ``torch.Tensor.ndimension``: ``dim()``."""
        return self.dim()

    def is_signed(self) -> bool:
        """Mirrors ``torch.Tensor.is_signed``: False for bool and uint8."""
        return self.dtype.is_signed

    def is_complex(self) -> bool:
        """Mirrors ``torch.Tensor.is_complex``: minigrad has no complex dtypes."""
        return False

    def is_same_size(self, other) -> bool:
        """Mirrors ``torch.Tensor.is_same_size``."""
        return tuple(self.shape) == tuple(other.shape)

    def is_nonzero(self) -> bool:
        """Mirrors ``torch.Tensor.is_nonzero``.

        Raises:
            RuntimeError: not exactly one element (PyTorch's messages).
        """
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())
