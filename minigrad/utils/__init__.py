"""``minigrad.utils`` (mirrors ``torch.utils``): helpers around the engine, not part of its core.

Submodules are imported on first access, so that ``import minigrad`` stays light and
``minigrad.utils.data`` works after a plain ``import minigrad`` exactly as ``torch.utils.data``
does after ``import torch``:

- ``data``: datasets, samplers, ``default_collate`` and ``DataLoader`` (``torch.utils.data``);
- ``benchmark``: ``Timer``, ``Measurement``, ``Compare`` (``torch.utils.benchmark``);
- ``checkpoint``: recomputation checkpointing (``torch.utils.checkpoint``);
- ``tensorboard``: a ``SummaryWriter`` for scalar curves (``torch.utils.tensorboard``);
- ``hooks``: ``RemovableHandle`` (``torch.utils.hooks``);
- ``_pytree``: ``tree_map`` / ``tree_flatten`` / ``tree_unflatten`` / ``tree_leaves`` over
  nested dict / list / tuple / namedtuple containers (``torch.utils._pytree``).
"""
import importlib as _importlib

_SUBMODULES = ("data", "benchmark", "checkpoint", "tensorboard", "hooks", "_pytree")


def __getattr__(name):
    # ``minigrad.utils.data`` imported on first access; importing it also binds it here, so
    # this runs once per submodule
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    # the lazily imported submodules are listed too (tab completion, ``dir()``-based discovery)
    return sorted(set(globals()) | set(_SUBMODULES))

