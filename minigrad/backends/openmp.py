"""``minigrad.backends.openmp``: OpenMP query (mirrors ``torch.backends.openmp``)."""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """True, as a CPU build of PyTorch reports (``torch.backends.openmp.is_available``); the
    emulated thread count is ``minigrad.get_num_threads()``."""
    return True
