"""``minigrad.nn.attention`` (``torch.nn.attention``): choosing the backend of
``F.scaled_dot_product_attention``.

``SDPBackend`` names the kernels; ``with sdpa_kernel(SDPBackend.MATH):`` allows only the listed
ones for the block (``minigrad.backends.cuda``'s ``enable_*_sdp`` flags, restored after). minigrad
has two SDPA kernels, as PyTorch on CPU: the fused flash kernel
(``_scaled_dot_product_flash_attention_for_cpu``) and the math decomposition. Which one runs
follows PyTorch 2.13's CPU rules (``minigrad/ops/attention_backend.py``): the fused kernel when a
fused backend is allowed and the inputs suit it, else the math path when MATH is allowed, else
RuntimeError. Deliberate difference: on the emulated cuda device EFFICIENT_ATTENTION and
CUDNN_ATTENTION also select the one fused kernel (real CUDA has separate kernels for them, with
other rounding); on cpu, as in PyTorch, only FLASH_ATTENTION does.
"""
from __future__ import annotations

import enum

from ..backends import cuda as _flags

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The SDPA kernels (``torch.nn.attention.SDPBackend``), with PyTorch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_FLAG = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
         SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


class sdpa_kernel:
    """``with sdpa_kernel(backends):`` allows only ``backends`` (one ``SDPBackend`` or a list) for
    ``scaled_dot_product_attention`` inside the block, and restores the flags after; also a
    decorator. ``set_priority`` is accepted (the order does not matter with two kernels).

    Raises:
        AssertionError: an entry that is not an ``SDPBackend`` ("Backend must be an instance of
            SDPBackend"), as PyTorch.
    """

    def __init__(self, backends, set_priority: bool = False):
        if isinstance(backends, SDPBackend):
            backends = [backends]
        backends = list(backends)
        for b in backends:
            assert isinstance(b, SDPBackend), "Backend must be an instance of SDPBackend"
        self.backends, self.set_priority, self._old = backends, set_priority, None

    def __enter__(self):
        self._old = dict(_flags._SDP)
        allowed = {_FLAG[b] for b in self.backends if b in _FLAG}
        for name in _flags._SDP:
            _flags._SDP[name] = name in allowed
        return self

    def __exit__(self, *exc):
        _flags._SDP.update(self._old)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with sdpa_kernel(self.backends, self.set_priority):
                return fn(*args, **kwargs)
        return wrapper
