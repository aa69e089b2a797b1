"""``minigrad.backends``: PyTorch's backend flags, so that a script setting them runs
(mirrors ``torch.backends``).

``cuda.matmul.allow_tf32``, ``cudnn.allow_tf32``, ``cudnn.benchmark``, ``cudnn.deterministic``...
are settable attributes with PyTorch's defaults. ``cuda.matmul.allow_tf32`` (or
``set_float32_matmul_precision("high")``) makes fp32 matrix products and convolutions on the
emulated cuda device take TF32 inputs (``numerics.round_tf32``), as cuBLAS does; the cudnn flags
change nothing (the emulated device has no cuDNN), no kernel is autotuned and every kernel is
deterministic. ``mps.is_available()`` is False (there is no emulated MPS device).

The CPU backends (``mkldnn``, ``mkl``, ``openmp``, ``cpu``, ``opt_einsum``) report what a CPU
build of PyTorch reports; their flags are settable and change no numbers.
"""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
