"""``Parameter``: a Tensor that a ``Module`` registers as a learnable weight
(``torch.nn.Parameter``).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..devices import restore_device, track_storage
from ..tensor import Tensor, _rebuild_args, _storage_args

__all__ = ["Parameter", "typename"]


class Parameter(Tensor):
    """A leaf Tensor that ``Module.__setattr__`` registers as a parameter (``torch.nn.Parameter``).

    ``Parameter(data)`` shares ``data``'s storage and version counter (no copy), as PyTorch's
    ``Tensor._make_subclass`` does; ops on a Parameter return plain Tensors.

    Args:
        data: a Tensor (any shape, any dtype); None gives an empty float tensor of the default
            dtype.
        requires_grad: whether the parameter requires grad (default True).

    Raises:
        TypeError: when ``data`` is not a Tensor.
        RuntimeError: ``requires_grad=True`` on a non-floating dtype ("Only Tensors of floating
            point and complex dtype can require gradients").
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            dt = _dt.get_default_dtype()
            data = Tensor._make(np.empty((0,), dtype=dt.np), dt)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                            f"{type(data).__name__}")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        p = cls._make(data._data, data.dtype, bool(requires_grad))
        p._vc = data._vc
        if data._device is not p._device:
            p._device = data._device
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def _new_like(self, arr):
        p = Parameter._make(arr, self.dtype, self._requires_grad)
        if self._device is not p._device:
            p._device = self._device
        return p

    def __reduce_ex__(self, proto):
        """Mirrors ``torch.nn.Parameter.__reduce_ex__``: storage as raw bytes (see
        ``Tensor.__reduce_ex__``)."""
        return (_rebuild_parameter, _storage_args(self))


def _rebuild_parameter(data, *args):
    """Unpickles a Parameter (the argument forms of ``minigrad.tensor._rebuild``)."""
    arr, dtype, requires_grad, device = _rebuild_args(data, args)
    p = Parameter._make(arr, dtype, requires_grad)
    dev = restore_device(device)
    if dev is not p._device:
        p._device = dev
        track_storage(p)
    return p


def typename(obj) -> str:
    """The type name PyTorch's ``torch.typename`` gives, with ``minigrad.`` for tensors
    (``minigrad.FloatTensor``); used in error messages."""
    if isinstance(obj, Tensor):
        return _dt.legacy_type_name(obj.dtype)
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"
