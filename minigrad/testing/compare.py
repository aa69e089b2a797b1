"""``assert_close`` with per-dtype ULP bounds (the bridges to and from PyTorch are in ``bridge``).

ULP distance: two values of one floating format are ``k`` ULPs apart when ``k - 1``
representable values of that format lie strictly between them (``+0`` and ``-0`` are 0 apart).
It is computed on the storage bits, so it is exact for float16, bfloat16 (via ``ml_dtypes``),
float32 and float64 alike; NumPy's ``np.spacing``/``np.finfo`` are not used (they do not know
bfloat16).

Mirrors ``torch.testing.assert_close`` (same argument names ``rtol``/``atol``/``equal_nan``/
``check_dtype``, same default tolerances per dtype); ``ulp`` is our addition.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from .. import _fp8
from .. import dtypes as _dt
from ..tensor import Tensor
from .bridge import _is_torch_tensor, from_torch, to_torch

__all__ = ["assert_close", "ulp_distance", "to_torch", "from_torch", "default_tolerances"]

# torch.testing.assert_close's defaults (rtol, atol) per dtype
_DEFAULT_TOL = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}
_INT_VIEW = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def default_tolerances(dtype) -> tuple:
    """``(rtol, atol)`` that ``torch.testing.assert_close`` uses for ``dtype`` ((0, 0) for
    integer and bool dtypes)."""
    return _DEFAULT_TOL.get(_dt.as_dtype(dtype).name, (0.0, 0.0))


# ---------------------------------------------------------------------------------- ULPs
def _as_array(x):
    """(storage array, dtype name) of a minigrad/torch tensor, NumPy array or Python number."""
    if isinstance(x, Tensor):
        return np.asarray(x._data), x.dtype.name
    if _is_torch_tensor(x):
        t = from_torch(x, requires_grad=False)
        return t._data, t.dtype.name
    if isinstance(x, (bool, np.bool_)):
        return np.asarray(x, np.bool_), "bool"
    if isinstance(x, (int, np.integer)):
        return np.asarray(x, np.int64), "int64"
    if isinstance(x, (float, np.floating)) and not isinstance(x, np.ndarray):
        a = np.asarray(x)
        return a, _dt.from_numpy(a.dtype).name
    a = np.asarray(x)
    return a, _dt.from_numpy(a.dtype).name


def _ordered(arr) -> np.ndarray:
    """Map floats to integers whose order and differences follow the representable values."""
    it = _INT_VIEW[arr.dtype.itemsize]
    i = np.require(arr, requirements='C').reshape(arr.shape).view(it).astype(np.int64)
    lo = np.int64(np.iinfo(it).min)
    return np.where(i < 0, lo - i, i)


def ulp_distance(a, b, dtype=None) -> np.ndarray:
    """Elementwise ULP distance (float64 array) between ``a`` and ``b`` in a floating format.

    Args:
        a, b: arrays, Python floats, minigrad or torch tensors (broadcastable shapes).
        dtype: the format to measure in (name or dtype); default: ``a``'s floating dtype. Both
            inputs are rounded into that format first.

    Returns:
        distances; ``nan`` where either value is NaN, ``inf`` where exactly one is infinite or
        where both are infinite with different signs; 0 for equal infinities.

    Raises:
        TypeError: when ``dtype`` is not a floating dtype.
    """
    aa, an = _as_array(a)
    bb, bn = _as_array(b)
    d = _dt.as_dtype(dtype if dtype is not None else an)
    if not d.is_floating_point:
        raise TypeError(f"ulp_distance() needs a floating dtype, got {d.name}")
    aa = _round_to(aa, d)
    bb = _round_to(bb, d)
    aa, bb = np.broadcast_arrays(aa, bb)
    oa, ob = _ordered(aa), _ordered(bb)
    ua, ub = oa.view(np.uint64), ob.view(np.uint64)      # exact: modular uint64 difference
    dist = np.where(oa >= ob, ua - ub, ub - ua).astype(np.float64)
    af, bf = aa.astype(np.float64), bb.astype(np.float64)
    nan = np.isnan(af) | np.isnan(bf)
    inf_mismatch = (np.isinf(af) | np.isinf(bf)) & (af != bf)
    dist = np.where(inf_mismatch, np.inf, dist)
    return np.where(nan, np.nan, dist)


def _round_to(arr, d):
    if arr.dtype == d.np:
        return arr
    if d in (_dt.float16, _dt.bfloat16) and arr.dtype == np.float64:
        return arr.astype(d.np)   # single rounding from the exact value
    if d.is_float8 or _fp8.is_float8(arr.dtype):     # PyTorch's float8 casts
        from ..ops.factory import _convert
        return _convert(np.asarray(arr), d)
    return arr.astype(d.np)


# ---------------------------------------------------------------------------------- assert_close
def assert_close(actual, expected, *, ulp=None, rtol=None, atol=None, equal_nan=True,
                 check_dtype=True, msg=None):
    """Assert that ``actual`` and ``expected`` agree (mirrors ``torch.testing.assert_close``).

    Accepts minigrad tensors, torch tensors, NumPy arrays and Python numbers (and lists/tuples
    of them, compared pairwise). Shapes must match exactly.

    A floating element passes when both are NaN (with ``equal_nan``), or both are the same
    infinity, or, for finite values, when it is within ``ulp`` ULPs of the expected value in
    ``expected``'s format (``ulp=0`` means bit-exact up to the sign of zero) **or** within
    ``atol + rtol * |expected|``. With ``ulp`` given, ``rtol``/``atol`` default to 0 (``atol`` can
    be an array broadcastable to the shape: a per-element slack, e.g. for sums with
    cancellation). With none of the three given, ``torch.testing``'s per-dtype defaults apply.
    Integer and bool values must be equal.

    Args:
        actual, expected: the values to compare.
        ulp: the largest allowed ULP distance (int), measured in ``expected``'s dtype.
        rtol, atol: relative and absolute tolerances.
        equal_nan: whether NaN == NaN.
        check_dtype: whether the dtypes must be equal (compared by name, bfloat16 included).
        msg: text prefixed to the failure message (e.g. the op and inputs).

    Raises:
        AssertionError: with the number of mismatched elements, the greatest ULP and absolute
            differences and their index, and the first few mismatches.
    """
    pre = f"{msg}\n" if msg else ""
    if isinstance(expected, (list, tuple)) and not isinstance(actual, np.ndarray):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise AssertionError(f"{pre}structure mismatch: {type(actual).__name__} vs "
                                 f"{type(expected).__name__} of length {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, ulp=ulp, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=f"{pre}item {i}")
        return
    a, an = _as_array(actual)
    e, en = _as_array(expected)
    if check_dtype and an != en:
        raise AssertionError(f"{pre}dtype mismatch: actual {an}, expected {en}")
    if a.shape != e.shape:
        raise AssertionError(f"{pre}shape mismatch: actual {list(a.shape)}, expected "
                             f"{list(e.shape)}")
    ed = _dt.as_dtype(en)
    if not ed.is_floating_point and not _dt.as_dtype(an).is_floating_point:
        bad = a.astype(np.int64) != e.astype(np.int64)
        if bad.any():
            _fail(pre, a, e, bad, None)
        return
    if not ed.is_floating_point:
        ed = _dt.as_dtype(an)
    if ulp is None and rtol is None and atol is None:
        rtol, atol = default_tolerances(ed)
    rtol = 0.0 if rtol is None else rtol
    atol = 0.0 if atol is None else atol
    a64 = _round_to(a, ed).astype(np.float64) if an != ed.name else a.astype(np.float64)
    e64 = e.astype(np.float64)
    an_, en_ = np.isnan(a64), np.isnan(e64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a64 - e64)
        ok = diff <= atol + rtol * np.abs(e64)
        dist = None
        if ulp is not None:
            dist = ulp_distance(_round_to(a, ed), e.astype(ed.np) if e.dtype != ed.np else e, ed)
            ok = ok | (dist <= ulp)
    both_inf = np.isinf(a64) & np.isinf(e64)
    ok = np.where(both_inf, a64 == e64, ok)
    ok = np.where(np.isinf(a64) ^ np.isinf(e64), False, ok)
    ok = np.where(an_ | en_, (an_ & en_) if equal_nan else False, ok)
    bad = ~ok
    if bad.any():
        _fail(pre, a64, e64, bad, dist, ulp, rtol, atol, ed.name)


def _fail(pre, a, e, bad, dist, ulp=None, rtol=None, atol=None, dname=None):
    n, total = int(bad.sum()), bad.size
    lines = [f"{pre}Tensor-likes are not close! ({dname or 'exact'}; ulp={ulp}, rtol={rtol}, "
             f"atol={'array' if isinstance(atol, np.ndarray) else atol})",
             f"Mismatched elements: {n} / {total} ({100.0 * n / max(total, 1):.1f}%)"]
    if dist is not None:
        dd = np.where(bad, np.nan_to_num(dist, nan=np.inf), -1)
        idx = np.unravel_index(int(np.argmax(dd)), bad.shape) if bad.ndim else ()
        lines.append(f"Greatest ULP difference: {dist[idx] if bad.ndim else float(dist)} at "
                     f"index {tuple(int(i) for i in idx)}")
    with np.errstate(invalid="ignore", over="ignore"):
        ad = np.where(bad, np.abs(np.asarray(a, np.float64) - np.asarray(e, np.float64)), -1)
    ad = np.nan_to_num(ad, nan=np.inf)
    idx = np.unravel_index(int(np.argmax(ad)), bad.shape) if bad.ndim else ()
    lines.append(f"Greatest absolute difference: {ad[idx] if bad.ndim else float(ad)} at index "
                 f"{tuple(int(i) for i in idx)}")
    where = np.argwhere(bad)[:6]
    for w in where:
        w = tuple(int(i) for i in w)
        lines.append(f"  at {w}: actual {_fmt(a[w])}, expected {_fmt(e[w])}")
    raise AssertionError("\n".join(lines))


def _fmt(v):
    v = float(v) if not isinstance(v, (bool, np.bool_)) else bool(v)
    return repr(v) if isinstance(v, bool) or not math.isfinite(v) else f"{v!r}"
