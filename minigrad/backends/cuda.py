"""``minigrad.backends.cuda``: CUDA matmul flags (mirrors ``torch.backends.cuda``), the SDPA
backend flags (``enable_flash_sdp``... ``sdp_kernel``), and the float32 matmul precision
(``torch.set_float32_matmul_precision``) that ``matmul.allow_tf32`` reflects.

The flags hold PyTorch's defaults. At precision "high" or "medium" (``matmul.allow_tf32``), fp32
matrix products (mm, addmm, bmm, baddbmm, addbmm, matmul and linear through them) and
convolutions on the emulated cuda device round their inputs to TF32 and accumulate in fp32, as
cuBLAS's TF32 kernels do (``minigrad.numerics.round_tf32``); cpu tensors, mv/dot, 16-bit and
float64 products are unaffected, as in PyTorch. "medium" is treated as "high" (on CUDA PyTorch
has no bf16-based fp32 matmul either).
"""
from __future__ import annotations

import warnings

from ..devices import emulation_enabled

__all__ = ["matmul", "is_built", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "enable_flash_sdp", "flash_sdp_enabled", "enable_mem_efficient_sdp",
           "mem_efficient_sdp_enabled", "enable_math_sdp", "math_sdp_enabled", "enable_cudnn_sdp",
           "cudnn_sdp_enabled", "sdp_kernel"]

_PRECISIONS = ("highest", "high", "medium")
_precision = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Set the internal precision of float32 matmuls (``torch.set_float32_matmul_precision``).

    Args:
        precision: "highest" (the default), "high" or "medium". "high" and "medium" let PyTorch
            use TF32 / bf16-based algorithms on a GPU, and set ``matmul.allow_tf32``.

    Raises:
        RuntimeError: a non-string ("set_float32_matmul_precision expects a str, but got int").

    Warns:
        UserWarning: another string, which leaves the setting unchanged (PyTorch's text).

    "high" and "medium" make fp32 matrix products on the emulated cuda device use TF32 inputs
    (see the module docstring); cpu products stay at "highest", as PyTorch's do here.
    """
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision[0] = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set: "highest" by default
    (``torch.get_float32_matmul_precision``)."""
    return _precision[0]


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: settable flags, PyTorch's defaults.

    Attributes:
        allow_tf32: let fp32 cuda matmuls use TF32 (default False); applied (module docstring).
        allow_fp16_reduced_precision_reduction: default True. Not applied yet.
        allow_bf16_reduced_precision_reduction: default True. Not applied yet.
    """

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        """True when the float32 matmul precision is "high" or "medium", as in PyTorch."""
        return _precision[0] != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _precision[0] = "high" if value else "highest"

    def __repr__(self):
        return (f"matmul(allow_tf32={self.allow_tf32}, allow_fp16_reduced_precision_reduction="
                f"{self.allow_fp16_reduced_precision_reduction}, "
                f"allow_bf16_reduced_precision_reduction="
                f"{self.allow_bf16_reduced_precision_reduction})")


matmul = _MatmulFlags()


def is_built() -> bool:
    """Whether the (emulated) CUDA backend is there (``torch.backends.cuda.is_built``)."""
    return emulation_enabled()


# --------------------------------------------------------------- scaled_dot_product_attention
# Which SDPA backends may run (``torch.backends.cuda.enable_*_sdp``; all on by default). The
# dispatcher's ``scaled_dot_product_attention`` reads them (minigrad/ops/attention_backend.py):
# the fused kernel needs a fused backend on, the math decomposition needs ``math``.
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def enable_flash_sdp(enabled: bool) -> None:
    """Allow the fused flash kernel (``torch.backends.cuda.enable_flash_sdp``)."""
    _SDP["flash"] = bool(enabled)


def flash_sdp_enabled() -> bool:
    """Whether the flash kernel may run (``torch.backends.cuda.flash_sdp_enabled``)."""
    return _SDP["flash"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Allow the memory-efficient kernel (``torch.backends.cuda.enable_mem_efficient_sdp``)."""
    _SDP["mem_efficient"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """``torch.backends.cuda.mem_efficient_sdp_enabled``."""
    return _SDP["mem_efficient"]


def enable_math_sdp(enabled: bool) -> None:
    """Allow the math decomposition (``torch.backends.cuda.enable_math_sdp``)."""
    _SDP["math"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """``torch.backends.cuda.math_sdp_enabled``."""
    return _SDP["math"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Allow the cuDNN kernel (``torch.backends.cuda.enable_cudnn_sdp``)."""
    _SDP["cudnn"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """``torch.backends.cuda.cudnn_sdp_enabled``."""
    return _SDP["cudnn"]


class sdp_kernel:
    """``with torch.backends.cuda.sdp_kernel(enable_flash=..., enable_math=...,
    enable_mem_efficient=..., enable_cudnn=...):`` sets the four flags for the block and
    restores them after (deprecated in PyTorch: warns its FutureWarning, as here; use
    ``minigrad.nn.attention.sdpa_kernel``)."""

    def __init__(self, enable_flash: bool = True, enable_math: bool = True,
                 enable_mem_efficient: bool = True, enable_cudnn: bool = True):
        warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                      "context manager will be removed. Please see "
                      "`torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                      "updated signature.", FutureWarning, stacklevel=2)
        self._want = {"flash": enable_flash, "math": enable_math,
                      "mem_efficient": enable_mem_efficient, "cudnn": enable_cudnn}
        self._old = None

    def __enter__(self):
        self._old = dict(_SDP)
        _SDP.update({k: bool(v) for k, v in self._want.items()})
        return self

    def __exit__(self, *exc):
        _SDP.update(self._old)
        return False
