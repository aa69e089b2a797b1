"""dtype conversion of a ``Module``'s parameters and buffers in place (``Module.to`` / ``float``
/ ``half`` / ``bfloat16`` / ``double``), mixed into ``Module``. As in PyTorch, the Parameter objects
stay the same and get new storage (``param.data = converted``); so do their gradients."""
from __future__ import annotations

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor


class _ConvertMixin:
    """``_apply``, ``to``, ``float``, ``double``, ``half``, ``bfloat16``, ``cpu``, ``type``."""

    def _apply(self, fn):
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for key, p in self._parameters.items():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    p.data = new          # same Parameter object, new storage (as torch)
                if p.grad is not None:
                    g = fn(p.grad)
                    if g is not p.grad:
                        p.grad.data = g
            for key, b in self._buffers.items():
                if b is not None:
                    self._buffers[key] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Cast floating parameters and buffers to a floating dtype, in place (``Module.to``);
        the Parameter objects stay the same (their ``.data`` is replaced). Returns self.

        Accepts ``to(dtype)``, ``to('cpu')``, ``to('cpu', dtype)``, ``to(tensor)`` and
        ``dtype=``/``device=`` keywords.

        Raises:
            TypeError: a non-floating dtype ("nn.Module.to only accepts floating point or
                complex dtypes, but got desired dtype=minigrad.int64"), or a device other
                than the CPU.
        """
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, str):
                device = a
            elif isinstance(a, bool):
                continue
            elif a is not None:
                dtype = a
        if device is not None and str(device).split(":")[0] != "cpu":
            raise TypeError(f"minigrad modules live on the CPU only; got device={device!r}")
        if dtype is None:
            return self
        dtype = _dt.as_dtype(dtype)
        if not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype!r}")
        return self._apply(lambda t: t.to(dtype) if t.dtype.is_floating_point else t)

    def float(self):
        """Cast floating parameters and buffers to float32; returns self."""
        return self.to(_dt.float32)

    def double(self):
        """Cast floating parameters and buffers to float64; returns self."""
        return self.to(_dt.float64)

    def half(self):
        """Cast floating parameters and buffers to float16; returns self."""
        return self.to(_dt.float16)

    def bfloat16(self):
        """Cast floating parameters and buffers to bfloat16; returns self."""
        return self.to(_dt.bfloat16)

    def cpu(self):
        """No-op (minigrad is CPU-only); returns self."""
        return self

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``; returns self."""
        dst = _dt.as_dtype(dst_type)
        return self._apply(lambda t: t.to(dst))
