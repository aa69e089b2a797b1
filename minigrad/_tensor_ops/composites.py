"""``Tensor`` methods over the torch-level composites (``minigrad._functional.composites``):
``isposinf``, ``isneginf``, ``unique_consecutive``, ``dist``, ``diagflat``, ``msort``,
``split_with_sizes``; and the host-side ``apply_`` and ``record_stream``."""
from __future__ import annotations


class _Lazy:
    """``minigrad._functional.composites``, imported on first use (it imports ``Tensor``)."""

    def __getattr__(self, name):
        from .._functional import composites
        return getattr(composites, name)


_c = _Lazy()


class CompositesMixin:
    """Composite methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def isposinf(self):
        """Mirrors ``torch.Tensor.isposinf``: ``torch.isposinf(self)``."""
        return _c.isposinf(self)

    def isneginf(self):
        """Mirrors ``torch.Tensor.isneginf``: ``torch.isneginf(self)``."""
        return _c.isneginf(self)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Mirrors ``torch.Tensor.unique_consecutive``: ``torch.unique_consecutive(self, ...)``."""
        return _c.unique_consecutive(self, return_inverse, return_counts, dim)

    def dist(self, other, p=2):
        """Mirrors ``torch.Tensor.dist``: ``torch.dist(self, other, p)``."""
        return _c.dist(self, other, p)

    def diagflat(self, offset=0):
        """Mirrors ``torch.Tensor.diagflat``: ``torch.diagflat(self, offset)``."""
        return _c.diagflat(self, offset)

    def msort(self):
        """Mirrors ``torch.Tensor.msort``: ``torch.msort(self)``."""
        return _c.msort(self)

    def split_with_sizes(self, split_sizes, dim=0):
        """Mirrors ``torch.Tensor.split_with_sizes``: ``torch.split(self, list(split_sizes),
        dim)``."""
        return _c.split_with_sizes(self, split_sizes, dim)

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
        if not builtins_callable(callable):
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


builtins_callable = callable
