"""minigrad.testing: comparing tensors (``assert_close`` with ULP bounds) and PyTorch bridges.

Mirrors ``torch.testing``. ``to_torch``/``from_torch`` import PyTorch lazily, so minigrad
itself never needs it.
"""
from .compare import assert_close, default_tolerances, from_torch, to_torch, ulp_distance

__all__ = ["assert_close", "ulp_distance", "to_torch", "from_torch", "default_tolerances"]
