"""``minigrad.backends.mps``: Apple MPS queries (mirrors ``torch.backends.mps``); minigrad has
no emulated MPS device."""
from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: no MPS device (``torch.backends.mps.is_available``)."""
    return False


def is_built() -> bool:
    """False (``torch.backends.mps.is_built``)."""
    return False
