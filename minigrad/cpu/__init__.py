"""``minigrad.cpu`` (``torch.cpu``): the CPU device's module, beside ``minigrad.cuda``.

``is_available()`` is True and ``device_count()`` 1, as PyTorch's; ``synchronize`` returns at
once (every op is finished when it returns); ``Stream``, ``Event``, ``current_stream``,
``stream`` are ``minigrad.streams``' (see there). ``minigrad.cpu.amp`` holds PyTorch's deprecated
``torch.cpu.amp.autocast`` / ``GradScaler`` aliases; it imports ``amp_emu`` and is loaded on
first access only.
"""
from __future__ import annotations

from .. import streams as _streams
from ..streams import Event, StreamContext

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize",
           "is_initialized", "Stream", "Event", "StreamContext", "current_stream", "stream",
           "get_capabilities"]


def is_available() -> bool:
    """True (``torch.cpu.is_available``)."""
    return True


def device_count() -> int:
    """1 (``torch.cpu.device_count``)."""
    return 1


def current_device() -> str:
    """``"cpu"`` (``torch.cpu.current_device``)."""
    return "cpu"


def set_device(device) -> None:
    """Accepted and ignored, as ``torch.cpu.set_device`` (there is one CPU device)."""


def is_initialized() -> bool:
    """True (``torch.cpu.is_initialized``)."""
    return True


def synchronize(device=None) -> None:
    """Return at once: CPU work is finished when each op returns (``torch.cpu.synchronize``)."""


def get_capabilities() -> dict:
    """The CPU features PyTorch's kernels would pick from; minigrad's kernels are NumPy's, so
    the emulation reports none (``torch.cpu.get_capabilities``)."""
    return {}


class Stream(_streams.Stream):
    """A CPU stream (``torch.cpu.Stream``): see ``minigrad.streams``."""

    def __init__(self, priority: int = -1):
        super().__init__(None, priority, _type="cpu")


def current_stream(device=None) -> Stream:
    """The current CPU stream (``torch.cpu.current_stream``)."""
    return _streams.current_stream(device, _type="cpu")


def stream(stream_) -> StreamContext:
    """``with torch.cpu.stream(s):`` (``torch.cpu.stream``)."""
    return StreamContext(stream_, _type="cpu")


def __getattr__(name):
    # ``minigrad.cpu.amp`` imports amp_emu, so it is loaded on first access only
    if name == "amp":
        import importlib
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'minigrad.cpu' has no attribute {name!r}")
