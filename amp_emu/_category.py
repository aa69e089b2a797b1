"""``CastCategory``: PyTorch's autocast cast policies (``at::autocast::CastPolicy``)."""
from __future__ import annotations

import enum


class CastCategory(enum.Enum):
    """PyTorch's ``at::autocast::CastPolicy`` values, plus ``UNTOUCHED`` for unlisted ops."""

    LOWER_PRECISION_FP = "lower_precision_fp"   # eligible args -> the region's dtype
    FP32 = "fp32"                               # eligible args -> float32
    FP32_SET_OPT_DTYPE = "fp32_set_opt_dtype"   # dtype=float32 when first arg eligible, no dtype
    FP32_APPEND_DTYPE = "fp32_append_dtype"     # norm: redispatch with dtype float32
    PROMOTE = "promote"                         # all eligible args -> widest (prioritize)
    BANNED = "banned"                           # raises (binary_cross_entropy on cuda)
    UNTOUCHED = "untouched"                     # not listed: runs on its inputs unchanged
