"""amp_emu: PyTorch's automatic mixed precision, emulated on minigrad's real fp16/bf16 storage.

- ``autocast`` (context manager / decorator) with PyTorch 2.13's per-op tables for "cuda" and
  "cpu" (``policy``), the weight-cast cache, ``custom_fwd``/``custom_bwd``;
- ``explain(op, *dtypes, device_type=..., dtype=...)``: the decision without computing;
- ``GradScaler`` (mirrors ``torch.amp.GradScaler``);
- ``MasterWeightOptimizer``/``master_params``: fp32 master weights for fp16/bf16 models;
- ``formats``: fp32/fp16/bf16 layouts, rounding, ULP distances;
- ``numerics``: ``NumericsMonitor``, counting overflows, underflows, NaNs and subnormals per op
  and role, with exponent histograms;
- ``fp8``: ``fp8_autocast`` and the ``DelayedScaling`` recipe: gemms in float8 with per-tensor
  delayed scaling (NVIDIA Transformer Engine's recipe) through ``_scaled_mm``.

Imports minigrad; minigrad never imports amp_emu (``minigrad.autocast`` is a lazy alias).
"""
from . import formats, fp8, numerics, policy
from .policy import CastCategory, Decision, Policy, explain, get_policy
from .autocast import (autocast, autocast_decrement_nesting, autocast_increment_nesting,
                       clear_autocast_cache, custom_bwd, custom_fwd, get_autocast_dtype,
                       is_autocast_available, is_autocast_cache_enabled, is_autocast_enabled,
                       set_autocast_cache_enabled, set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler, OptState
from .master import MasterWeightOptimizer, master_params

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_enabled", "set_autocast_enabled",
           "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_available", "CastCategory", "Policy",
           "Decision", "explain", "get_policy", "GradScaler", "OptState",
           "MasterWeightOptimizer", "master_params", "formats", "policy", "numerics", "fp8"]
