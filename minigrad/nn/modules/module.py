"""``torch.nn.modules.module``'s path: ``Module`` (defined in ``minigrad/nn/module.py``) and the
global module hooks (``register_module_forward_pre_hook``, ``register_module_forward_hook``,
defined in ``minigrad/nn/hooks.py``), so code that imports them from PyTorch's module path runs
unchanged."""
from __future__ import annotations

from ..hooks import (RemovableHandle, register_module_forward_hook,  # noqa: F401
                     register_module_forward_pre_hook)
from ..module import Module  # noqa: F401

__all__ = ["Module", "RemovableHandle", "register_module_forward_hook",
           "register_module_forward_pre_hook"]
