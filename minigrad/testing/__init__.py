"""minigrad.testing: comparing tensors (``assert_close`` with ULP bounds), PyTorch bridges, and
op-level replay against PyTorch (``compare_with_torch``, ``TraceMode``).

Mirrors ``torch.testing``. ``to_torch``/``from_torch`` (tensors, modules, optimizer and
GradScaler state) import PyTorch lazily, so minigrad itself never needs it.
"""
from .bridge import from_torch, to_torch
from .compare import assert_close, default_tolerances, ulp_distance
from .replay import Comparison, TraceMode, Twin, compare_with_torch

__all__ = ["assert_close", "ulp_distance", "to_torch", "from_torch", "default_tolerances",
           "compare_with_torch", "TraceMode", "Comparison", "Twin"]
