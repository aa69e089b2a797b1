"""The two ATen kernels behind ``GradScaler``: unscale-and-check, and the scale update.

``torch.amp.GradScaler`` does its arithmetic in these two in-place aten ops (never in Python),
so the loss scale lives in a float32 tensor and the growth tracker in an int32 tensor the whole
time. ``amp_emu/grad_scaler.py`` dispatches them; a mode sees them as PyTorch's profiler does.
"""
from __future__ import annotations

import numpy as np

from .._fp16 import float16_to_float32, float32_to_float16
from ..dispatch import register_op
from ..tensor import Tensor

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _check_scalar_f32(t, what):
    if not isinstance(t, Tensor) or t.numel() != 1:
        raise RuntimeError(f"{what} must be a 1-element tensor.")
    if t._data.dtype != _F32:
        raise RuntimeError(f"{what} must be a float tensor.")


_MAXR, _MINR = np.maximum.reduce, np.minimum.reduce


def _all_finite(a):
    """True when the non-empty float array ``a`` holds no inf or NaN: its maximum and minimum
    are then finite, and they are not otherwise (maximum/minimum propagate a NaN; +inf is the
    maximum, -inf the minimum). Two read-only reductions, where ``np.isfinite(a).all()``
    writes a bool temporary of ``a``'s size (a 1.6 MB gradient: 400k bools) and reads it back."""
    hi, lo = _MAXR(a, axis=None), _MINR(a, axis=None)
    return bool(np.isfinite(hi) and np.isfinite(lo))


@register_op("_amp_foreach_non_finite_check_and_unscale_")
def _amp_foreach_non_finite_check_and_unscale_(self, found_inf, inv_scale):
    """In place (``torch._amp_foreach_non_finite_check_and_unscale_``): ``found_inf`` is set to
    1.0 if any tensor of ``self`` holds an inf or a NaN (checked on the values before
    scaling), and every tensor is multiplied by ``inv_scale``, computed in opmath (fp32 for
    fp16/bf16, the tensor's own dtype for fp32/fp64) and rounded back to its dtype. When
    ``inv_scale`` is exactly 1 nothing is multiplied (the values are left as they are).

    Args:
        self: list of floating tensors (the gradients), updated in place.
        found_inf: 1-element float32 tensor, set (never cleared) in place.
        inv_scale: 1-element float32 tensor.

    Raises:
        RuntimeError: ``found_inf`` / ``inv_scale`` not 1-element float32 tensors.
    """
    _check_scalar_f32(found_inf, "found_inf")
    _check_scalar_f32(inv_scale, "inv_scale")
    inv = _F32.type(inv_scale._data.reshape(())[()])
    found = False
    for g in self:
        a = g._data
        if a.dtype == _F32 or a.dtype == _F64:
            if a.size and not found and not _all_finite(a):
                found = True
            if inv != 1.0:
                np.multiply(a, a.dtype.type(inv), out=a)
        else:
            # 16-bit: the fp32 opmath copy, multiplied and rounded back (fp16 by minigrad/_fp16.py's
            # casts, bit-identical to astype)
            f16 = a.dtype == _F16
            f = float16_to_float32(a) if f16 else a.astype(_F32)
            if f.size and not found and not _all_finite(f):
                found = True
            if inv != 1.0:
                f *= inv
                a[...] = float32_to_float16(f) if f16 else f.astype(a.dtype)
        g._vc[0] += 1
    if found:
        found_inf._data[...] = 1.0
    found_inf._vc[0] += 1
    return None


@register_op("_amp_update_scale_")
def _amp_update_scale_(self, growth_tracker, found_inf, scale_growth_factor,
                       scale_backoff_factor, growth_interval):
    """In place, PyTorch's CPU ``_amp_update_scale_`` kernel on the float32 scale ``self``.

    If ``found_inf``: ``self = float32(self * backoff)`` (the product in double) and the tracker
    is reset to 0. Otherwise the int32 tracker counts one more clean step; when it reaches
    ``growth_interval`` the scale becomes ``float32(self * growth)`` (only if that is finite)
    and the tracker is reset to 0.

    Returns:
        ``self``.

    Raises:
        RuntimeError: ``self`` / ``found_inf`` not 1-element float32 tensors, a tracker that is
            not an int32 tensor.
    """
    _check_scalar_f32(self, "current_scale")
    _check_scalar_f32(found_inf, "found_inf")
    if not isinstance(growth_tracker, Tensor) or growth_tracker._data.dtype != np.int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    s = float(self._data.reshape(())[()])
    if float(found_inf._data.reshape(())[()]):
        self._data[...] = _F32.type(s * scale_backoff_factor)
        growth_tracker._data[...] = 0
    else:
        successful = int(growth_tracker._data.reshape(())[()]) + 1
        if successful == growth_interval:
            new = _F32.type(s * scale_growth_factor)
            if np.isfinite(new):
                self._data[...] = new
            growth_tracker._data[...] = 0
        else:
            growth_tracker._data[...] = np.int32(successful)
    self._vc[0] += 1
    growth_tracker._vc[0] += 1
    return self
