"""``_scaled_mm``: the float8 matrix product with per-tensor (or row-wise) scales, as PyTorch 2.13's
CPU implementation (measured against torch 2.13 CPU, tests/unit/test_float8.py).

PyTorch's CPU op takes one of two paths, and so does this one:

- ``mat1`` and ``mat2`` of the same dtype go to oneDNN, which scales every product before it
  sums: for k in order, ``acc += (a[i, k] * b[k, j]) * scale_a * scale_b`` in fp32, then
  ``+ bias`` (in fp32), and one rounding to ``out_dtype`` (bit for bit with torch, measured for
  K up to 1024). Row-wise scales (``scale_a`` (m, 1), ``scale_b`` (1, n)): ``(a * scale_a) @
  (b * scale_b)`` in fp32; oneDNN's order there is NOT reproduced (measured: relative
  differences up to ~3e-6 from torch, i.e. a few fp32 ULPs). A float8 output is
  rounded through float16 first (fp32 -> fp16 -> fp8, both to nearest even, NOT saturating:
  e4m3fn overflow gives NaN, e5m2 inf). oneDNN accepts e4m3fn and e5m2 only; the fnuz formats,
  float64 and integer outputs or biases raise its "itensor_view_from_dense" error.
- mixed float8 dtypes take ATen's fallback: ``mm`` of the fp32 values times the scales, plus the
  bias, then the ordinary cast (``.to(out_dtype)``: e4m3fn saturates, minigrad/_fp8.py).

``scale_result`` and ``use_fast_accum`` are accepted and ignored, as on PyTorch's CPU. The
fallback's fp32 ``mm`` runs in NumPy's summation order, not MKL's: there results can differ in
the last fp32 bit where partial sums round. The output records no gradient (PyTorch's CPU op
has no derivative: its result's ``grad_fn`` is not a usable node).
"""
from __future__ import annotations

import numpy as np

from .. import _fp8
from .. import dtypes as _dt
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

    Scales: both singletons (per-tensor; any real dtype) or ``scale_a`` (m, 1) and ``scale_b``
    (1, n), float32 and contiguous (row-wise). ``bias``: n elements. Numerics and the two paths
    (oneDNN for equal float8 dtypes, ATen's fallback for mixed ones): the module docstring.

    Raises:
        TypeError: a matrix or scale that is not a Tensor (PyTorch's argument message).
        RuntimeError: "mat1 must be a matrix", "mat2 must be a matrix", "mat1 and mat2 shapes
            cannot be multiplied (16x32 and 16x16)", "Expected mat1 to be Float8 matrix got
            Float" (two matrices of one dtype that is not float8), "Bias must be size 16 but
            got 15", and
            oneDNN's "itensor_view_from_dense expects float/bfloat16/half/int8/fp8 tensor
            inputDouble" for a dtype it lacks.
        ValueError: "Invalid scaling configuration. ..." (non-float8 matrices, scales of
            other shapes), PyTorch's full message.
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
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied "
                           f"({input.shape[0]}x{input.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    m, n = input.shape[0], mat2.shape[1]
    if input.dtype is mat2.dtype and not input.dtype.is_float8:     # (mixed: the config error)
        raise RuntimeError(f"Expected mat1 to be Float8 matrix got {input.dtype.scalar_name}")
    f8 = input.dtype.is_float8 and mat2.dtype.is_float8
    if f8 and scale_a.numel() == 1 and scale_b.numel() == 1:
        sa = np.float32(_f32(scale_a).reshape(()))
        sb = np.float32(_f32(scale_b).reshape(()))
        scale = np.float32(sa * sb)       # (the fallback's; oneDNN applies sa, sb in turn)
    elif f8 and tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n) and \
            scale_a.dtype is _dt.float32 and scale_b.dtype is _dt.float32 and \
            scale_a.is_contiguous() and scale_b.is_contiguous():
        scale = _f32(scale_a) * _f32(scale_b)
    else:
        raise _config_error(input, mat2, scale_a, scale_b)
    out_dt = input.dtype if out_dtype is None else _dt.as_dtype(out_dtype)
    onednn = input.dtype is mat2.dtype
    if onednn:
        _onednn_check(input.dtype)
        if bias is not None:
            _onednn_check(bias.dtype)
        _onednn_check(out_dt)
    if bias is not None and bias.numel() != n:
        raise RuntimeError(f"Bias must be size {n} but got {bias.numel()}")
    a, b = _f32(input), _f32(mat2)
    with np.errstate(over="ignore", invalid="ignore"):
        if onednn:
            if np.ndim(scale) == 0:
                out = _onednn_accumulate(a, b, sa, sb)
            else:       # row-wise: oneDNN's order not reproduced (module docstring)
                out = np.matmul((a * _f32(scale_a)).astype(np.float32),
                                (b * _f32(scale_b)).astype(np.float32)).astype(np.float32)
        else:
            out = (np.matmul(a, b).astype(np.float32) * scale).astype(np.float32)
        if bias is not None:
            out = (out + _f32(bias).reshape(n)).astype(np.float32)
        if onednn and out_dt.is_float8:      # oneDNN: fp32 -> fp16 -> fp8, no saturation
            res = out.astype(np.float16).astype(out_dt.np)
            return Tensor._make(res, out_dt)
    return wrap(out, out_dt)
