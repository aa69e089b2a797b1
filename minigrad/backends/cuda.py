"""``minigrad.backends.cuda``: CUDA matmul flags (mirrors ``torch.backends.cuda``).

The flags are stored with PyTorch's defaults and do not change numerics yet (see
``minigrad.backends``).
"""
from __future__ import annotations

from ..devices import emulation_enabled

__all__ = ["matmul", "is_built"]


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: settable flags, PyTorch's defaults.

    Attributes:
        allow_tf32: let fp32 matmuls use TF32 (default False). Not applied yet.
        allow_fp16_reduced_precision_reduction: default True. Not applied yet.
        allow_bf16_reduced_precision_reduction: default True. Not applied yet.
    """

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self):
        return (f"matmul(allow_tf32={self.allow_tf32}, allow_fp16_reduced_precision_reduction="
                f"{self.allow_fp16_reduced_precision_reduction}, "
                f"allow_bf16_reduced_precision_reduction="
                f"{self.allow_bf16_reduced_precision_reduction})")


matmul = _MatmulFlags()


def is_built() -> bool:
    """Whether the (emulated) CUDA backend is there (``torch.backends.cuda.is_built``)."""
    return emulation_enabled()
