"""Device moves and dtype conversion of a ``Module``'s parameters and buffers in place
(``Module.to`` / ``cuda`` / ``cpu`` / ``float`` / ``half`` / ``bfloat16`` / ``double``) and
their move into shared memory (``share_memory``), mixed into
``Module``. As in PyTorch, the Parameter objects
stay the same and get new storage (``param.data = converted``); so do their gradients."""
from __future__ import annotations

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..devices import as_device, parse_to


class _ConvertMixin:
    """``_apply``, ``to``, ``cuda``, ``cpu``, ``float``, ``double``, ``half``, ``bfloat16``,
    ``type``, ``share_memory``."""

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
        """Move and/or cast parameters and buffers in place (``Module.to``); returns self.

        Accepts ``Tensor.to``'s overloads: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``,
        ``to(tensor)``, ``device=``/``dtype=``/``non_blocking=``/``memory_format=`` keywords.
        The dtype applies to floating tensors only; the device to all; the memory format
        (``channels_last``) to 4-D and 5-D ones. The Parameter objects stay the same (their
        ``.data`` is replaced, and so is their gradient's), so an optimizer built before the
        move still holds them.

        Raises:
            TypeError: a non-floating dtype ("nn.Module.to only accepts floating point or
                complex dtypes, but got desired dtype=minigrad.int64").
            AssertionError / RuntimeError: the errors of ``minigrad.device`` for a bad device.
        """
        device, dtype, _ = parse_to(args, kwargs)
        fmt = kwargs.get("memory_format")
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype!r}")
        if device is not None:
            device = as_device(device)
        if dtype is None and device is None and fmt is None:
            return self

        def convert(t):
            dt = dtype if t.dtype.is_floating_point else None
            if fmt is not None and t.dim() in (4, 5):   # as PyTorch: 4-D/5-D tensors only
                return t.to(device=device, dtype=dt, memory_format=fmt)
            return t.to(device=device, dtype=dt)
        return self._apply(convert)

    def cuda(self, device=None):
        """Move parameters and buffers to the (emulated) cuda device, in place; returns self
        (``Module.cuda``).

        Raises:
            AssertionError: "Torch not compiled with CUDA enabled" with ``MINIGRAD_EMULATE_CUDA=0``.
        """
        return self._apply(lambda t: t.cuda(device))

    def share_memory(self):
        """Move every parameter and buffer (and gradient) into shared memory in place
        (``Module.share_memory``, see ``Tensor.share_memory_``); returns self."""
        return self._apply(lambda t: t.share_memory_())

    def cpu(self):
        """Move parameters and buffers to the cpu, in place; returns self (``Module.cpu``)."""
        return self._apply(lambda t: t.cpu())

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

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``; returns self."""
        dst = _dt.as_dtype(dst_type)
        return self._apply(lambda t: t.to(dst))
