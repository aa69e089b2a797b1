"""Factories as torch-level functions: ``torch.zeros``, ``torch.ones_like``, ``torch.randn``...

Each is one ``dispatch`` call of the registered factory op of the same name (``minigrad/ops/
factory.py`` holds the kernels and their docstrings), so a mode (a profiler, a memory counter)
sees every tensor a script creates, as PyTorch's dispatcher sees ``aten::zeros``. ``as_tensor``
is ``tensor`` (or ``Tensor.to`` for a Tensor) and ``from_numpy`` wraps the caller's array without
a copy: PyTorch has no aten op for either.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import devices as _devices
from .. import dtypes as _dt
from ..devices import _default
from ..dispatch import dispatch
from ..ops import factory as _k
from ..tensor import Tensor

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "frombuffer", "zeros", "ones", "full",
           "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "arange", "eye", "linspace",
           "logspace", "tril_indices", "triu_indices", "randn", "rand", "randint", "randperm",
           "randn_like", "rand_like", "normal"]


# the factories with PyTorch's out= (``torch.zeros(2, 3, out=buf)``): the values are made in
# out's dtype and on its device, then written into it through the dispatcher (resize_, copy_)
_OUT_FACTORIES = frozenset(("zeros", "ones", "full", "empty", "arange", "randn", "rand", "eye",
                            "linspace", "logspace", "randint", "randperm", "normal"))
_ARANGE_RESIZED = ("The number of elements in the out tensor of shape {old} is {n_old} which "
                   "does not match the computed number of elements {n}. Note that this may "
                   "occur as a result of rounding error. The out tensor will be resized to a "
                   "tensor of shape ({n},).")


def _into_out(op_name, args, kwargs, out):
    """``op_name(*args, **kwargs)`` written into ``out`` (PyTorch's ``zeros.out``...), which
    is returned.

    Raises:
        TypeError: ``out`` not a Tensor.
        RuntimeError: ``out`` requires grad under grad mode (PyTorch's autograd message); a
            ``dtype`` other than out's ("dtype Double does not match dtype of out parameter
            (Float)").
    """
    import warnings
    from ..autograd.grad_mode import _grad_state
    if not isinstance(out, Tensor):
        raise TypeError(f"{op_name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _grad_state.enabled and out.requires_grad:
        raise RuntimeError(f"aten::{op_name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    dtype = kwargs.get("dtype")
    if dtype is not None and _dt.as_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {_dt.as_dtype(dtype).scalar_name} does not match dtype of "
                           f"out parameter ({out.dtype.scalar_name})")
    result = dispatch(op_name, *args, **{**kwargs, "dtype": out.dtype, "device": out.device})
    if op_name == "arange" and out.numel() == result.numel():
        result = dispatch("reshape", result, tuple(out.shape))   # arange keeps out's shape
    if tuple(out.shape) != tuple(result.shape):
        if op_name == "arange" and out.numel():
            warnings.warn(_ARANGE_RESIZED.format(old=list(out.shape), n_old=out.numel(),
                                                 n=result.numel()), UserWarning, stacklevel=3)
        dispatch("resize_", out, tuple(result.shape))
    dispatch("copy_", out, result)
    return out


def _dispatched(op_name, kernel):
    """The torch-level function of factory op ``op_name``: same signature and docstring as the
    kernel, one ``dispatch`` call (and, with ``out=``, the writes into it)."""
    default = op_name in _devices.DEVICE_CONSTRUCTORS

    @functools.wraps(kernel)
    def factory(*args, **kwargs):
        if default and _default.current is not None and kwargs.get("device") is None:
            kwargs["device"] = _default.current        # set_default_device / with device()
        if op_name in _OUT_FACTORIES and kwargs.get("out") is not None:
            return _into_out(op_name, args, kwargs, kwargs.pop("out"))
        return dispatch(op_name, *args, **kwargs)
    return factory


_tensor = _dispatched("tensor", _k.tensor)


def _sized(op_name, kernel):
    """``_dispatched`` for a factory whose size is ``*size``: PyTorch also takes it as the
    keyword ``size=`` (``torch.empty(size=(2, 3))``).

    Raises:
        TypeError: ``size`` given both ways ("zeros() got multiple values for argument
            'size'").
    """
    default = op_name in _devices.DEVICE_CONSTRUCTORS

    @functools.wraps(kernel)
    def factory(*args, **kwargs):
        if default and _default.current is not None and kwargs.get("device") is None:
            kwargs["device"] = _default.current        # set_default_device / with device()
        if "size" in kwargs:
            if args:
                raise TypeError(f"{op_name}() got multiple values for argument 'size'")
            args = (kwargs.pop("size"),)
        if op_name in _OUT_FACTORIES and kwargs.get("out") is not None:
            return _into_out(op_name, args, kwargs, kwargs.pop("out"))
        return dispatch(op_name, *args, **kwargs)
    return factory


def _from_torch(data):
    """A real ``torch.Tensor`` as a minigrad Tensor with the same bits (no grad), else None.
    Decided by the argument's class: torch is imported only when the argument comes from it."""
    if not type(data).__module__.startswith("torch"):
        return None
    from ..testing.compare import _is_torch_tensor, from_torch
    return from_torch(data, requires_grad=False) if _is_torch_tensor(data) else None


@functools.wraps(_k.tensor)
def tensor(data, *args, **kwargs):
    converted = _from_torch(data)
    if converted is not None:        # a real torch.Tensor: its values and dtype, copied
        return _tensor(converted, *args, **kwargs)
    if isinstance(data, Tensor):     # PyTorch's warning for copy-constructing from a tensor
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    return _tensor(data, *args, **kwargs)
zeros = _sized("zeros", _k.zeros)
ones = _sized("ones", _k.ones)
full = _dispatched("full", _k.full)
empty = _sized("empty", _k.empty)
zeros_like = _dispatched("zeros_like", _k.zeros_like)
ones_like = _dispatched("ones_like", _k.ones_like)
full_like = _dispatched("full_like", _k.full_like)
empty_like = _dispatched("empty_like", _k.empty_like)
arange = _dispatched("arange", _k.arange)
eye = _dispatched("eye", _k.eye)
linspace = _dispatched("linspace", _k.linspace)
logspace = _dispatched("logspace", _k.logspace)
tril_indices = _dispatched("tril_indices", _k.tril_indices)
triu_indices = _dispatched("triu_indices", _k.triu_indices)
randn = _sized("randn", _k.randn)
rand = _sized("rand", _k.rand)
randint = _dispatched("randint", _k.randint)
randperm = _dispatched("randperm", _k.randperm)
randn_like = _dispatched("randn_like", _k.randn_like)
rand_like = _dispatched("rand_like", _k.rand_like)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, **kwargs):
    """Normal samples (``torch.normal``): ``normal(mean, std, size)`` with numbers (the
    ``normal.float_float`` factory), or with a tensor mean and/or std, one sample per element of
    their broadcast shape (``normal.Tensor_float``, ``normal.float_Tensor``,
    ``normal.Tensor_Tensor``; see ``minigrad/ops/sampling.py``)."""
    if size is not None:
        if out is not None:
            return _into_out("normal", (mean, std, size), {"generator": generator, **kwargs}, out)
        return dispatch("normal", mean, std, size, generator=generator, **kwargs)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        raise TypeError("normal() received an invalid combination of arguments: with float "
                        "mean and std, size is required")
    if out is not None:
        return _normal_into_out(mean, std, generator, out)
    return dispatch("normal", mean, std, generator=generator)


def _normal_into_out(mean, std, generator, out):
    """``torch.normal(mean, std, out=out)`` with a tensor mean and/or std, as ATen's
    ``normal_out_impl``: ``out`` is resized (PyTorch's warning when it had elements) to the
    broadcast shape of ``mean`` and ``out`` for a float std, else of ``mean`` and ``std``; then
    filled in place, each step through the dispatcher and rounded into ``out``'s dtype:
    ``normal_(0, std).add_(mean)`` for a float std, ``normal_(0, 1).mul_(std).add_(mean)`` for a
    tensor std.

    Raises:
        TypeError: ``out`` not a Tensor.
        RuntimeError: an argument requires grad under grad mode (PyTorch's autograd message); a
            negative std; shapes that do not broadcast.
        NotImplementedError: ``out`` of a non-floating dtype (PyTorch's kernel message).
    """
    import warnings

    import numpy as np

    from ..autograd.grad_mode import _grad_state
    from ..ops._util import broadcast_shapes
    from .out_argument import _RESIZED
    if not isinstance(out, Tensor):
        raise TypeError(f"normal(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _grad_state.enabled and any(isinstance(t, Tensor) and t.requires_grad
                                   for t in (mean, std, out)):
        raise RuntimeError("normal(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if isinstance(std, Tensor):
        if std.numel() and not np.all(std._data.astype(np.float64) >= 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = broadcast_shapes(tuple(mean.shape) if isinstance(mean, Tensor) else (),
                                 tuple(std.shape))
    else:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        shape = broadcast_shapes(tuple(mean.shape), tuple(out.shape))
    if not out.dtype.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for "
                                  f"'{out.dtype.scalar_name}'")
    if tuple(out.shape) != shape:
        if out.numel():
            warnings.warn(_RESIZED.format(old=list(out.shape), new=list(shape)), UserWarning,
                          stacklevel=3)
        dispatch("resize_", out, shape)
    if isinstance(std, Tensor):
        dispatch("normal_", out, 0.0, 1.0, generator=generator)
        dispatch("mul_", out, std)
    else:
        dispatch("normal_", out, 0.0, float(std), generator=generator)
    dispatch("add_", out, mean)
    return out


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but returns ``data`` itself when it is already a Tensor of that dtype and
    device (``torch.as_tensor``); a Tensor of another dtype/device goes through ``Tensor.to``.
    A NumPy array on the cpu shares its memory (``from_numpy``) unless ``dtype`` asks for a
    cast. A real ``torch.Tensor`` is converted (same values and dtype; a copy: minigrad's
    storage is NumPy's, so memory is not shared).

    Raises:
        TypeError: a ``dtype`` that is no dtype (a name string: PyTorch's "as_tensor():
            argument 'dtype' must be torch.dtype, not str").
    """
    if dtype is not None:
        dtype = _dt.dtype_arg(dtype, "as_tensor")
    if device is None:
        device = _default.current              # set_default_device / with device()
    converted = _from_torch(data)
    if converted is not None:
        data = converted
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray) and data.dtype.isnative and (
            device is None or _devices.as_device(device).type == "cpu"):
        # PyTorch shares a NumPy array's memory (as from_numpy) unless a cast or a move is
        # asked for; the cast then copies
        t = _k.from_numpy(data)
        return t if dtype is None or dtype is t.dtype else t.to(dtype=dtype)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing its memory where it can (``torch.asarray``).

    - A Tensor is returned itself when ``dtype`` / ``device`` (None: its own) need no
      conversion and ``copy`` is not True; converted (``Tensor.to``) when they do, unless
      ``copy=False``; cloned for ``copy=True``.
    - A NumPy array (or NumPy scalar) on the cpu shares its memory (``from_numpy``), keeping its
      dtype (float64 stays float64), unless ``copy=True`` or a ``dtype`` cast is asked for.
    - Anything else (nested sequences, Python scalars) is copied by ``tensor`` (Python floats
      take the default dtype).

    ``requires_grad`` None keeps a tensor's own flag (with PyTorch 2.13's warning when that flag
    is True), True makes the result require grad, False detaches it.

    Raises:
        ValueError: ``copy=False`` with a conversion or a sequence ("can't alias tensor with
            dtype 'Float' into dtype 'Double'.", "can't alias arbitrary sequence into a
            tensor.").
    """
    import warnings
    if dtype is not None:
        dtype = _dt.dtype_arg(dtype, "asarray")
    if isinstance(obj, np.generic):
        obj = np.asarray(obj)
    converted = _from_torch(obj)
    if converted is not None:
        obj = converted
    if isinstance(obj, Tensor):
        t = obj
        want_device = None if device is None else _devices.as_device(device)
        wrong_dtype = dtype is not None and dtype is not t.dtype
        wrong_device = want_device is not None and want_device != t.device
        if copy is False and wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{t.dtype.scalar_name}' into "
                             f"dtype '{dtype.scalar_name}'.")
        if copy is False and wrong_device:
            raise ValueError(f"can't alias tensor from device '{t.device}' to "
                             f"'{want_device}'.")
        if wrong_dtype or wrong_device:
            t = t.to(device=want_device, dtype=dtype)
        elif copy:
            t = t.clone()
        if requires_grad is None:
            if t.requires_grad:
                warnings.warn("torch.asarray: unspecified requires_grad now defaults to "
                              "obj.requires_grad instead of False. Pass requires_grad=False "
                              "explicitly to get the old behavior and silence this warning.",
                              UserWarning, stacklevel=2)
        elif requires_grad and not t.requires_grad:
            t.requires_grad_(True)
        elif not requires_grad and t.requires_grad:
            t = t.detach()
        return t
    if isinstance(obj, np.ndarray) and obj.dtype.isnative and (
            device is None or _devices.as_device(device).type == "cpu"):
        t = _k.from_numpy(obj)
        if dtype is not None and dtype is not t.dtype:
            if copy is False:
                raise ValueError(f"can't alias tensor with dtype '{t.dtype.scalar_name}' into "
                                 f"dtype '{dtype.scalar_name}'.")
            t = t.to(dtype=dtype)
        elif copy:
            t = t.clone()
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


from_numpy = _k.from_numpy

_FROMBUFFER_WARNED = []


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over the bytes of a Python buffer object, without a copy
    (``torch.frombuffer``; wraps ``numpy.frombuffer`` as ``from_numpy`` wraps an array).

    Args:
        buffer: an object with the buffer protocol (bytes, bytearray, memoryview, array).
        dtype: the element dtype (keyword-only).
        count: the number of elements (-1: all after ``offset``).
        offset: bytes to skip at the start.
        requires_grad: make the result a leaf that requires grad.

    Deliberate difference: a read-only buffer (``bytes``) gives a read-only tensor (an in-place
    write raises NumPy's error), where PyTorch writes into it anyway; both warn.

    Raises:
        ValueError: an empty buffer with ``count=-1``; an ``offset`` or ``count`` past the end;
            a length that is not a whole number of elements (PyTorch's messages).
    """
    import warnings

    import numpy as np
    dt = _dt.dtype_arg(dtype, "frombuffer")
    size = dt.np.itemsize
    length = memoryview(buffer).nbytes
    if length == 0 and count == -1 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size != 0:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if memoryview(buffer).readonly and not _FROMBUFFER_WARNED:
        _FROMBUFFER_WARNED.append(True)
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to copy "
                      "the buffer to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of this "
                      "program.", UserWarning, stacklevel=2)
    out = from_numpy(np.frombuffer(buffer, dtype=dt.np, count=count, offset=offset))
    return out.requires_grad_() if requires_grad else out
