"""Hooks of ``Module``: forward (``register_forward_pre_hook`` / ``register_forward_hook``),
full backward (``register_full_backward_pre_hook`` / ``register_full_backward_hook``), and the
``RemovableHandle`` they return (``torch.utils.hooks.RemovableHandle``).

Full backward hooks work as PyTorch's ``torch.utils.hooks.BackwardHook``: the module's tensor
inputs and outputs pass through an identity ``BackwardHookFunction`` (node
``BackwardHookFunctionBackward``); a pre-hook on the outputs' node sees ``grad_output`` (and may
replace it), a hook on the inputs' node sees ``grad_input`` and may return replacements. When no
input requires grad, the full hooks run at the outputs' node with ``grad_input`` all None (with
PyTorch's warning).
"""
from __future__ import annotations

import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor


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



# Global module hooks (``torch.nn.modules.module.register_module_forward_pre_hook`` /
# ``register_module_forward_hook``): they run for every module's call, before its own hooks.
_global_forward_pre_hooks = {}
_global_forward_hooks = {}
_global_forward_hooks_with_kwargs = {}


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` before every module's ``forward`` (and before the module's own
    pre-hooks); a non-None return replaces ``args`` (a non-tuple is wrapped). Returns a handle
    (``torch.nn.modules.module.register_module_forward_pre_hook``). As PyTorch's, for debugging
    and profiling: it costs every module call a check."""
    h = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[h.id] = hook
    return h


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs, output)``)
    after every module's ``forward``, before the module's own hooks; a non-None return replaces
    the output. Returns a handle (``torch.nn.modules.module.register_module_forward_hook``).
    ``always_call`` is accepted; like the module-level flag, the hook is not run when
    ``forward`` raises (deliberate difference)."""
    h = RemovableHandle(_global_forward_hooks, _global_forward_hooks_with_kwargs)
    _global_forward_hooks[h.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[h.id] = True
    return h


class BackwardHookFunction(Function):
    """Identity on its tensor arguments, giving the module's inputs/outputs one graph node
    (``torch.nn.modules._functions.BackwardHookFunction``); arguments that do not require grad
    are marked non-differentiable."""

    _backward_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _per_arg(node, res, n):
    """The node's per-edge gradients as one entry per wrapped argument."""
    idx = node._edge_args
    if idx is None:
        return tuple(res)
    out = [None] * n
    for k, i in enumerate(idx):
        out[i] = res[k]
    return tuple(out)


class BackwardHook:
    """One module call's full backward hooks (PyTorch's ``torch.utils.hooks.BackwardHook``)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_tensors = ()       # positions of the Tensor arguments
        self.input_node = None

    def _wrap(self, tensors):
        out = BackwardHookFunction.apply(*tensors)
        node = next((o.grad_fn for o in out if o.grad_fn is not None), None)
        return out, node

    def setup_input_hook(self, args):
        """Route the Tensor positional ``args`` through the identity node; returns new args."""
        self.n_inputs = len(args)
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (is_grad_enabled() and any(args[i].requires_grad for i in pos)):
            return args
        wrapped, node = self._wrap([args[i] for i in pos])
        self.input_tensors, self.input_node = tuple(pos), node
        new = list(args)
        for i, w in zip(pos, wrapped):
            new[i] = w

        def hook(grad_inputs, grad_outputs):
            per_tensor = _per_arg(node, grad_inputs, len(pos))
            gi = [None] * self.n_inputs
            for i, g in zip(pos, per_tensor):
                gi[i] = g
            res = self._run_hooks(tuple(gi))
            if res is None:
                return None
            return tuple(res[i] for i in pos)
        node.register_hook(hook)
        return tuple(new)

    def _run_hooks(self, grad_input):
        changed = None
        for h in list(self.hooks.values()):
            r = h(self.module, grad_input if changed is None else changed, self.grad_outputs)
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                       f"got {len(r)}, but expected {len(grad_input)}")
                changed = r
        return changed

    def setup_output_hook(self, result):
        """Route the module's output tensor(s) through the identity node; returns new result."""
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, tuple) or not all(isinstance(o, Tensor) for o in outs) \
                or not any(o.requires_grad for o in outs) or not is_grad_enabled():
            return result
        wrapped, node = self._wrap(outs)

        def pre_hook(grad_outputs):
            go = _per_arg(node, grad_outputs, len(outs))
            self.grad_outputs = go
            for h in list(self.pre_hooks.values()):
                r = h(self.module, self.grad_outputs)
                if r is not None:
                    r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                    self.grad_outputs = r
            if self.input_node is None:          # no input requires grad: fire here
                if self.hooks:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch."
                        "nn.Module.register_full_backward_hook for more details.", UserWarning)
                    self._run_hooks((None,) * self.n_inputs)
            if self.grad_outputs is not go:
                idx = node._edge_args
                vals = self.grad_outputs
                return vals if idx is None else tuple(vals[i] for i in idx)
            return None
        node.register_prehook(pre_hook)
        return wrapped[0] if single else tuple(wrapped)


class _HooksMixin:
    """Hook registration of ``Module``; ``Module.__call__`` runs them."""

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` runs when the gradients w.r.t. the module's outputs are
        known; a non-None return (a tuple) replaces ``grad_output``
        (``Module.register_full_backward_pre_hook``). Returns a handle."""
        d = self.__dict__.setdefault("_backward_pre_hooks", {})
        h = RemovableHandle(d)
        d[h.id] = hook
        if prepend:
            self.__dict__["_backward_pre_hooks"] = {h.id: hook, **{k: v for k, v in d.items()
                                                                   if k != h.id}}
            h._dicts = (self.__dict__["_backward_pre_hooks"],)
        return h

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients w.r.t. the
        module's positional inputs are computed (one entry per positional argument, None for
        non-Tensors); a non-None return replaces ``grad_input``
        (``Module.register_full_backward_hook``). Returns a handle."""
        d = self.__dict__.setdefault("_backward_hooks", {})
        h = RemovableHandle(d)
        d[h.id] = hook
        if prepend:
            self.__dict__["_backward_hooks"] = {h.id: hook, **{k: v for k, v in d.items()
                                                               if k != h.id}}
            h._dicts = (self.__dict__["_backward_hooks"],)
        return h

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
