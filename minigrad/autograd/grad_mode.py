"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``.

Mirrors ``torch.no_grad`` etc.: thread-local, usable as context managers and as decorators, the
previous state always restored in ``finally``.
"""
from __future__ import annotations

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode"]


class _GradState(threading.local):
    def __init__(self):
        self.enabled = True


_grad_state = _GradState()


def is_grad_enabled() -> bool:
    """True when ops record the graph (``torch.is_grad_enabled``)."""
    return _grad_state.enabled


class _GradModeBase:
    _target = True

    def __enter__(self):
        self._prev = _grad_state.enabled
        _grad_state.enabled = self._target
        return None

    def __exit__(self, *exc):
        _grad_state.enabled = self._prev
        return False

    def __call__(self, fn):
        target = self._target

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _grad_state.enabled
            _grad_state.enabled = target
            try:
                return fn(*args, **kwargs)
            finally:
                _grad_state.enabled = prev
        return wrapper


class no_grad(_GradModeBase):
    """Disable graph recording (``torch.no_grad``); context manager or decorator."""
    _target = False


class enable_grad(_GradModeBase):
    """Enable graph recording inside a no_grad region (``torch.enable_grad``)."""
    _target = True


class inference_mode(_GradModeBase):
    """Same as ``no_grad`` here (``torch.inference_mode``); ``mode=False`` enables grad."""

    def __init__(self, mode: bool = True):
        self._target = not mode


class set_grad_enabled(_GradModeBase):
    """Set grad mode to ``mode`` (``torch.set_grad_enabled``).

    Takes effect immediately when called (as in PyTorch), and restores the previous state on
    ``__exit__`` when used as a context manager.

    Raises:
        TypeError: when ``mode`` is not a bool.
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled() expects a bool, got {type(mode).__name__}")
        self._prev = _grad_state.enabled
        self._target = mode
        _grad_state.enabled = mode

    def __enter__(self):
        return None

    def __call__(self, fn):
        _grad_state.enabled = self._prev   # used as a decorator: undo the immediate effect
        return super().__call__(fn)
