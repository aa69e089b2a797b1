"""``torch.use_deterministic_algorithms`` and its queries.

Every minigrad kernel is deterministic (NumPy on one thread of Python; no atomics), so the flag
changes nothing about results; it is kept so that scripts which set it run unchanged and read
back what they set, as in PyTorch.
"""
from __future__ import annotations

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]

_state = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Set the deterministic-algorithms flag (``torch.use_deterministic_algorithms``).

    Args:
        mode: True to ask for deterministic algorithms (minigrad's are always).
        warn_only: PyTorch warns instead of raising for an op without a deterministic
            implementation; kept and reported.

    Raises:
        TypeError: a non-bool ``mode`` or ``warn_only`` (PyTorch's message).
    """
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["mode"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """The flag ``use_deterministic_algorithms`` set (``torch.are_...``)."""
    return _state["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` flag (``torch.is_deterministic_algorithms_warn_only_enabled``)."""
    return _state["warn_only"]
