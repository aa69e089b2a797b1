"""Kernel helpers shared by all ops: opmath upcast, the one rounding, scalar handling, dims.

The numerics contract lives here so that no op re-implements it:
- ``opmath(x, dtype)``: the input as an array in the compute dtype (fp32 for fp16/bf16 results).
- ``wrap(arr, dtype)``: round ONCE into the result dtype and make the output Tensor.
- PyTorch's scalar rules (``scalar_add``, ``scalar_mul``, ``scalar_in``) are in
  ``minigrad.numerics``; ``check_scalar`` raises its overflow error for a number argument.
"""
from __future__ import annotations

import numpy as np

from .. import _fp8, _widening
from .. import numerics as _nx
from .. import dtypes as _dt
from .._fp16 import MIN_SIZE as _F16_MIN, float16_to_float32 as _f16_to_f32, \
    float32_to_float16 as _f32_to_f16, float32_to_float16_widened as _f32_to_f16_widened
from ..autograd.engine import _task as _engine_task     # (its task_id: -1 outside backward)
from ..tensor import Tensor

LOW = (_dt.float16, _dt.bfloat16)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_make = Tensor._make      # bound once: cheaper per call than the class attribute


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def opmath(x, dtype):
    """``x`` (Tensor, array or Python scalar) as an array/scalar in opmath(``dtype``).

    For fp16/bf16 results this is float32; integer results compute in int64 (bool in bool).
    """
    cd = dtype.opmath.np
    if isinstance(x, Tensor):
        x = x._data
    if isinstance(x, np.ndarray):
        if x.dtype == cd:
            return x
        if x.dtype == _F16 and cd == _F32 and x.size >= _F16_MIN:
            return _f16_to_f32(x)          # bit-identical to astype, faster (minigrad/_fp16.py)
        if _fp8.is_float8(x.dtype):
            return _fp8.from_float8(x, cd)     # PyTorch's NaN bits (minigrad/_fp8.py)
        return x.astype(cd)
    return cd.type(x)


def opmath_read(x, dtype):
    """``opmath(x, dtype)`` for a kernel that only reads the result (a matmul operand, a sum's
    input): an fp16 tensor's fp32 image comes from the widening cache (``minigrad._widening``:
    the same bits, widened once per array and version), which keeps it for the next reader.
    Never write into the result: it may be shared (as ``opmath``'s is for an fp32 input)."""
    if isinstance(x, Tensor) and x.dtype is _dt.float16 and dtype.opmath.np == _F32:
        return _widening.widen(x)
    return opmath(x, dtype)


def wrap_widened(arr, dtype) -> Tensor:
    """``wrap(arr, dtype)`` for a result that an op may widen next (an fp16 matmul's in a
    backward: a weight's gradient, widened back to fp32 by autocast's ``ToCopyBackward0``):
    while a backward runs, an fp32 ``arr`` rounded to fp16 also gives the result's fp32 image,
    in one more pass, kept in the widening cache (``minigrad._widening``). The same result as
    ``wrap``."""
    if dtype is _dt.float16 and type(arr) is np.ndarray and arr.dtype == _F32 and \
            arr.size >= _F16_MIN and not ROUNDING_WATCHERS and _engine_task.task_id != -1:
        h, w = _f32_to_f16_widened(arr)
        t = _make(h, dtype)
        _widening.put(t, w)
        return t
    return wrap(arr, dtype)


# callables ``watcher(opmath_array, rounded_array, dtype)`` told of every rounding ``wrap`` does
# (amp_emu.numerics.NumericsMonitor counts overflows and flushes to zero through it)
ROUNDING_WATCHERS = []


def wrap(arr, dtype) -> Tensor:
    """Round ``arr`` once into ``dtype`` storage and wrap it as a Tensor (no grad metadata)."""
    npd = dtype.np
    if not isinstance(arr, np.ndarray):
        arr = np.asarray(arr)
    if arr.dtype != npd:
        src = arr
        if npd == _F16 and arr.dtype == _F32 and arr.size >= _F16_MIN:
            arr = _f32_to_f16(arr)         # bit-identical to astype, faster (minigrad/_fp16.py)
        elif dtype.is_float8:
            arr = _fp8.to_float8(arr, npd)     # PyTorch's float8 rules (minigrad/_fp8.py)
        elif _fp8.is_float8(arr.dtype) and dtype.is_floating_point:
            arr = _fp8.from_float8(arr, npd)
        else:
            token = _nx.quiet()            # out of range -> inf / nan, silently as PyTorch
            try:
                arr = arr.astype(npd)
            finally:
                _nx.unquiet(token)
        if ROUNDING_WATCHERS:
            for w in ROUNDING_WATCHERS:
                w(src, arr, dtype)
    return _make(arr, dtype)


_MAX = {"float16": 65504.0, "bfloat16": float(_dt.finfo(_dt.bfloat16).max),
        "float32": float(_dt.finfo(_dt.float32).max),
        **{d.name: _dt.finfo(d).max for d in _dt.float8_dtypes}}
# float8 formats without an infinity: c10's checked_convert refuses inf for them
_NO_INF = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2fnuz")


def check_scalar(value, dtype):
    """PyTorch's ``checked_convert`` of a Python-number argument (a fill value, a scalar bound,
    ``alpha``, a pow exponent) into a floating ``dtype``.

    Raises:
        RuntimeError: a finite value outside the dtype's range ("value cannot be converted to
            type c10::Half without overflow"; 65519 raises though it would round to 65504);
            for float8 formats without an infinity (all but e5m2), inf raises too.
    """
    top = _MAX.get(dtype.name)
    if top is None or value.__class__ is bool or \
            not isinstance(value, (int, float, np.integer, np.floating)):
        return
    v = abs(float(value))
    if top < v and (v < float("inf") or dtype.name in _NO_INF):  # (NaN and inf convert)
        raise RuntimeError(f"value cannot be converted to type {dtype.c10_name} without "
                           "overflow")


def refuse_float8(x, kernel):
    """PyTorch's CPU refusal of arithmetic on a float8 tensor ``x``: its kernels dispatch over
    the float/half/bfloat16 types only.

    Raises:
        NotImplementedError: ``'"sum_cpu" not implemented for 'Float8_e4m3fn''`` when ``x`` is
            a float8 Tensor (``kernel`` is PyTorch's kernel name in the message).
    """
    if isinstance(x, Tensor) and x.dtype.is_float8:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{x.dtype.scalar_name}\'')


def _index_dim(dim) -> int:
    """A dim given as another object with ``__index__`` (a 0-dim integer Tensor), read as an
    int, as PyTorch's argument parser does.

    Raises:
        TypeError: anything else ("dim must be an int, got float").
    """
    if hasattr(dim, "_data") and dim.ndim == 0 and not dim.dtype.is_floating_point and \
            dim.dtype.name != "bool":
        return int(dim.item())
    raise TypeError(f"dim must be an int, got {type(dim).__name__}")


def wrap_dim(dim: int, ndim: int) -> int:
    """Normalise a possibly negative dim; 0-dim tensors accept dims -1 and 0.

    Raises:
        IndexError: "Dimension out of range (expected to be in range of [-n, n-1], but got d)".
    """
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        dim = _index_dim(dim)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return int(dim) % n


def wrap_dims(dim, ndim):
    """Normalise ``None``/int/sequence dims to a sorted tuple (None or () -> all dims).

    Raises:
        IndexError: a dim out of range; RuntimeError: a dim repeated.
    """
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)) or (hasattr(dim, "_data") and dim.ndim == 0):
        dim = (dim,)
    out = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return tuple(sorted(out))


def broadcast_shapes(*shapes):
    """PyTorch's broadcast of shapes.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor b (4) at
            non-singleton dimension 1".
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i in range(len(s) - 1, -1, -1):     # from the last dim, as PyTorch reports it
            v = s[i]
            j = ndim - len(s) + i
            if out[j] == 1:
                out[j] = v
            elif v != 1 and v != out[j]:
                raise RuntimeError(f"The size of tensor a ({out[j]}) must match the size of tensor "
                                   f"b ({v}) at non-singleton dimension {j}")
    return tuple(out)


def check_scalar_or_tensor(x, op):
    """Raise TypeError for an argument that is neither a Tensor nor a Python number, and
    PyTorch's OverflowError for a Python int no Scalar holds (``check_int_scalar``)."""
    if not isinstance(x, (Tensor, bool, int, float, np.number, np.bool_)):
        raise TypeError(f"{op}(): argument 'other' must be Tensor or Number, not "
                        f"{type(x).__name__}")
    if x.__class__ is int:
        check_int_scalar(x)


def check_int_scalar(x):
    """PyTorch's argument parser reads a Python int into a Scalar as int64, or as uint64 when
    it is larger (``PyLong_AsUnsignedLongLong``): outside [-2**63, 2**64) that raises.

    Raises:
        OverflowError: "int too big to convert" (too large), "can't convert negative int to
            unsigned" (below -2**63), as PyTorch.
    """
    if not -9223372036854775808 <= x < 18446744073709551616:
        raise OverflowError("can't convert negative int to unsigned" if x < 0 else
                            "int too big to convert")


def tf32_operands(dtype, tensor, *arrays):
    """The fp32 operands of a matmul or convolution, rounded to TF32 when PyTorch's CUDA would
    use TF32 for it: an fp32 op on the (emulated) cuda device while
    ``backends.cuda.matmul.allow_tf32`` is set (``set_float32_matmul_precision("high")`` or
    ``"medium"``). The emulated device has no cuDNN, so its convolutions are PyTorch's
    cuBLAS-based fallback and follow the same flag (``backends.cudnn.allow_tf32`` has no
    effect). Otherwise ``arrays`` unchanged (a tuple)."""
    from ..backends.cuda import _precision
    if _precision[0] == "highest" or dtype is not _dt.float32 or \
            tensor._device.type != "cuda":
        return arrays
    from ..numerics import round_tf32
    return tuple(round_tf32(a) for a in arrays)
