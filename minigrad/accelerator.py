"""``minigrad.accelerator``: the device-agnostic accelerator API (mirrors ``torch.accelerator``).

minigrad's one accelerator is the emulated cuda device (see ``minigrad.cuda``); with
``MINIGRAD_EMULATE_CUDA=0`` there is none, as on a CPU-only PyTorch.
"""
from __future__ import annotations

from .devices import device as _device, emulation_enabled

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "set_device_index", "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """True when the emulated cuda device is on (``torch.accelerator.is_available``)."""
    return emulation_enabled()


def current_accelerator(check_available: bool = False):
    """``device(type='cuda')``, or None without an accelerator
    (``torch.accelerator.current_accelerator``)."""
    return _device("cuda") if emulation_enabled() else None


def device_count() -> int:
    """1, or 0 without an accelerator (``torch.accelerator.device_count``)."""
    return 1 if emulation_enabled() else 0


def current_device_index() -> int:
    """0 (``torch.accelerator.current_device_index``).

    Raises:
        RuntimeError: "Cannot access accelerator device when none is available."
    """
    if not emulation_enabled():
        raise RuntimeError(_NONE)
    return 0


def set_device_index(device) -> None:
    """Mirrors ``torch.accelerator.set_device_index``; only index 0 exists.

    Raises:
        RuntimeError: without an accelerator, or for another index.
    """
    if not emulation_enabled():
        raise RuntimeError(_NONE)
    idx = device.index if isinstance(device, _device) else device
    if idx not in (None, 0):
        raise RuntimeError("CUDA error: invalid device ordinal")


def synchronize(device=None) -> None:
    """A no-op: every op runs synchronously on the host (``torch.accelerator.synchronize``).

    Raises:
        RuntimeError: without an accelerator.
    """
    if not emulation_enabled():
        raise RuntimeError(_NONE)
