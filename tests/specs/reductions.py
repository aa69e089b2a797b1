"""Catalogue entries for the reductions, scans and sorting ops of issue 7 (var, cumsum, topk...)."""
from __future__ import annotations

SPECS = []
