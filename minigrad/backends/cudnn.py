"""``minigrad.backends.cudnn``: cuDNN flags (mirrors ``torch.backends.cudnn``).

Module attributes, settable by assignment, with PyTorch's defaults: ``enabled`` (True),
``allow_tf32`` (True), ``benchmark`` (False), ``deterministic`` (False). None changes numerics
yet: there is no cuDNN, and every minigrad kernel is deterministic.
"""
from __future__ import annotations

__all__ = ["enabled", "allow_tf32", "benchmark", "deterministic", "is_available", "version"]

enabled = True
allow_tf32 = True
benchmark = False
deterministic = False


def is_available() -> bool:
    """False: no cuDNN behind the emulated cuda device (``torch.backends.cudnn.is_available``)."""
    return False


def version():
    """None: no cuDNN (``torch.backends.cudnn.version``)."""
    return None
