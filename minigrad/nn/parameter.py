"""``Parameter``: a Tensor that a ``Module`` registers as a learnable weight
(``torch.nn.Parameter``), and ``UninitializedParameter``, the placeholder of a lazy module's
parameter until its first forward (``torch.nn.parameter.UninitializedParameter``).
"""
from __future__ import annotations

import numpy as np

from .. import _widening
from .. import dtypes as _dt
from ..devices import restore_device, track_storage
from ..tensor import Tensor, _rebuild_args, _storage_args

__all__ = ["Parameter", "UninitializedParameter", "Buffer", "is_lazy", "typename"]


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
        if _widening._entries:      # no widening image kept for a parameter's lifetime
            _widening.forget(data._data)
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
        ``Tensor.__reduce_ex__``: views of a parameter keep sharing its storage)."""
        from ..serialization import reduce_tensor
        return reduce_tensor(self, "Parameter", _rebuild_parameter)


_UNINIT_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                 "usually happens in `load_state_dict` when trying to load an uninitialized "
                 "parameter into an initialized one. Call `forward` to initialize the "
                 "parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (``torch.nn.parameter.UninitializedParameter``):
    what a lazy module (``nn.LazyLinear``) registers until its first forward, which calls
    ``materialize(shape)``; the object then becomes a plain ``Parameter`` (its class changes,
    so references held elsewhere see the materialized parameter, as in PyTorch).

    Args:
        requires_grad: of the parameter to be (default True).
        device, dtype: of the parameter to be (defaults: cpu, the default float dtype).

    Deliberate difference: PyTorch refuses every op on an uninitialized parameter with a
    ValueError ("Attempted to use an uninitialized parameter in ..."); here an op fails where
    it first reads the ``shape`` (the RuntimeError below), or computes on the empty
    placeholder. ``size()`` gives the placeholder's ``Size([0])``, as PyTorch's.

    Raises:
        RuntimeError: reading ``shape`` ("Can't access the shape of an uninitialized parameter
            or buffer. ...").
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._functional.factories import empty      # (imports Tensor)
        return super().__new__(cls, empty((0,), device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Give the parameter an (uninitialized, ``empty``) storage of ``shape`` and turn it
        into a ``Parameter`` (device and dtype: the placeholder's, unless given)."""
        from .._functional.factories import empty
        self.data = empty(tuple(shape), device=self.device if device is None else device,
                          dtype=self.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINIT_SHAPE)

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is True for any Tensor ``Buffer(...)`` returned (marked
    ``_is_buffer``), as ``torch.nn.parameter._BufferMeta``."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a ``Module`` registers as a buffer when assigned as an attribute
    (``torch.nn.Buffer``, PyTorch >= 2.5): ``self.steps = nn.Buffer(torch.zeros(()))`` is
    ``self.register_buffer("steps", ..., persistent=True)``.

    ``Buffer(data, persistent=True)`` returns ``data.detach()`` (a plain Tensor sharing
    ``data``'s storage, keeping its ``requires_grad``) marked as a buffer: ``isinstance(b,
    Buffer)`` is True and ``b.persistent`` says whether it goes into ``state_dict``.

    Args:
        data: a Tensor; None gives an empty float tensor of the default dtype.
        persistent: whether the module's ``state_dict`` includes it (default True).
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            dt = _dt.get_default_dtype()
            data = Tensor._make(np.empty((0,), dtype=dt.np), dt)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param) -> bool:
    """Whether ``param`` is still uninitialized (``torch.nn.parameter.is_lazy``)."""
    return isinstance(param, UninitializedParameter)


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
