"""Factories: tensor, zeros, ones, full, *_like, empty, arange, eye, linspace, randn, rand,
randint, randperm, normal: the kernels, each registered as an op; ``minigrad.zeros`` & co.
(``minigrad/_functional/factories.py``) dispatch them, so modes see every factory call.

Mirror the ``torch`` factories' signatures and dtype inference (float scalars -> default dtype,
ints -> int64, bools -> bool; NumPy arrays keep their dtype). Every factory takes ``device=``
("cpu", "cuda", "cuda:0", a ``minigrad.device``; default cpu, and ``input``'s device for the
``*_like`` ones). The emulated cuda device draws random numbers from minigrad's one generator (a
deliberate difference: PyTorch's CUDA generator is a separate stream), so ``randn(3,
device="cuda")`` equals ``randn(3)`` after the same ``manual_seed``.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .. import devices as _devices
from .. import memory_layout as _mf
from .. import _fp8
from .._fp16 import float16_to_float32, float32_to_float16
from ..dispatch import register_op
from ..random import _gen
from ..tensor import Tensor
from . import _distributions as D
from ._util import check_int_scalar, check_scalar, wrap

__all__ = ["tensor", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "eye", "linspace",
           "logspace", "randn", "rand", "randint", "randperm", "randn_like", "rand_like", "normal"]


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"size must be a sequence of ints, got element of type "
                            f"{type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _finish(t, requires_grad, device=None):
    """Put a new tensor on ``device`` (None: cpu) and set ``requires_grad``."""
    if device is not None:
        dev = _devices.as_device(device)
        if dev is not _devices.CPU:
            t._device = dev
            _devices.state.cuda_seen = True
            _devices.track_storage(t)
    if requires_grad:
        if not t.dtype.is_floating_point:       # a factory's own wording (PyTorch's)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad_(True)
    return t


def _device_of(input, device):
    """``*_like`` factories: ``device`` when given, else ``input``'s."""
    return input._device if device is None else device


def _is_other_sequence(x) -> bool:
    """Python's sequence protocol beyond list/tuple (``deque``, ``range``, ``array.array``...),
    which PyTorch's ``tensor()`` reads as a list; not str/bytes, mappings, tensors or arrays."""
    return (not isinstance(x, (list, tuple, str, bytes, bytearray, dict, Tensor, np.ndarray,
                               np.generic))
            and hasattr(type(x), "__len__") and hasattr(type(x), "__getitem__")
            and not hasattr(type(x), "keys"))


def _plain_sequences(data):
    """``data`` with every other sequence (see ``_is_other_sequence``) turned into a list;
    ``data`` itself when there is none."""
    if _is_other_sequence(data):
        return [_plain_sequences(x) for x in data]
    if isinstance(data, (list, tuple)) and any(_is_other_sequence(x) or
                                               isinstance(x, (list, tuple)) for x in data):
        new = [_plain_sequences(x) for x in data]
        return new if any(a is not b for a, b in zip(new, data)) else data
    return data


def _infer_dtype(data):
    """PyTorch's dtype inference for Python data: Python floats give the default dtype, ints
    int64, bools bool, tensors their own dtype, and a sequence the ``promote_types`` of its
    elements (so ``[fp16 tensor, 2]`` is float16, ``[fp16 tensor, 2.5]`` float32)."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return _dt.from_numpy(np.asarray(data).dtype)
    out = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = x.dtype
        elif isinstance(x, (np.ndarray, np.generic)):    # NumPy scalars keep their dtype
            d = _dt.from_numpy(x.dtype)
        elif isinstance(x, (bool, np.bool_)):
            d = _dt.bool_
        elif isinstance(x, (int, np.integer)):
            d = _dt.int64
        elif isinstance(x, (float, np.floating)):
            d = _dt.get_default_dtype()
        elif isinstance(x, (str, bytes)):         # PyTorch's texts
            first = data                          # PyTorch sizes the data by first elements
            while isinstance(first, (list, tuple)) and first:
                first = first[0]
            if first is not data and isinstance(first, str):
                raise ValueError(f"too many dimensions '{type(first).__name__}'")
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        out = d if out is None else _dt.promote_types(out, d)
    return out if out is not None else _dt.get_default_dtype()


def _ragged_error(data) -> Exception:
    """PyTorch's error for a ragged nested list: the sizes come from the first element at each
    depth; the first sequence (in order) whose length differs is named with its dim (ValueError),
    a number where a sequence should be is "not a sequence" (TypeError), and a sequence where a
    number should be is the number conversion's TypeError."""
    shape, x = [], data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]
    integral = isinstance(x, (bool, int, np.integer))

    def walk(x, dim):
        if dim == len(shape):
            if not isinstance(x, (list, tuple)):
                return None
            return TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer"
                             if integral else f"must be real number, not {type(x).__name__}")
        if not isinstance(x, (list, tuple)):
            return TypeError("not a sequence")
        if len(x) != shape[dim]:
            return ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                              f"(got {len(x)})")
        for y in x:
            err = walk(y, dim + 1)
            if err is not None:
                return err
        return None

    return walk(data, 0) or ValueError("tensor(): the nested sequences are ragged")


def _check_int_range(data, dt):
    """PyTorch's checks of Python ints given for an integer dtype.

    Raises:
        ValueError: an int outside int64 ("Overflow when unpacking long long").
        RuntimeError: an int that does not fit ``dt`` ("value cannot be converted to type int8
            without overflow"; unsigned types take negatives down to -max, wrapping).
    """
    info = np.iinfo(dt.np)
    lo = -int(info.max) if info.min == 0 else int(info.min)
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, int) and not isinstance(x, bool):
            if not -2**63 <= x < 2**63:
                raise ValueError("Overflow when unpacking long long")
            if not lo <= x <= int(info.max):
                raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                                   "overflow")


def _to_array(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return np.array([_elem(x) for x in data], dtype=np.float64 if _has_float(data) else None)
    return np.asarray(data)


def _elem(x):
    if isinstance(x, (list, tuple)):
        return _to_array(x)
    if isinstance(x, Tensor):           # as torch: tensors inside a sequence must be scalars
        if x.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x.item()
    return x


def _has_float(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            if _has_float(x):
                return True
        elif isinstance(x, (float, np.floating)) or (isinstance(x, Tensor) and
                                                      x.dtype.is_floating_point):
            return True
    return False


def _convert(arr, dtype):
    """Convert an array to ``dtype`` storage as PyTorch's copy kernel does: 16-bit targets from
    float64/int64 go through float32 first (c10::Half/BFloat16 are built from float); float8 casts
    follow ``minigrad._fp8`` (e4m3fn saturates, PyTorch's NaN bits)."""
    if arr.dtype == dtype.np:
        return arr
    if dtype.is_float8:                     # bit-exact PyTorch rules: minigrad/_fp8.py
        return _fp8.to_float8(arr, dtype.np)
    if _fp8.is_float8(arr.dtype):
        if dtype.is_floating_point:
            return _fp8.from_float8(arr, dtype.np)
        arr = _fp8.to_float32(arr)
    if dtype in (_dt.float16, _dt.bfloat16) and arr.dtype not in (np.float32,):
        if arr.dtype.kind in "fiub" or arr.dtype == _dt.bfloat16.np or arr.dtype == np.float16:
            with np.errstate(over="ignore"):       # (via fp32, as c10's casts): 1e300 -> inf
                arr = arr.astype(np.float32)
    if dtype.is_floating_point is False and dtype is not _dt.bool_ and (
            arr.dtype.kind == "f" or arr.dtype == _dt.bfloat16.np):
        # NaN / inf / out-of-range values cast as ATen's do (no RuntimeWarning: torch is silent)
        with np.errstate(invalid="ignore"):
            return np.trunc(arr.astype(np.float64)).astype(dtype.np)
    if dtype is _dt.float16 and arr.dtype == np.float32:
        return float32_to_float16(arr)      # bit-identical to astype, faster (minigrad/_fp16.py)
    if dtype is _dt.float32 and arr.dtype == np.float16:
        return float16_to_float32(arr)
    with np.errstate(over="ignore", invalid="ignore"):     # e.g. 1e300 -> inf in fp32
        return arr.astype(dtype.np)


@register_op("tensor")
def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Build a new leaf tensor from Python data, a NumPy array or a Tensor (``torch.tensor``).

    Args:
        data: number, (nested) list/tuple or other Python sequence (``deque``, ``range``),
            NumPy array or Tensor (copied).
        dtype: the result dtype; inferred as PyTorch does when None (floats -> default dtype,
            ints -> int64, bools -> bool, NumPy arrays keep theirs).
        device: where the result lives; default cpu, or ``data``'s device when it is a Tensor.
        requires_grad: make the result require grad (floating dtypes only).
        pin_memory: accepted and ignored (host memory is all there is).

    Raises:
        TypeError: for a string ("new(): invalid data type 'str'").
        RuntimeError: for data of a type with no dtype ("Could not infer dtype of dict").
        ValueError: for ragged nested lists; a list of strings ("too many dimensions 'str'").
        RuntimeError: requires_grad=True on a non-floating dtype.
    """
    data = _plain_sequences(data)       # a deque or range reads as a list, as in PyTorch
    dt = _dt.dtype_arg(dtype, "tensor") if dtype is not None else _infer_dtype(data)
    if not dt.is_floating_point and dt is not _dt.bool_ and isinstance(data, (int, list, tuple)):
        _check_int_range(data, dt)
    try:
        arr = _to_array(data)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    except ValueError as e:
        if "one element" in str(e):
            raise
        raise _ragged_error(data) from None
    if arr.dtype == object:
        if all(isinstance(v, int) for v in arr.reshape(-1)):
            raise ValueError("Overflow when unpacking long long")
        raise TypeError("tensor(): could not infer dtype of the given data")
    arr = np.array(_convert(arr, dt), dtype=dt.np, copy=True)
    if device is None and isinstance(data, Tensor):
        device = data._device
    return _finish(Tensor._make(arr, dt), requires_grad, device)


def from_numpy(arr):
    """A tensor sharing memory with a NumPy array (``torch.from_numpy``).

    Raises:
        TypeError: for an array of a dtype minigrad lacks.
    """
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    return Tensor._make(arr, _dt.from_numpy(arr.dtype))


def _fill_dtype(fill_value):
    if isinstance(fill_value, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(fill_value, (int, np.integer)):
        return _dt.int64
    return _dt.get_default_dtype()


@register_op("full")
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of ``size`` filled with ``fill_value`` (``torch.full``); dtype inferred from the
    value when None (bool -> bool, int -> int64, float -> default dtype)."""
    size = _size((size,) if isinstance(size, (int, np.integer)) else tuple(size))
    if fill_value.__class__ is int:
        check_int_scalar(fill_value)        # the argument parser's Scalar: OverflowError
    dt = _dt.dtype_arg(dtype, "full") if dtype is not None else _fill_dtype(fill_value)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    elif isinstance(fill_value, int) and not isinstance(fill_value, bool) and \
            not dt.is_floating_point and dt is not _dt.bool_:
        info = np.iinfo(dt.np)          # c10's checked_convert (unsigned: down to -max, wrapping)
        lo = -int(info.max) if info.min == 0 else int(info.min)
        if not lo <= fill_value <= int(info.max):
            raise RuntimeError(f"value cannot be converted to type {dt.c10_name} without "
                               "overflow")
    elif math.prod(size) != 1:      # one element: PyTorch's scalar_fill, a plain cast
        check_scalar(fill_value, dt)
    arr = np.full(size, _convert(np.asarray(fill_value), dt), dtype=dt.np)
    return _finish(Tensor._make(arr, dt), requires_grad, device)


@register_op("zeros")
def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of zeros (``torch.zeros``); dtype defaults to the default float dtype."""
    dt = _dt.dtype_arg(dtype, "zeros") if dtype is not None else _dt.get_default_dtype()
    return _finish(Tensor._make(np.zeros(_size(size), dtype=dt.np), dt), requires_grad, device)


@register_op("ones")
def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of ones (``torch.ones``); dtype defaults to the default float dtype."""
    dt = _dt.dtype_arg(dtype, "ones") if dtype is not None else _dt.get_default_dtype()
    return _finish(Tensor._make(np.ones(_size(size), dtype=dt.np), dt), requires_grad, device)


@register_op("empty")
def empty(*size, dtype=None, device=None, requires_grad=False, out=None, memory_format=None):
    """Same as ``zeros`` (``torch.empty``; minigrad zero-fills for determinism), laid out in
    ``memory_format`` (``channels_last`` for a 4-D size...).

    Raises:
        RuntimeError: a channels-last format for a size of another rank.
    """
    if dtype is not None:
        dtype = _dt.dtype_arg(dtype, "empty")
    t = zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)
    if memory_format is not None:
        if memory_format is _mf.preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        arr = _mf.empty_as(t._data.shape, t._data.dtype, memory_format)
        arr[...] = 0
        t._data = arr
    return t


def _like(input, dtype, fname="zeros_like"):
    if not isinstance(input, Tensor):
        raise TypeError(f"expected a Tensor, got {type(input).__name__}")
    return input.shape, (_dt.dtype_arg(dtype, fname) if dtype is not None else input.dtype)


def _plain_like(input, dtype, device, requires_grad, memory_format):
    """Whether a ``*_like`` call is the plain one: no argument but ``input``, a row-major cpu
    tensor. Then the general path (``_like``, the factory, ``_finish``, ``_in_format``) only
    makes a row-major array of ``input``'s shape and dtype, and ``zeros_like``/``ones_like``
    make it directly (``tests/unit/test_factory_fast_paths.py`` compares the two)."""
    return (dtype is None and device is None and not requires_grad and memory_format is None
            and type(input) is Tensor and input._device is _devices.CPU
            and input._data.flags.c_contiguous)


def _in_format(t, input, memory_format):
    """``t`` (a new row-major tensor) laid out as ``empty_like(input, memory_format=...)``
    would be (None is ``preserve_format``: a dense input's strides are kept)."""
    fmt = _mf.preserve_format if memory_format is None else memory_format
    if fmt is _mf.preserve_format and input._data.flags.c_contiguous or \
            fmt is _mf.contiguous_format:
        return t
    arr = _mf.layout_like(input._data, t._data.dtype, fmt)
    np.copyto(arr, t._data)
    t._data = arr
    return t


@register_op("zeros_like")
def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Zeros of ``input``'s shape, dtype and device (``torch.zeros_like``), laid out as
    ``memory_format`` says (default ``preserve_format``: ``input``'s strides when dense).

    Raises:
        RuntimeError: a channels-last format for a tensor of another rank.
    """
    if _plain_like(input, dtype, device, requires_grad, memory_format):
        return Tensor._make(np.zeros(input._data.shape, input.dtype.np), input.dtype)
    shape, dt = _like(input, dtype)
    return _in_format(zeros(shape, dtype=dt, device=_device_of(input, device),
                            requires_grad=requires_grad), input, memory_format)


@register_op("ones_like")
def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Ones of ``input``'s shape, dtype and device (``torch.ones_like``); layout as
    ``zeros_like``."""
    if _plain_like(input, dtype, device, requires_grad, memory_format):
        # (the engine's implicit gradient of a scalar loss takes this path)
        return Tensor._make(np.ones(input._data.shape, input.dtype.np), input.dtype)
    shape, dt = _like(input, dtype, "ones_like")
    return _in_format(ones(shape, dtype=dt, device=_device_of(input, device),
                           requires_grad=requires_grad), input, memory_format)


@register_op("full_like")
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` in ``input``'s shape, dtype and device (``torch.full_like``); layout as
    ``zeros_like``."""
    shape, dt = _like(input, dtype, "full_like")
    return _in_format(full(shape, fill_value, dtype=dt, device=_device_of(input, device),
                           requires_grad=requires_grad), input, memory_format)


@register_op("empty_like")
def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Same as ``zeros_like`` (``torch.empty_like``)."""
    if dtype is not None:
        dtype = _dt.dtype_arg(dtype, "empty_like")
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad,
                      memory_format=memory_format)


@register_op("arange")
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """Values ``start, start+step, ...`` below ``end`` (``torch.arange``); int64 when all
    arguments are ints, else the default float dtype.

    Raises:
        RuntimeError: step 0 ("step must be nonzero"), or a step of the wrong sign.
    """
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    is_int = all(isinstance(v, (int, np.integer)) for v in vals)
    dt = _dt.dtype_arg(dtype, "arange") if dtype is not None else (_dt.int64 if is_int else
                                                         _dt.get_default_dtype())
    _no_bool(dt, "arange_cpu")
    n = int(math.ceil((end - start) / step))
    arr = start + np.arange(n, dtype=np.float64 if not is_int else np.int64) * step
    return _finish(Tensor._make(_convert(np.asarray(arr), dt), dt), requires_grad, device)


@register_op("eye")
def eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False):
    """The identity matrix (``torch.eye``)."""
    dt = _dt.dtype_arg(dtype, "eye") if dtype is not None else _dt.get_default_dtype()
    return _finish(Tensor._make(np.eye(n, m, dtype=dt.np), dt), requires_grad, device)


def _tri_indices(name, row, col, offset, dtype, device, requires_grad, lower):
    for pos, (arg, v) in enumerate((("row", row), ("col", col), ("offset", offset)), 1):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not "
                            f"{type(v).__name__}")
    for arg, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{arg} must be non-negative, got{v}")
    dt = _dt.dtype_arg(dtype, name) if dtype is not None else _dt.int64
    if dt not in (_dt.int64, _dt.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.scalar_name}'")
    # the (row, col) pairs on or below (above) diagonal ``offset``, row-major (NumPy's order)
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    out = np.stack([rows, cols]).astype(dt.np).reshape(2, -1)
    return _finish(Tensor._make(out, dt), requires_grad, device)


@register_op("tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The (2, N) row and column indices of the lower triangle of a ``row`` x ``col`` matrix,
    diagonal ``offset`` included (``torch.tril_indices``; int64 by default, or int32).

    Raises:
        TypeError: a non-int size; RuntimeError: a negative size; NotImplementedError:
            another dtype (PyTorch's messages).
    """
    return _tri_indices("tril_indices", row, col, offset, dtype, device, requires_grad, True)


@register_op("triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The (2, N) row and column indices of the upper triangle of a ``row`` x ``col`` matrix,
    diagonal ``offset`` included (``torch.triu_indices``; int64 by default, or int32).

    Raises:
        TypeError: a non-int size; RuntimeError: a negative size; NotImplementedError:
            another dtype (PyTorch's messages).
    """
    return _tri_indices("triu_indices", row, col, offset, dtype, device, requires_grad, False)


@register_op("linspace")
def linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end inclusive (``torch.linspace``).

    Bit-exact with PyTorch's CPU kernel in every dtype (see ``ops._linspace``): the first half
    counts up from ``start``, the second half down from ``end``, in the output's own type.

    Args:
        start, end: Python numbers (0-dim Tensors are read with ``.item()``).
        steps: number of points, an int >= 0.
        dtype: output dtype; default ``get_default_dtype()`` (also for int start/end).

    Raises:
        RuntimeError: when ``steps`` is negative ("number of steps must be non-negative").
    """
    from ._linspace import linspace_array
    dt = _dt.dtype_arg(dtype, "linspace") if dtype is not None else _dt.get_default_dtype()
    start, end = (x.item() if isinstance(x, Tensor) else x for x in (start, end))
    if isinstance(steps, Tensor):
        steps = steps.item()
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _no_bool(dt, "linspace_cpu")
    return _finish(Tensor._make(linspace_array(start, end, steps, dt), dt), requires_grad, device)


@register_op("logspace")
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, device=None,
             requires_grad=False):
    """``steps`` values ``base ** e`` for ``e`` evenly spaced from start to end inclusive
    (``torch.logspace``).

    Bit-exact with PyTorch's CPU kernel in every real dtype (``ops._linspace.logspace_array``):
    the exponents in double (the first half counted up from ``start``, the second down from
    ``end``), glibc's ``pow``, one conversion to the output type.

    Args:
        start, end: Python numbers or 0-dim Tensors (read with ``.item()``).
        steps: number of points, an int >= 0.
        base: the base (default 10.0).
        dtype: output dtype; default ``get_default_dtype()`` (also for int start/end).

    Raises:
        RuntimeError: ``steps`` negative ("number of steps must be non-negative"); a
            ``start``/``end`` Tensor that is not 0-dim; ``start``/``end`` out of ``dtype``'s
            range; ``requires_grad`` with a non-float dtype.
        NotImplementedError: ``dtype=bool`` ("\"logspace_cpu\" not implemented for 'Bool'").
        TypeError: ``steps`` not an int.
    """
    from ._linspace import logspace_array
    dt = _dt.dtype_arg(dtype, "logspace") if dtype is not None else _dt.get_default_dtype()
    dims = [f"{n} with {x.ndim} dimension(s)" for n, x in (("start", start), ("end", end))
            if isinstance(x, Tensor) and x.ndim != 0]
    if dims:
        raise RuntimeError("logspace only supports 0-dimensional start and end tensors, but "
                           f"got {' and '.join(dims)}.")
    start, end = (x.item() if isinstance(x, Tensor) else x for x in (start, end))
    if isinstance(steps, Tensor):
        steps = steps.item()
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"logspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if isinstance(base, Tensor):
        base = base.item()
    if isinstance(base, bool) or not isinstance(base, (int, float, np.integer, np.floating)):
        raise TypeError(f"logspace(): argument 'base' must be float, not "
                        f"{type(base).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _no_bool(dt, "logspace_cpu")
    return _finish(Tensor._make(logspace_array(start, end, steps, base, dt), dt), requires_grad,
                   device)


def _float_dt(dtype, fname):
    dt = _dt.dtype_arg(dtype, fname) if dtype is not None else _dt.get_default_dtype()
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for "
                                  f"'{dt.scalar_name}'")
    return dt


@register_op("randn")
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """Standard-normal samples (``torch.randn``): ``empty(size).normal_()``, PyTorch's
    numbers after the same seed (``minigrad.ops._distributions.normal``)."""
    dt = _float_dt(dtype, "randn")
    shape = _size(size)
    arr = D.normal(_gen(generator), int(np.prod(shape)), 0.0, 1.0, dt).reshape(shape)
    return _finish(Tensor._make(arr, dt), requires_grad, device)


@register_op("rand")
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """Uniform samples in [0, 1) (``torch.rand``): ``empty(size).uniform_()``, PyTorch's
    numbers after the same seed."""
    dt = _float_dt(dtype, "rand")
    shape = _size(size)
    arr = D.uniform(_gen(generator), int(np.prod(shape)), 0.0, 1.0, dt).reshape(shape)
    return _finish(Tensor._make(arr, dt), requires_grad, device)


@register_op("randn_like")
def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """``randn`` with ``input``'s shape (``torch.randn_like``); dtype and device default to
    ``input``'s."""
    shape, dt = _like(input, dtype, "randn_like")
    lay = _like_layout(input, dt, memory_format)
    if lay is not None and not lay.flags.c_contiguous:
        # PyTorch's empty_like lays the result out so, and normal_ on a non-contiguous tensor
        # draws normal_distribution<double> element by element, in memory order
        np.copyto(lay, D.memory_order(D.normal(_gen(None), lay.size, 0.0, 1.0, dt, False), lay))
        return _finish(Tensor._make(lay, dt), requires_grad, _device_of(input, device))
    out = randn(shape, dtype=dt, device=_device_of(input, device), requires_grad=requires_grad)
    if lay is not None:             # dense in row-major order too (size-1 dims): the strides
        np.copyto(lay, out._data)
        out._data = lay
    return out


@register_op("rand_like")
def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """``rand`` with ``input``'s shape (``torch.rand_like``); dtype and device default to
    ``input``'s."""
    shape, dt = _like(input, dtype, "rand_like")
    out = rand(shape, dtype=dt, device=_device_of(input, device), requires_grad=requires_grad)
    lay = _like_layout(input, dt, memory_format)
    if lay is not None:         # the draws in memory order (a fresh tensor)
        np.copyto(lay, D.memory_order(out._data, lay))
        out._data = lay
    return out


def _like_layout(input, dt, memory_format):
    """The uninitialised array ``empty_like(input, dtype=dt, memory_format=...)`` gives, when
    its strides are not row-major ones (a permuted input under ``preserve_format``,
    ``channels_last``...), else None. A random ``*_like`` fills it in memory order, as PyTorch's
    kernels do."""
    a = input._data
    fmt = _mf.preserve_format if memory_format is None else memory_format
    if fmt is _mf.preserve_format and (a.ndim < 2 or not D.permuted(a)):
        return None
    if fmt is _mf.contiguous_format:
        return None
    lay = _mf.layout_like(a, dt.np, fmt)
    return None if lay.strides == np.empty(lay.shape, dt.np).strides else lay


@register_op("randint")
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            device=None, requires_grad=False):
    """Integers uniform in [low, high) (``torch.randint(low=0, high, size)``), int64 default;
    ``low``, ``high`` and ``size`` positional or by keyword, as PyTorch's parser takes them.

    Raises:
        RuntimeError: when low >= high ("random_ expects 'from' to be less than 'to'").
    """
    args = list(args)
    if size is None and args:
        size = args.pop()
    if high is not None:
        args.append(high)
    if low is not None:
        args.insert(0, low)
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    dt = _dt.dtype_arg(dtype, "randint") if dtype is not None else _dt.int64
    if dt.is_floating_point:
        low, high = _update_from_to(int(low), int(high), dt)
    _check_from_to(low, high, dt)
    shape = _size(tuple(size))
    arr = D.randint(_gen(generator), int(np.prod(shape)), low, high).reshape(shape)
    return _finish(Tensor._make(_convert(arr, dt), dt), requires_grad, device)


def _update_from_to(low, high, dt):
    """ATen's ``update_from``/``update_to`` for ``random_(from, to)`` in a floating dtype: the
    bounds move inwards to the nearest integers whose draws, rounded into ``dt``, stay within
    [from, to) (``randint(1000, dtype=bfloat16)`` draws below 996).

    Raises:
        RuntimeError: bounds that meet after the move ("random_ expects 'from' casted to dtype
            to be less than 'to' casted to dtype, ...").
    """
    digits = int(-math.log2(float(_dt.finfo(dt).eps))) + 1

    def rounded(v):                 # static_cast<int64_t>(static_cast<scalar_t>(v))
        with np.errstate(over="ignore"):
            r = float(np.array(float(v)).astype(dt.np).astype(np.float64))
        return int(r) if math.isfinite(r) else None
    up = rounded(low + 1)
    if up is not None and up < low:
        low = up + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    down = rounded(high - 1)
    if down is not None and down >= high:
        high = down - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    if low >= high:
        raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted "
                           f"to dtype, but got from={low} >= to={high}")
    return low, high


def _check_from_to(low, high, dt):
    """PyTorch's ``check_from_to`` for ``random_(from, to)`` in dtype ``dt``: ``from`` and
    ``to - 1`` must be values of the dtype; a floating dtype warns beyond the integers it holds
    exactly (``+-2**digits``).

    Raises:
        RuntimeError: "from is out of bounds for signed char" / "to - 1 is out of bounds for ...".
    """
    import warnings
    if dt.is_floating_point:
        info = _dt.finfo(dt)
        lo, hi, digits = float(info.min), float(info.max), int(-math.log2(info.eps)) + 1
    else:
        lo, hi = (0, 1) if dt is _dt.bool_ else (int(_dt.iinfo(dt).min), int(_dt.iinfo(dt).max))
    for name, v in (("from", low), ("to - 1", high - 1)):
        if not lo <= v <= hi:
            raise RuntimeError(f"{name} is out of bounds for {dt.cpp_name}")
    if dt.is_floating_point:
        for name, v in (("from", low), ("to - 1", high - 1)):
            if abs(v) > 2 ** digits:
                warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {dt.cpp_name} can support discrete "
                              "uniform distribution only within this range. This warning will "
                              "become an error in version 1.7 release, please fix the code in "
                              "advance", UserWarning, stacklevel=4)


def _no_bool(dt, kernel):
    """PyTorch's error for a factory that has no bool kernel (arange, linspace, randperm)."""
    if dt is _dt.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@register_op("randperm")
def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1 (``torch.randperm``), int64 default.

    Raises:
        TypeError: ``n`` not an int (a 0-dim integer tensor is read as one, as PyTorch).
        RuntimeError: a negative ``n`` (PyTorch's "Trying to create tensor with negative
            dimension" message).
    """
    if isinstance(n, Tensor) and n.ndim == 0 and not n.dtype.is_floating_point:
        n = n.item()
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    n = _size((n,))[0]
    dt = _dt.dtype_arg(dtype, "randperm") if dtype is not None else _dt.int64
    _no_bool(dt, "randperm")
    return _finish(Tensor._make(D.randperm(_gen(generator), n).astype(dt.np), dt), requires_grad,
                   device)


@register_op("normal.float_float")
def normal(mean, std, size, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """Normal samples with scalar ``mean`` and ``std`` (``torch.normal(mean, std, size)``)."""
    dt = _float_dt(dtype, "normal")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    shape = _size(tuple(size))
    arr = D.normal(_gen(generator), int(np.prod(shape)), float(mean), float(std), dt)
    return _finish(Tensor._make(arr.reshape(shape), dt), requires_grad, device)


# the factories place their results themselves (device=, or input's for *_like)
_devices.OWN_DEVICE.update(("tensor", "full", "zeros", "ones", "zeros_like", "ones_like",
                            "full_like", "arange", "randn", "rand", "randint", "empty",
                            "empty_like", "eye", "linspace", "logspace", "randn_like", "rand_like",
                            "randperm",
                            "normal.float_float", "randint_like"))
