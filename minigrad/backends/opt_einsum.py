"""``minigrad.backends.opt_einsum``: the opt_einsum flags (mirrors ``torch.backends.opt_einsum``).

As in PyTorch, ``is_available()`` says whether the ``opt_einsum`` package can be imported;
``enabled`` defaults to it and ``strategy`` to "auto" when it is available (None otherwise).
Setting ``strategy`` checks PyTorch's values. minigrad's ``einsum`` contracts left to right
whatever the flags say (it never calls opt_einsum).
"""
from __future__ import annotations

import importlib.util as _util
from contextlib import contextmanager

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy", "set_flags", "flags"]

_AVAILABLE = _util.find_spec("opt_einsum") is not None
_STRATEGIES = ("auto", "greedy", "optimal")

enabled = _AVAILABLE
strategy = "auto" if _AVAILABLE else None


def is_available() -> bool:
    """Whether the opt_einsum package is installed (``torch.backends.opt_einsum.is_available``)."""
    return _AVAILABLE


def get_opt_einsum():
    """The opt_einsum module, or None when it is not installed
    (``torch.backends.opt_einsum.get_opt_einsum``)."""
    if not _AVAILABLE:
        return None
    import opt_einsum
    return opt_einsum


def set_flags(_enabled=None, _strategy=None):
    """Set ``enabled`` / ``strategy`` and return the previous pair
    (``torch.backends.opt_einsum.set_flags``).

    Raises:
        ValueError: enabling without opt_einsum installed, or a strategy other than "auto",
            "greedy", "optimal" (PyTorch's messages).
    """
    global enabled, strategy
    orig = (enabled, strategy)
    if _enabled is not None:
        if _enabled and not _AVAILABLE:
            raise ValueError(f"opt_einsum is not available, so setting `enabled` to "
                             f"{_enabled} will not reap the benefits of calculating an optimal "
                             "path for einsum. torch.einsum will fall back to contracting "
                             "from left to right. To enable this optimal path calculation, "
                             "please install opt-einsum.")
        enabled = _enabled
    if _strategy is not None:
        if not _AVAILABLE:
            raise ValueError(f"opt_einsum is not available, so setting `strategy` to "
                             f"{_strategy} will not be meaningful. torch.einsum will bypass "
                             "path calculation and simply contract from left to right. Please "
                             "install opt_einsum or unset `strategy`.")
        if not enabled:
            raise ValueError(f"opt_einsum is not enabled, so setting a `strategy` to "
                             f"{_strategy} will not be meaningful. torch.einsum will bypass "
                             "path calculation and simply contract from left to right. Please "
                             "set `enabled` to `True` as well or unset `strategy`.")
        if _strategy not in _STRATEGIES:
            raise ValueError(f"`strategy` must be one of the following: [auto, greedy, "
                             f"optimal] but is {_strategy}")
        strategy = _strategy
    return orig


@contextmanager
def flags(enabled=None, strategy=None):
    """Context manager: ``set_flags(enabled, strategy)`` inside the block, restored after it
    (``torch.backends.opt_einsum.flags``)."""
    orig = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*orig)
