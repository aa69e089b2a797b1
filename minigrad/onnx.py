"""``minigrad.onnx`` (mirrors ``torch.onnx``): importable, so a script's ``import torch.onnx`` runs.

minigrad has no graph exporter: a model here is Python code calling NumPy kernels, with no traced
graph to serialise, so ``export`` raises instead of writing a file. ``is_in_onnx_export`` answers
False, as PyTorch's does outside an export, so model code that branches on it takes its normal path.
"""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *, kwargs=None, **options):
    """Mirrors ``torch.onnx.export(model, args, f, ...)``; not supported by minigrad.

    Raises:
        NotImplementedError: always (minigrad records no exportable graph).
    """
    raise NotImplementedError(
        "minigrad.onnx.export: minigrad has no graph exporter (a model runs as Python calling "
        "NumPy kernels; there is no traced graph to write as ONNX). Export the model from "
        "PyTorch after loading its state_dict there.")


def is_in_onnx_export() -> bool:
    """False: minigrad never runs a model under an ONNX export (``torch.onnx.is_in_onnx_export``)."""
    return False
