"""Forward hooks of ``Module`` (``register_forward_pre_hook`` / ``register_forward_hook``) and
the ``RemovableHandle`` they return (``torch.utils.hooks.RemovableHandle``)."""
from __future__ import annotations


class RemovableHandle:
    """Handle returned by hook registration; ``remove()`` unregisters (also a context manager)."""

    _next_id = 0

    def __init__(self, *dicts):
        self._dicts = dicts
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()



class _HooksMixin:
    """Hook registration of ``Module``; ``Module.__call__`` runs them."""

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``) runs
        before ``forward``; a non-None return replaces the args (and kwargs). Returns a handle."""
        h = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) runs after
        ``forward``; a non-None return replaces the output. Returns a handle."""
        h = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs)
        self._forward_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h
