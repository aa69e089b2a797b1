"""``minigrad.backends.mkldnn``: oneDNN (MKL-DNN) flags (mirrors ``torch.backends.mkldnn``).

``is_available()`` is True as on a CPU build of PyTorch; ``enabled`` (True) and ``deterministic``
(False) are settable attributes with PyTorch's defaults, and ``flags(...)`` sets them for a
``with`` block. None changes numerics: minigrad's kernels are NumPy's, whatever the flags say
(PyTorch's own CPU convolutions only reach oneDNN for shapes and dtypes minigrad reproduces
through the same reference recipes), and every kernel is deterministic.
"""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["is_available", "is_acl_available", "enabled", "deterministic", "set_flags", "flags",
           "verbose", "VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION"]

enabled = True
deterministic = False

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available() -> bool:
    """True, as a CPU build of PyTorch reports (``torch.backends.mkldnn.is_available``)."""
    return True


def is_acl_available() -> bool:
    """False: no Arm Compute Library (``torch.backends.mkldnn.is_acl_available``)."""
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Set ``enabled`` / ``deterministic`` (None leaves one as it is) and return the previous
    ``(enabled, deterministic)`` (``torch.backends.mkldnn.set_flags``; the TF32 / precision
    arguments are accepted and ignored: there is no oneDNN behind minigrad)."""
    global enabled, deterministic
    orig = (enabled, deterministic)
    if _enabled is not None:
        enabled = _enabled
    if _deterministic is not None:
        deterministic = _deterministic
    return orig


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Context manager: the flags set as given inside the block, restored after it
    (``torch.backends.mkldnn.flags``; note PyTorch's default ``enabled=False``)."""
    orig = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)


class verbose:
    """Context manager ``with verbose(VERBOSE_ON):`` (``torch.backends.mkldnn.verbose``): there
    are no oneDNN kernels to log, so it prints nothing."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        if self.level == VERBOSE_OFF:
            return None
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
