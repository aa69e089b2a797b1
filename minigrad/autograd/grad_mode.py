"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Mirrors ``torch.no_grad`` etc.: per thread (``minigrad._autograd_state``: a new thread starts
with grad on), usable as context managers and as decorators (with
or without parentheses: ``@no_grad`` and ``@no_grad()`` both work, as in PyTorch 2), the previous
state always restored in ``finally``.

``inference_mode`` is ``no_grad`` plus *inference tensors*: every tensor made inside (except views
of normal tensors) answers ``is_inference()`` True; PyTorch's rules for them live where tensors
are saved (``Function.apply``) and written in place (the in-place ops).
"""
from __future__ import annotations

import functools
import inspect

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


# (_grad_state re-exported: the flags as attributes, for the modules that read them so)
from .._autograd_state import (_INFERENCE_ACTIVE, _INFERENCE_SEEN, _grad_state,  # noqa: E402,F401
                               grad_enabled, inference_enabled, set_grad_enabled_raw,
                               set_inference_raw)


def is_grad_enabled() -> bool:
    """True when ops record the graph (``torch.is_grad_enabled``)."""
    return grad_enabled()


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (``torch.is_inference_mode_enabled``)."""
    return inference_enabled()


def _wrap(cm_factory, fn):
    """Run ``fn`` (a function or generator function) inside a fresh ``cm_factory()``."""
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen_wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            with cm_factory():
                value = next(gen)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with cm_factory():
                        gen.close()
                    raise
                except BaseException as e:
                    with cm_factory():
                        value = gen.throw(e)
                else:
                    try:
                        with cm_factory():
                            value = gen.send(sent)
                    except StopIteration as stop:
                        return stop.value
        return gen_wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with cm_factory():
            return fn(*args, **kwargs)
    return wrapper


class _GradModeBase:
    """A grad-mode context manager that is also a decorator, with or without parentheses
    (PyTorch's ``_NoParamDecoratorContextManager``)."""

    _target = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        self._prev = grad_enabled()
        set_grad_enabled_raw(self._target)
        return None

    def __exit__(self, *exc):
        set_grad_enabled_raw(self._prev)
        return False

    def clone(self):
        """A fresh manager with the same setting (PyTorch's ``_DecoratorContextManager.clone``)."""
        return type(self)()

    def __call__(self, fn):
        return _wrap(self.clone, fn)


class no_grad(_GradModeBase):
    """Disable graph recording (``torch.no_grad``); context manager or decorator (``@no_grad``
    or ``@no_grad()``)."""
    _target = False


class enable_grad(_GradModeBase):
    """Enable graph recording inside a no_grad region (``torch.enable_grad``); context manager
    or decorator, with or without parentheses."""
    _target = True


class inference_mode:
    """Inference mode (``torch.inference_mode``): grad off, and tensors made inside are
    inference tensors (``Tensor.is_inference()``). ``inference_mode(False)`` turns inference mode off
    and grad mode on inside (as PyTorch's ``InferenceMode(false)`` guard).

    Usable as a context manager and as a decorator: ``@inference_mode``, ``@inference_mode()``,
    ``@inference_mode(False)``.

    Rules (as PyTorch's): an inference tensor cannot be saved for backward by an op that autograd
    records ("Inference tensors cannot be saved for backward..."); an in-place update of one
    outside inference mode raises ("Inplace update to inference tensor outside InferenceMode is
    not allowed..."); a view of a normal tensor made inside cannot be modified in place with grad
    on outside ("A view was created in inference mode and is being modified inplace in normal
    mode..."); reading ``_version`` of an inference tensor raises.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._prev = (grad_enabled(), inference_enabled())
        if self.mode:
            set_grad_enabled_raw(False)
            set_inference_raw(True)
            _INFERENCE_ACTIVE[0] += 1
            _INFERENCE_SEEN[0] = True
        else:                 # PyTorch's InferenceMode(false): grad mode on, inference mode off
            set_grad_enabled_raw(True)
            set_inference_raw(False)
        return None

    def __exit__(self, *exc):
        enabled, inference = self._prev
        set_grad_enabled_raw(enabled)
        set_inference_raw(inference)
        if self.mode:
            _INFERENCE_ACTIVE[0] -= 1
        return False

    def clone(self):
        """A fresh manager with the same ``mode``."""
        return type(self)(self.mode)

    def __call__(self, fn):
        return _wrap(self.clone, fn)


class set_grad_enabled:
    """Set grad mode to ``mode`` (``torch.set_grad_enabled``).

    Takes effect immediately when called (as in PyTorch), and restores the previous state on
    ``__exit__`` when used as a context manager; as a decorator (``@set_grad_enabled(False)``)
    it sets the mode around each call only.

    Raises:
        TypeError: when ``mode`` is not a bool.
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled() expects a bool, got {type(mode).__name__}")
        self._prev = grad_enabled()
        self.mode = mode
        set_grad_enabled_raw(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        set_grad_enabled_raw(self._prev)
        return False

    def clone(self):
        """A manager that sets ``mode`` on entry (without the immediate effect)."""
        return _SetGradCM(self.mode)

    def __call__(self, fn):
        set_grad_enabled_raw(self._prev)   # used as a decorator: undo the immediate effect
        return _wrap(self.clone, fn)


class _SetGradCM:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self._prev = grad_enabled()
        set_grad_enabled_raw(self.mode)

    def __exit__(self, *exc):
        set_grad_enabled_raw(self._prev)
        return False
