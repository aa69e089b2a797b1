"""``minigrad.backends.cudnn``: cuDNN flags (mirrors ``torch.backends.cudnn``).

Module attributes, settable by assignment, with PyTorch's defaults: ``enabled`` (True),
``allow_tf32`` (True), ``benchmark`` (False), ``deterministic`` (False). None changes numerics:
there is no cuDNN behind the emulated cuda device, so its convolutions are PyTorch's
cuBLAS-based fallback and take TF32 inputs under ``backends.cuda.matmul.allow_tf32`` instead;
every minigrad kernel is deterministic.
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
