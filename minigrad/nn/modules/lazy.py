"""``LazyModuleMixin`` (``torch.nn.modules.lazy.LazyModuleMixin``): modules whose parameter
shapes are inferred from the first input."""
from __future__ import annotations

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """A mixin for modules that create their parameters as ``UninitializedParameter`` and
    shape them on the first call (``torch.nn.modules.lazy.LazyModuleMixin``).

    A forward pre-hook calls ``initialize_parameters(*args, **kwargs)`` (which the module
    defines: ``materialize`` each parameter, then ``reset_parameters``) before the first
    ``forward``, removes itself, and turns the module into ``cls_to_become`` (``LazyLinear``
    becomes a ``Linear``). As in PyTorch, build an optimizer after that first call (or a
    dry run), since the parameters have no shape before.

    Deliberate difference: loading a state dict into a still-uninitialized module (PyTorch's
    ``_lazy_load_hook``) is not supported; run a forward first.

    Raises:
        RuntimeError: parameters left uninitialized by ``initialize_parameters`` ("module
            LazyLinear has not been fully initialized").
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module (not its children) is uninitialized."""
        return any(is_lazy(p) for p in list(self._parameters.values()) +
                   list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        """Shape the parameters from the first call's arguments (each lazy module's own)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{self.__class__.__name__}")

    @staticmethod
    def _infer_parameters(module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
