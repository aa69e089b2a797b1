"""``minigrad.cuda.amp``: PyTorch's deprecated CUDA AMP aliases (mirrors ``torch.cuda.amp``).

``autocast``, ``GradScaler``, ``custom_fwd`` and ``custom_bwd`` are ``amp_emu``'s with the device
type fixed to "cuda"; each use warns with PyTorch's FutureWarning text naming its replacement in
``torch.amp``. Importing this module imports ``amp_emu`` (so ``minigrad.cuda`` loads it lazily).
"""
from __future__ import annotations

import functools
import warnings

import amp_emu
from minigrad import dtypes as _dt

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def _deprecated(old, new):
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use "
                  f"`torch.amp.{new}` instead.", FutureWarning, stacklevel=3)


class autocast(amp_emu.autocast):
    """``autocast("cuda", ...)`` (``torch.cuda.amp.autocast``, deprecated).

    Warns:
        FutureWarning: "`torch.cuda.amp.autocast(args...)` is deprecated. Please use
            `torch.amp.autocast('cuda', args...)` instead."
    """

    def __init__(self, enabled=True, dtype=_dt.float16, cache_enabled=True):
        _deprecated("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(amp_emu.GradScaler):
    """``GradScaler("cuda", ...)`` (``torch.cuda.amp.GradScaler``, deprecated).

    Warns:
        FutureWarning: "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use
            `torch.amp.GradScaler('cuda', args...)` instead."
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _deprecated("GradScaler", "GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``amp_emu.custom_fwd(..., device_type="cuda")`` (``torch.cuda.amp.custom_fwd``, deprecated).

    Warns:
        FutureWarning: PyTorch's text naming ``torch.amp.custom_fwd(args..., device_type='cuda')``.
    """
    _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    if fwd is None:
        return functools.partial(amp_emu.custom_fwd, device_type="cuda", cast_inputs=cast_inputs)
    return amp_emu.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``amp_emu.custom_bwd(..., device_type="cuda")`` (``torch.cuda.amp.custom_bwd``, deprecated).

    Warns:
        FutureWarning: PyTorch's text naming ``torch.amp.custom_bwd(args..., device_type='cuda')``.
    """
    _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    if bwd is None:
        return functools.partial(amp_emu.custom_bwd, device_type="cuda")
    return amp_emu.custom_bwd(bwd, device_type="cuda")
