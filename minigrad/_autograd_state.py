"""The thread-local autograd flags: grad mode and inference mode.

``minigrad.autograd.grad_mode``'s context managers set them; ``Tensor`` reads them when it makes a
tensor (inference tensors), so they live in this leaf module, which imports nothing of minigrad
(``tensor.py`` cannot import the ``autograd`` package, which imports ``tensor.py``).
"""
from __future__ import annotations

import threading


class _GradState(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


_grad_state = _GradState()
# [number of inference_mode(True) regions active in any thread]: lets Tensor._make skip the
# thread-local lookup when no inference region exists anywhere (the common case)
_INFERENCE_ACTIVE = [0]
# [whether an inference tensor may exist]: Function.apply checks saved tensors only then
_INFERENCE_SEEN = [False]
