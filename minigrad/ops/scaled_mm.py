"""``_scaled_mm``: the float8 matrix product with per-tensor (or row-wise) scales, as PyTorch 2.13's
CPU implementation (measured against torch 2.13 CPU, tests/unit/test_float8.py).

PyTorch's CPU op takes one of two paths, chosen by the CPU, and so does this one
(``numerics.ONEDNN_FP8``):

- ``mat1`` and ``mat2`` of the same float8 dtype on a CPU with AMX-INT8 go to oneDNN, which
  scales every product before it sums: for k in order, ``acc += (a[i, k] * b[k, j]) * scale_a *
  scale_b`` in fp32, then ``+ bias`` (in fp32), and one rounding to ``out_dtype`` (bit for bit
  with torch, measured for K up to 1024). Row-wise scales (``scale_a`` (m, 1), ``scale_b`` (1,
  n)): ``(a * scale_a) @ (b * scale_b)`` in fp32; oneDNN's order there is NOT reproduced
  (measured: relative differences up to ~3e-6 from torch, i.e. a few fp32 ULPs). A float8
  output is rounded through float16 first (fp32 -> fp16 -> fp8, both to nearest even, NOT
  saturating: e4m3fn overflow gives NaN, e5m2 inf). oneDNN accepts e4m3fn and e5m2 only; the
  fnuz formats, float64 and integer outputs or biases raise its "itensor_view_from_dense" error.
- everywhere else (CPUs without AMX-INT8 (most), and mixed float8 dtypes) ATen's emulated path:
  scales of dtype float32 only; ``(fp32(a) * scale_a) @ (fp32(b) * scale_b)`` in fp32, plus the
  bias, times ``1 / scale_result`` for a float8 output, then the ordinary cast
  (``.to(out_dtype)``: e4m3fn saturates, minigrad/_fp8.py); any output dtype.

``use_fast_accum`` is accepted and ignored, as on PyTorch's CPU; so is ``scale_result`` on the
oneDNN path. The emulated path's fp32 ``mm`` runs in NumPy's summation order, not MKL's: there
results can differ in the last fp32 bit where partial sums round. The output records no gradient
(PyTorch's CPU op has no derivative: its result's ``grad_fn`` is not a usable node).
"""
from __future__ import annotations

import numpy as np

from .. import _fp8
from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import register_op
from ..tensor import Tensor
from ._util import wrap

_ONEDNN_DTYPES = ("float32", "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2")


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _stride(t):
    return "[" + ", ".join(str(s) for s in t.stride()) + "]" if t.ndim else "[]"


def _config_error(a, b, sa, sb):
    m, n = a.shape[0], b.shape[1]
    return ValueError(
        "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, "
        "scales should be float and singletons.\n- For RowWise scaling, a and b should be "
        f"float8, scales should be float, scale_a should be ({m}, 1) and scale_b should be "
        f"(1, {n}), and both should be contiguous.\nGot mat_a.dtype()={a.dtype.scalar_name}, "
        f"scale_a.dtype()={sa.dtype.scalar_name}, scale_a.size()={_shape(sa)}, "
        f"scale_a.stride()={_stride(sa)}, mat_b.dtype()={b.dtype.scalar_name}, "
        f"scale_b.dtype()={sb.dtype.scalar_name}, scale_b.size()={_shape(sb)} and "
        f"scale_b.stride()={_stride(sb)}")


def _onednn_check(dt):
    if dt.name not in _ONEDNN_DTYPES:
        raise RuntimeError("itensor_view_from_dense expects float/bfloat16/half/int8/fp8 "
                           f"tensor input{dt.scalar_name}")


def _f32(t):
    return np.asarray(_fp8.from_float8(t._data, np.dtype(np.float32)) if t.dtype.is_float8
                      else t._data.astype(np.float32))


def _onednn_accumulate(a, b, sa, sb):
    """oneDNN's float8 gemm on this CPU, bit for bit (measured on torch 2.13 for K up to 1024):
    for k = 0, 1, ... in order, ``acc += (a[:, k] * b[k, :]) * sa * sb``, every product,
    scaling and sum rounded to fp32 (no fma). ``sa``/``sb``: scalars or (m, 1)/(1, n)."""
    m, k = a.shape
    acc = np.zeros((m, b.shape[1]), np.float32)
    for i in range(k):
        t = np.multiply.outer(a[:, i], b[i]).astype(np.float32)
        acc += (t * sa).astype(np.float32) * sb
    return acc


@register_op("_scaled_mm")
def _scaled_mm(input, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
               use_fast_accum=False):
    """``torch._scaled_mm(mat1, mat2, scale_a, scale_b, bias=None, scale_result=None,
    out_dtype=None, use_fast_accum=False)``: ``(mat1 @ mat2) * scale_a * scale_b + bias`` for
    float8 ``mat1`` (m, k) and ``mat2`` (k, n), in ``out_dtype`` (default: ``mat1``'s dtype).

    Scales: both singletons (per-tensor; float32, or on the oneDNN path any real dtype) or
    ``scale_a`` (m, 1) and ``scale_b`` (1, n), float32 and contiguous (row-wise). ``bias``: n
    elements. Numerics and the two paths (oneDNN for equal float8 dtypes on a CPU with
    AMX-INT8, ATen's emulated path elsewhere): the module docstring.

    Raises:
        TypeError: a matrix or scale that is not a Tensor (PyTorch's argument message).
        RuntimeError: "mat1 must be a matrix", "mat2 must be a matrix", "Bias must be size 16
            but got 15"; mismatched shapes: "mat1 and mat2 shapes cannot be multiplied (16x32
            and 16x16)" (oneDNN path; "mat_a and mat_b ..." on the emulated one); on the
            oneDNN path also "Expected mat1 to be Float8 matrix got Float" (two matrices of one
            dtype that is not float8) and oneDNN's "itensor_view_from_dense expects
            float/bfloat16/half/int8/fp8 tensor inputDouble" for a dtype it lacks.
        ValueError: "Invalid scaling configuration. ..." (non-float8 matrices, scales of
            other shapes or, on the emulated path, of a dtype other than float32), PyTorch's
            full message.
    """
    for pos, (name, t) in enumerate((("input", input), ("mat2", mat2), ("scale_a", scale_a),
                                     ("scale_b", scale_b)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"_scaled_mm(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(t).__name__}")
    if input.ndim != 2:
        raise RuntimeError("mat1 must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    out_dt = input.dtype if out_dtype is None else _dt.as_dtype(out_dtype)
    if input.dtype is mat2.dtype and _nx.ONEDNN_FP8:
        return _scaled_mm_onednn(input, mat2, scale_a, scale_b, bias, out_dt)
    # ATen reads ``scale_result`` only for an ``out_dtype`` given as e4m3fn or e5m2
    given_f8 = out_dtype is not None and out_dt.name in ("float8_e4m3fn", "float8_e5m2")
    return _scaled_mm_emulated(input, mat2, scale_a, scale_b, bias,
                               scale_result if given_f8 else None, out_dt)


def _rowwise(a, b, sa, sb):
    """ATen's row-wise scaling test: float8 matrices, float32 contiguous scales of shapes
    (m, 1) and (1, n)."""
    m, n = a.shape[0], b.shape[1]
    return a.dtype.is_float8 and b.dtype.is_float8 and tuple(sa.shape) == (m, 1) and \
        tuple(sb.shape) == (1, n) and sa.dtype is _dt.float32 and sb.dtype is _dt.float32 and \
        sa.is_contiguous() and sb.is_contiguous()


def _scaled_mm_onednn(input, mat2, scale_a, scale_b, bias, out_dt):
    """The oneDNN path (module docstring): one float8 dtype, on a CPU with AMX-INT8."""
    m, n = input.shape[0], mat2.shape[1]
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied "
                           f"({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    if not input.dtype.is_float8:
        raise RuntimeError(f"Expected mat1 to be Float8 matrix got {input.dtype.scalar_name}")
    if scale_a.numel() == 1 and scale_b.numel() == 1:      # per-tensor: any real scale dtype
        sa = np.float32(_f32(scale_a).reshape(()))
        sb = np.float32(_f32(scale_b).reshape(()))
        rowwise = False
    elif _rowwise(input, mat2, scale_a, scale_b):
        rowwise = True
    else:
        raise _config_error(input, mat2, scale_a, scale_b)
    _onednn_check(input.dtype)
    if bias is not None:
        _onednn_check(bias.dtype)
    _onednn_check(out_dt)
    if bias is not None and bias.numel() != n:
        raise RuntimeError(f"Bias must be size {n} but got {bias.numel()}")
    a, b = _f32(input), _f32(mat2)
    with np.errstate(over="ignore", invalid="ignore"):
        if not rowwise:
            out = _onednn_accumulate(a, b, sa, sb)
        else:       # row-wise: oneDNN's order not reproduced (module docstring)
            out = np.matmul((a * _f32(scale_a)).astype(np.float32),
                            (b * _f32(scale_b)).astype(np.float32)).astype(np.float32)
        if bias is not None:
            out = (out + _f32(bias).reshape(n)).astype(np.float32)
        if out_dt.is_float8:      # oneDNN: fp32 -> fp16 -> fp8, no saturation
            res = out.astype(np.float16).astype(out_dt.np)
            return Tensor._make(res, out_dt)
    return wrap(out, out_dt)


def _scaled_mm_emulated(input, mat2, scale_a, scale_b, bias, scale_result, out_dt):
    """ATen's emulated path (``_scaled_mm_out_cpu_emulated``, module docstring), its checks in
    its order: the scaling configuration, then the shapes, then the bias. ``scale_result``:
    None unless ``out_dtype`` was given as a float8 format (the output is divided by it)."""
    m, n = input.shape[0], mat2.shape[1]
    f8 = input.dtype.is_float8 and mat2.dtype.is_float8
    if f8 and scale_a.numel() == 1 and scale_b.numel() == 1 and \
            scale_a.dtype is _dt.float32 and scale_b.dtype is _dt.float32:
        sa = np.float32(_f32(scale_a).reshape(()))
        sb = np.float32(_f32(scale_b).reshape(()))
    elif _rowwise(input, mat2, scale_a, scale_b):
        sa, sb = _f32(scale_a), _f32(scale_b)
    else:
        raise _config_error(input, mat2, scale_a, scale_b)
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError("mat_a and mat_b shapes cannot be multiplied "
                           f"({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    if bias is not None and bias.numel() != n:
        raise RuntimeError(f"Bias must be size {n} but got {bias.numel()}")
    with np.errstate(over="ignore", invalid="ignore"):
        a = (_f32(input) * sa).astype(np.float32)       # at::mul(mat_a.to(kFloat), scale_a)
        b = (_f32(mat2) * sb).astype(np.float32)
        out = np.matmul(a, b).astype(np.float32)
        if bias is not None:                            # out_tmp.add_(bias): fp32 result
            out = np.add(out, _bias_values(bias).reshape(n)).astype(np.float32)
        if scale_result is not None:                    # (a float8 out_dtype: the caller)
            out = (out * np.float32(1 / np.float32(_f32(scale_result).reshape(())))).astype(
                np.float32)
    return wrap(out, out_dt)


def _bias_values(bias):
    """The bias as ``add_`` reads it: float64 stays float64 (the sum rounds once to fp32)."""
    return bias._data if bias.dtype is _dt.float64 else _f32(bias)
