"""``minigrad.utils.hooks`` (mirrors ``torch.utils.hooks``): the ``RemovableHandle`` that every
hook registration returns and the ``BackwardHook`` machinery of full backward hooks, both defined
in ``minigrad/nn/hooks.py`` and re-exported here under PyTorch's path."""
from __future__ import annotations

from ..nn.hooks import BackwardHook, RemovableHandle

__all__ = ["RemovableHandle", "BackwardHook"]
