"""PyTorch's legacy tensor types: ``torch.FloatTensor``, ``torch.LongTensor``, ``torch.cuda.HalfTensor``...

Old scripts build tensors with them (``torch.LongTensor(n).zero_()``, ``torch.FloatTensor(data)``),
test with them (``isinstance(t, torch.FloatTensor)``) and convert with them
(``t.type(torch.DoubleTensor)``). Each is a class whose metaclass, ``tensortype`` as in PyTorch,
carries a dtype and a device type; it is not a subclass of ``Tensor`` (nor is PyTorch's), and no
tensor's ``type()`` is it: ``isinstance`` asks the tensor's dtype and device instead.

Calling one is PyTorch's legacy ``new()`` constructor, shared with ``torch.Tensor(...)``:

- no argument: an empty 1-d tensor;
- ints, or one ``Size``/tuple of ints: an uninitialised tensor of that shape (minigrad fills it
  with zeros, as ``minigrad.empty`` does);
- one sequence or NumPy array: its values, converted to the type's dtype;
- one Tensor of the same dtype and device: that tensor (PyTorch returns an alias of it).
"""
from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as _dt

__all__ = ["tensortype", "legacy_new", "CPU_TYPES", "CUDA_TYPES", "set_default_tensor_type"]


def _is_int(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool)


def legacy_new(dtype, device_type, *args, device=None):
    """PyTorch's legacy constructor ``new()``: ``torch.FloatTensor(...)`` and ``torch.Tensor(...)``.

    Args:
        dtype: the dtype of the result.
        device_type: "cpu" or "cuda" (the type's device); ``device`` may name "cpu"/"cuda"
            explicitly and must agree with it.
        *args: nothing; sizes (ints, or one tuple/``Size`` of ints); one sequence or NumPy array
            of data; or one Tensor.

    Returns:
        A Tensor (``requires_grad=False``, except that a Tensor argument is returned as it is).

    Raises:
        TypeError: a Tensor of another dtype or device ("expected ... (got ...)"), data that is
            not a sequence ("new(): data must be a sequence (got float)"), a string, mixed sizes
            ("new(): argument 'size' failed to unpack ..."), or several non-int arguments.
        RuntimeError: a negative size (PyTorch's message).
    """
    from .tensor import Tensor
    from ._functional.factories import empty, tensor
    from .devices import as_device
    if device is not None and as_device(device).type != device_type:
        raise RuntimeError(f"legacy constructor expects device type: {device_type} but device "
                           f"type: {as_device(device).type} was passed")
    dev = "cuda" if device_type == "cuda" else "cpu"
    if not args:
        return empty(0, dtype=dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t.dtype != dtype or t.device.type != device_type:
            raise TypeError(f"expected {_options(dtype, device_type)} (got "
                            f"{_options(t.dtype, t.device.type)})")
        return t
    if len(args) == 1 and isinstance(args[0], tuple) and all(_is_int(s) for s in args[0]):
        return empty(tuple(int(s) for s in args[0]), dtype=dtype, device=dev)
    if all(_is_int(a) for a in args):
        return empty(tuple(int(a) for a in args), dtype=dtype, device=dev)
    if len(args) > 1:
        bad = next(i for i, a in enumerate(args) if not _is_int(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad + 1} "
                        f"with error \"type must be tuple of ints,but got "
                        f"{type(args[bad]).__name__}\"")
    data = args[0]
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, np.ndarray)) and not hasattr(data, "__len__"):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=dtype, device=dev)


def _options(dtype, device_type) -> str:
    # PyTorch's printed c10::TensorOptions of a legacy type
    return (f"TensorOptions(dtype={dtype.cpp_name}, device={device_type}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


class tensortype(type):
    """The metaclass of the legacy tensor types (PyTorch's ``torch.tensortype``).

    Attributes (on each type): ``dtype`` (a minigrad dtype), ``is_cuda`` (bool).
    """

    def __call__(cls, *args, device=None):
        """Build a tensor of this type (see ``legacy_new``)."""
        return legacy_new(cls.dtype, "cuda" if cls.is_cuda else "cpu", *args, device=device)

    def __instancecheck__(cls, obj) -> bool:
        """True for a Tensor of this dtype on this device type (Parameters included)."""
        from .tensor import Tensor
        return (isinstance(obj, Tensor) and obj.dtype == cls.dtype
                and (obj.device.type == "cuda") == cls.is_cuda)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make_types(is_cuda: bool) -> dict:
    module = "minigrad.cuda" if is_cuda else "minigrad"
    where = "the emulated cuda device" if is_cuda else "the cpu"
    types = {}
    for d in _dt.all_dtypes:
        if d.is_float8:         # PyTorch has no torch.Float8_e4m3fnTensor classes
            continue
        name = d.legacy_name
        doc = (f"The legacy tensor type of {d} tensors on {where} (``torch"
               f"{'.cuda' if is_cuda else ''}.{name}``); call it as ``legacy_new`` describes.")
        types[name] = tensortype(name, (), {"dtype": d, "is_cuda": is_cuda, "__doc__": doc,
                                            "__module__": module})
    return types


CPU_TYPES = _make_types(False)
CUDA_TYPES = _make_types(True)


_DEFAULT_TYPE_WARNED = []


def set_default_tensor_type(t) -> None:
    """Mirrors ``torch.set_default_tensor_type`` (deprecated since PyTorch 2.1; warns as it
    does): make a legacy float type the default. ``t`` is a type (``minigrad.FloatTensor``,
    ``minigrad.cuda.DoubleTensor``) or its dotted name (``"torch.cuda.FloatTensor"``; a leading
    ``torch`` names minigrad). Its dtype becomes the default dtype (``set_default_dtype``) and
    its device the default device: ``cuda`` types select the emulated device
    (``set_default_device("cuda")``), cpu ones the cpu.

    Raises:
        TypeError: not a legacy tensor type ("invalid type object: only floating-point types are
            supported as the default type"), or not a float one ("only floating-point types are
            supported as the default type"); ModuleNotFoundError / AttributeError: a name that
            does not resolve.
    """
    import warnings
    import importlib
    if isinstance(t, str):
        head, *rest = t.split(".")
        obj = importlib.import_module("minigrad" if head == "torch" else head)
        for part in rest:
            obj = getattr(obj, part)
        t = obj
    if not _DEFAULT_TYPE_WARNED:              # PyTorch warns once per process
        _DEFAULT_TYPE_WARNED.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                      "please use torch.set_default_dtype() and torch.set_default_device() "
                      "as alternatives.", UserWarning, stacklevel=2)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    from .devices import set_default_device
    _dt.set_default_dtype(t.dtype)
    set_default_device("cuda" if t.is_cuda else None)
