"""The namespace minigrad's reprs name: ``minigrad.float32``, ``minigrad.Size([2])``,
``minigrad.return_types.max(...)``, ``minigrad.FloatTensor`` in messages.

``python -m minigrad.run script.py`` runs a PyTorch script whose ``torch`` is minigrad; there the
reprs say ``torch.`` (``set_display_name("torch")``), so that a script comparing
``str(x.dtype) == "torch.float32"`` takes PyTorch's branch and its printed output reads as
PyTorch's. Imported as ``import minigrad as torch``, the reprs keep saying ``minigrad.``.
"""
from __future__ import annotations

__all__ = ["display_name", "set_display_name"]

_NAME = ["minigrad"]


def display_name() -> str:
    """The namespace the reprs print: "minigrad" (default) or "torch" (under minigrad.run)."""
    return _NAME[0]


def set_display_name(name: str) -> None:
    """Set the namespace the reprs print ("minigrad" or "torch").

    Raises:
        ValueError: another name.
    """
    if name not in ("minigrad", "torch"):
        raise ValueError(f"display name must be 'minigrad' or 'torch', got {name!r}")
    _NAME[0] = name
