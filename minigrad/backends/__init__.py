"""``minigrad.backends``: PyTorch's backend flags, so that a script setting them runs
(mirrors ``torch.backends``).

``cuda.matmul.allow_tf32``, ``cudnn.allow_tf32``, ``cudnn.benchmark``, ``cudnn.deterministic``...
are plain settable attributes with PyTorch's defaults. They do not change numerics yet: every
matmul runs in fp32 (no TF32 rounding of its inputs), no kernel is autotuned and every kernel is
deterministic. ``mps.is_available()`` is False (there is no emulated MPS device).
"""
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
