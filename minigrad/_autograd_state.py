"""The per-thread autograd flags: grad mode and inference mode.

``minigrad.autograd.grad_mode``'s context managers set them; ``Tensor`` reads them when it makes a
tensor (inference tensors), so they live in this leaf module, which imports nothing of minigrad
(``tensor.py`` cannot import the ``autograd`` package, which imports ``tensor.py``).

Each flag is a ``contextvars.ContextVar``: every op reads grad mode, and a ContextVar's ``get``
is a C call with a per-thread cache (~170 machine instructions), where a ``threading.local``
attribute read costs ~600. A new thread starts from the defaults (grad on, inference off), as
PyTorch's thread-local ``GradMode``: a ``no_grad`` in one thread is never seen by another. The
one difference from a thread-local: code run in a *copied* context (an asyncio Task,
``contextvars.Context.run``, ``asyncio.to_thread``) starts from the modes of the code that
copied it, and what it sets stays in its copy.

Hot paths call ``grad_enabled()`` / ``set_grad_enabled_raw(flag)`` (the ContextVar's own bound
methods); ``_grad_state.enabled`` / ``.inference`` read and set the same flags as attributes.
"""
from __future__ import annotations

import contextvars

_GRAD_ENABLED = contextvars.ContextVar("minigrad_grad_enabled", default=True)
_INFERENCE_MODE = contextvars.ContextVar("minigrad_inference_mode", default=False)

#: ``torch.is_grad_enabled()``: the grad-mode flag of this thread (context)
grad_enabled = _GRAD_ENABLED.get
#: set this thread's grad-mode flag (no context manager; callers restore it in ``finally``)
set_grad_enabled_raw = _GRAD_ENABLED.set
#: ``torch.is_inference_mode_enabled()``
inference_enabled = _INFERENCE_MODE.get
set_inference_raw = _INFERENCE_MODE.set


class _GradState:
    """The two flags as attributes (``_grad_state.enabled``, ``_grad_state.inference``), read
    and set; a hot path calls ``grad_enabled()`` instead (no property call)."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return _GRAD_ENABLED.get()

    @enabled.setter
    def enabled(self, flag):
        _GRAD_ENABLED.set(flag)

    @property
    def inference(self) -> bool:
        return _INFERENCE_MODE.get()

    @inference.setter
    def inference(self, flag):
        _INFERENCE_MODE.set(flag)


_grad_state = _GradState()
# [number of inference_mode(True) regions active in any thread]: lets Tensor._make skip the
# inference-mode read when no inference region exists anywhere (the common case)
_INFERENCE_ACTIVE = [0]
# [whether an inference tensor may exist]: Function.apply checks saved tensors only then
_INFERENCE_SEEN = [False]
