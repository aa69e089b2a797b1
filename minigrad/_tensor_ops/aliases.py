"""PyTorch's alias methods of ``Tensor`` (``t.subtract`` is ``t.sub``...), ``select``, the
small queries scripts call (``ndimension``, ``is_signed``, ``is_same_size``...), and the methods
over the torch-level composites of ``minigrad._functional.composites`` (``isposinf``,
``isneginf``, ``unique_consecutive``, ``dist``, ``diagflat``, ``msort``, ``split_with_sizes``)
with the host-side ``apply_`` and ``record_stream``. (They live in this mixin rather than one of
their own: each class in ``Tensor``'s MRO costs every failed attribute lookup a step, ~0.3% of a
small MLP's training step.)"""
from __future__ import annotations



def _fn(name):
    from .._functional import aliases     # imported on use: _functional imports Tensor
    return getattr(aliases, name)

def _composite(name):
    from .._functional import composites  # imported on use: _functional imports Tensor
    return getattr(composites, name)


_callable = callable

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

    # ---------------------------------------------------------- composites
    def isposinf(self):
        """Mirrors ``torch.Tensor.isposinf``: ``torch.isposinf(self)``."""
        return _composite("isposinf")(self)

    def isneginf(self):
        """Mirrors ``torch.Tensor.isneginf``: ``torch.isneginf(self)``."""
        return _composite("isneginf")(self)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Mirrors ``torch.Tensor.unique_consecutive``: ``torch.unique_consecutive(self, ...)``."""
        return _composite("unique_consecutive")(self, return_inverse, return_counts, dim)

    def dist(self, other, p=2):
        """Mirrors ``torch.Tensor.dist``: ``torch.dist(self, other, p)``."""
        return _composite("dist")(self, other, p)

    def diagflat(self, offset=0):
        """Mirrors ``torch.Tensor.diagflat``: ``torch.diagflat(self, offset)``."""
        return _composite("diagflat")(self, offset)

    def msort(self):
        """Mirrors ``torch.Tensor.msort``: ``torch.msort(self)``."""
        return _composite("msort")(self)

    def split_with_sizes(self, split_sizes, dim=0):
        """Mirrors ``torch.Tensor.split_with_sizes``: ``torch.split(self, list(split_sizes),
        dim)``."""
        return _composite("split_with_sizes")(self, split_sizes, dim)

    def record_stream(self, stream):
        """Mirrors ``torch.Tensor.record_stream`` (the CUDA-prefetcher idiom
        ``x.record_stream(torch.cuda.current_stream())``): nothing to do, since the emulated
        device frees memory synchronously, so no stream can still be using a freed block."""

    def apply_(self, callable):
        """Mirrors ``torch.Tensor.apply_``: replace each element ``v`` by ``callable(v)`` (called
        with Python numbers, one element at a time, in storage order), in place; returns
        ``self``. Slow; cpu tensors only. The new values are written by one ``copy_`` (so
        views and the version counter see the write).

        Raises:
            TypeError: ``callable`` not callable ("apply_(): argument 'callable' must be
                callable"), or a result that is not a number.
            RuntimeError: a tensor that requires grad ("Can't call apply_() on Variable that
                requires grad. Use var.detach().apply_() instead."); a cuda tensor
                ("apply_ is only implemented on CPU tensors").
        """
        import numpy as np
        if self.requires_grad:
            raise RuntimeError("Can't call apply_() on Variable that requires grad. Use "
                               "var.detach().apply_() instead.")
        if self.device.type != "cpu":
            raise RuntimeError("apply_ is only implemented on CPU tensors")
        if not _callable(callable):
            raise TypeError("apply_(): argument 'callable' must be callable")
        values = self.detach().numpy()
        kind = float if self.dtype.is_floating_point else (
            bool if self.dtype.name == "bool" else int)
        out = []
        for v in values.reshape(-1).tolist():
            r = callable(v)
            if kind is float:
                if not isinstance(r, (int, float, np.number)) or isinstance(r, bool):
                    raise TypeError(f"must be real number, not {type(r).__name__}")
                out.append(float(r))
            else:
                out.append(kind(r))
        from .._functional.factories import tensor
        new = tensor(np.asarray(out, dtype=np.float64 if kind is float else None)
                     .reshape(values.shape), dtype=self.dtype)
        return self.copy_(new)
