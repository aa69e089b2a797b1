"""Catalogue entries for the pointwise math and activation ops of issue 7 (gelu, silu, sin...)."""
from __future__ import annotations

SPECS = []
