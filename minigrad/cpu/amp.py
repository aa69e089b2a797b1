"""``minigrad.cpu.amp``: PyTorch's deprecated CPU AMP aliases (mirrors ``torch.cpu.amp``).

``autocast`` and ``GradScaler`` are ``amp_emu``'s with the device type fixed to "cpu"; each
construction warns with PyTorch's FutureWarning naming its replacement in ``torch.amp``.
"""
from __future__ import annotations

import warnings

import amp_emu
from minigrad import dtypes as _dt

__all__ = ["autocast", "GradScaler"]


def _deprecated(old, new):
    warnings.warn(f"`torch.cpu.amp.{old}(args...)` is deprecated. Please use "
                  f"`torch.amp.{new}` instead.", FutureWarning, stacklevel=3)


class autocast(amp_emu.autocast):
    """``autocast("cpu", ...)`` (``torch.cpu.amp.autocast``, deprecated); bf16 by default.

    Warns:
        FutureWarning: "`torch.cpu.amp.autocast(args...)` is deprecated. Please use
            `torch.amp.autocast('cpu', args...)` instead."
    """

    def __init__(self, enabled=True, dtype=_dt.bfloat16, cache_enabled=True):
        _deprecated("autocast", "autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(amp_emu.GradScaler):
    """``GradScaler("cpu", ...)`` (``torch.cpu.amp.GradScaler``, deprecated).

    Warns:
        FutureWarning: "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use
            `torch.amp.GradScaler('cpu', args...)` instead."
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _deprecated("GradScaler", "GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
