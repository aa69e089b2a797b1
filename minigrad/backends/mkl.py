"""``minigrad.backends.mkl``: Intel MKL queries (mirrors ``torch.backends.mkl``).

``is_available()`` is True, as an x86 CPU build of PyTorch reports; ``verbose`` is a context
manager that logs nothing (minigrad's kernels are NumPy's, not MKL's).
"""
from __future__ import annotations

__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    """True, as an x86 CPU build of PyTorch reports (``torch.backends.mkl.is_available``)."""
    return True


class verbose:
    """Context manager ``with verbose(VERBOSE_ON):`` (``torch.backends.mkl.verbose``); prints
    nothing (there are no MKL calls to log)."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        if self.enable == VERBOSE_OFF:
            return None
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
