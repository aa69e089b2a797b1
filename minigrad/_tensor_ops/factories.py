"""The ``new_*`` factory methods of ``Tensor`` (``new_zeros``, ``new_ones``, ``new_empty``,
``new_full``, ``new_tensor``): a new tensor with ``self``'s dtype and device unless ``dtype`` /
``device`` are given; and the legacy constructor ``Tensor.new`` (sizes, data or a tensor, always
in ``self``'s dtype).
"""
from __future__ import annotations

import numbers as _numbers
import warnings as _warnings

import numpy as _np

from .. import _namespace
from .. import dtypes as _dt
from ..dispatch import dispatch


def _size_arg(sizes, name, size=None):
    """The size of a ``new_*`` call: varargs, one sequence, or the ``size=`` keyword.

    Raises:
        TypeError: both varargs and ``size=`` ("new_zeros() got multiple values for argument
            'size'").
    """
    if size is not None:
        if sizes:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        sizes = (size,)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        return tuple(sizes[0])
    return tuple(sizes)


def _new_tensor_warning():
    _warnings.warn("To copy construct from a tensor, it is recommended to use "
                   "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                   ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                   UserWarning, stacklevel=3)


_NEW_SIGNATURES = (" * (*, minigrad.device device = None)\n"
                   " * (minigrad.Storage storage)\n"
                   " * (Tensor other)\n"
                   " * (tuple of ints size, *, minigrad.device device = None)\n"
                   " * (object data, *, minigrad.device device = None)\n")


def _tp_name(v):
    """Python's ``tp_name`` of ``v``'s type as PyTorch prints it: ``float``,
    ``numpy.float64``, ``minigrad.dtype``."""
    if isinstance(v, _dt.DType):
        return f"{_namespace.display_name()}.dtype"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _is_int(v):
    return isinstance(v, (int, _np.integer)) and not isinstance(v, (bool, _np.bool_))


class FactoriesMixin:
    """The ``new_*`` factory methods of ``Tensor`` (see each method's ``torch.Tensor`` twin)."""

    __slots__ = ()

    def _new_dtype(self, dtype, fname):
        return self.dtype if dtype is None else _dt.dtype_arg(dtype, fname)

    def new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_zeros``: zeros of ``size`` with ``self``'s dtype unless
        ``dtype`` is given (the ``zeros`` op; its errors apply)."""
        return dispatch("zeros", _size_arg(sizes, "new_zeros", size), dtype=self._new_dtype(dtype, "new_zeros"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        """Mirrors ``torch.Tensor.new_ones``: ones with ``self``'s dtype by default (the
        ``ones`` op)."""
        return dispatch("ones", _size_arg(sizes, "new_ones", size), dtype=self._new_dtype(dtype, "new_ones"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
        """Mirrors ``torch.Tensor.new_empty``: an uninitialised tensor in PyTorch; minigrad
        zero-fills it for determinism (the ``zeros`` op)."""
        return dispatch("zeros", _size_arg(sizes, "new_empty", size), dtype=self._new_dtype(dtype, "new_empty"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
                 layout=None, pin_memory=False):
        """Mirrors ``torch.Tensor.new_full``: ``size`` filled with ``fill_value`` cast to
        ``self``'s dtype unless ``dtype`` is given (the ``full`` op).

        Raises:
            TypeError: ``size`` not a tuple/list of ints ("new_full(): argument 'size'
                (position 1) must be tuple of ints, not int").
        """
        if not isinstance(size, (tuple, list)):
            raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(size).__name__}")
        return dispatch("full", tuple(size), fill_value, dtype=self._new_dtype(dtype, "new_full"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                   pin_memory=False):
        """Mirrors ``torch.Tensor.new_tensor``: a new leaf copied from ``data`` with ``self``'s
        dtype unless ``dtype`` is given (the ``tensor`` op). A Tensor ``data`` is copied
        detached, with PyTorch's UserWarning recommending ``detach().clone()``.

        Raises:
            The errors of the ``tensor`` op.
        """
        if isinstance(data, FactoriesMixin):
            _new_tensor_warning()
            data = data.detach()
        return dispatch("tensor", data, dtype=self._new_dtype(dtype, "new_tensor"),
                        device=self._device if device is None else device,
                        requires_grad=requires_grad)

    def new(self, *args, device=None, **kwargs):
        """Mirrors the legacy ``torch.Tensor.new`` (PyTorch's ``legacy_tensor_new``): a tensor
        in ``self``'s dtype, on ``self``'s device unless ``device`` is given, never requiring
        grad. What it makes depends on the arguments:

        - nothing: an empty tensor of shape (0,);
        - ints or one ``Size``: a tensor of that size (uninitialised in PyTorch; zero-filled
          here, as ``new_empty``);
        - one sequence or array (a list, a tuple that is not a ``Size``): its data, as
          ``new_tensor`` but without the warning (``x.new([1, 2])``, ``x.new(())`` is empty);
        - one Tensor of ``self``'s dtype and device: an alias of it (a view sharing its storage,
          node ``AliasBackward0`` when it requires grad).

        Raises:
            TypeError: keyword arguments other than ``device`` ("new() received an invalid
                combination of arguments"); a Tensor of another dtype ("expected ... (got
                ...)"); a number or other non-sequence object ("new(): data must be a
                sequence (got float)"); a non-int size among several.
            RuntimeError: ``device`` of another device type ("legacy constructor expects device
                type: cpu but device type: cuda was passed"); a negative size.
        """
        from ..devices import device as _device_cls
        from ..tensor import Size, Tensor
        if kwargs:              # dtype=, requires_grad=...: none of the legacy signatures
            got = ", ".join([_tp_name(a) for a in args]
                            + [f"{k}={_tp_name(v)}" for k, v in kwargs.items()])
            first, rest = _NEW_SIGNATURES.split("\n", 1)
            raise TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                            f"but expected one of:\n{first}\n      didn't match because some of "
                            f"the keywords were incorrect: {', '.join(kwargs)}\n{rest}")
        if len(args) == 1 and isinstance(args[0], Tensor) and device is not None:
            raise RuntimeError("Legacy tensor new of the form tensor.new(tensor, device=device) "
                               "is not supported.  Use minigrad.as_tensor(...) instead.")
        if device is not None:
            dev = _device_cls(device) if not isinstance(device, _device_cls) else device
            if dev.type != self._device.type:
                raise RuntimeError(f"legacy constructor expects device type: {self._device.type}"
                                   f" but device type: {dev.type} was passed")
        else:
            dev = self._device
        if len(args) == 1 and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype is not self.dtype or other._device != self._device:
                raise TypeError(f"expected {_options(self)} (got {_options(other)})")
            return other[...]                      # other.alias(): a view, AliasBackward0
        if not args:
            size = (0,)
        elif len(args) == 1 and not _is_int(args[0]) and not isinstance(args[0], Size):
            data = args[0]
            if isinstance(data, (str, bytes)):     # sequences, but no data
                raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
            if not isinstance(data, (list, tuple, range, _np.ndarray)):
                raise TypeError(f"new(): data must be a sequence (got {_tp_name(data)})")
            return dispatch("tensor", data, dtype=self.dtype, device=dev)
        else:
            size = tuple(args[0]) if isinstance(args[0], Size) else args
            for i, v in enumerate(size):
                if not _is_int(v):
                    raise TypeError(f"new(): argument 'size' failed to unpack the object at pos "
                                    f"{i + 1} with error \"type must be tuple of ints,but got "
                                    f"{type(v).__name__}\"")
        return dispatch("zeros", tuple(int(v) for v in size), dtype=self.dtype, device=dev)


def _options(t):
    """PyTorch's printed ``TensorOptions`` of a tensor (the legacy constructor's type error)."""
    return (f"TensorOptions(dtype={t.dtype.cpp_name}, device={t._device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")
