"""``Module.state_dict`` / ``load_state_dict`` (``torch.nn.Module``'s): PyTorch's key order,
its walk over the module tree, its key bookkeeping and its error texts. Mixed into ``Module``."""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch
from ..tensor import Tensor


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``(missing_keys, unexpected_keys)`` returned by ``load_state_dict``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    __str__ = __repr__



def _is_torch_tensor(x) -> bool:
    """True for a ``torch.Tensor`` (checked by class name: minigrad never imports torch)."""
    return any(c.__module__.startswith("torch") and c.__name__ == "Tensor"
               for c in type(x).__mro__)


def load_local(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
               errors):
    """Load ``module``'s own parameters, persistent buffers and extra state from
    ``state_dict`` (keys with ``prefix``), after its load pre-hooks, recording missing /
    unexpected keys and error messages (PyTorch's ``Module._load_from_state_dict``).
    ``local_metadata["assign_to_params_buffers"]``: ``load_state_dict(assign=True)``."""
    for hook in list(module._load_state_dict_pre_hooks.values()):
        hook(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
    assign = local_metadata.get("assign_to_params_buffers", False)
    local = {k: v for k, v in module._parameters.items() if v is not None}
    for k, v in module._buffers.items():
        if v is not None and k not in module._non_persistent_buffers_set:
            local[k] = v
    for name, param in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor) and _is_torch_tensor(value):
            from ..testing import from_torch     # a real torch.Tensor: same bits, same dtype
            value = from_torch(value, requires_grad=False)
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(value)}")
            continue
        if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
            value = value[0]          # PyTorch's backward compatibility for 0-dim params
        if value.shape != param.shape:
            errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                          f"from checkpoint, the shape in current model is {param.shape}.")
            continue
        if assign:
            # assign: the checkpoint's tensor itself (its dtype) becomes the attribute; a
            # parameter stays a Parameter with the module's requires_grad
            from .parameter import Parameter
            if isinstance(param, Parameter):
                if isinstance(value, Parameter):
                    value.requires_grad_(param.requires_grad)
                else:
                    value = Parameter(value, requires_grad=param.requires_grad)
            setattr(module, name, value)
            continue
        try:
            with no_grad():
                dispatch("copy_", param, value)
        except Exception as ex:  # noqa: BLE001  (PyTorch reports any exception here)
            errors.append(f'While copying the parameter named "{key}", whose dimensions in the '
                          f"model are {param.shape} and whose dimensions in the checkpoint are "
                          f"{value.shape}, an exception occurred : {ex.args}.")
    extra_key = prefix + _EXTRA_STATE_KEY
    if _overrides(module, "set_extra_state"):
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected.append(extra_key)
    if strict:
        for key in state_dict.keys():
            if not key.startswith(prefix) or key == extra_key:
                continue
            parts = key[len(prefix):].split(".", 1)
            if len(parts) > 1:
                if parts[0] not in module._modules:
                    unexpected.append(key)
            elif parts[0] not in local:
                unexpected.append(key)


def load_state_dict(module, state_dict, strict=True, assign=False):
    """See ``Module.load_state_dict``."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing, unexpected, errors = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)            # a copy the modules' hooks may edit
    if metadata is not None:
        state_dict._metadata = metadata

    def load(mod, local_sd, prefix=""):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        # PyTorch always collects keys (strict=True here); ``strict`` only decides the error
        mod._load_from_state_dict(local_sd, prefix, local_metadata, True, missing, unexpected,
                                  errors)
        for name, child in mod._modules.items():
            if child is not None:
                cp = prefix + name + "."
                load(child, {k: v for k, v in local_sd.items() if k.startswith(cp)}, cp)
        incompatible = _IncompatibleKeys(missing, unexpected)    # hooks may edit the lists
        for hook in list(mod._load_state_dict_post_hooks.values()):
            if hook(mod, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace.")

    load(module, state_dict)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(errors)))
    return _IncompatibleKeys(missing, unexpected)


_EXTRA_STATE_KEY = "_extra_state"      # PyTorch's _EXTRA_STATE_KEY_SUFFIX


def _overrides(module, name) -> bool:
    """``module``'s class defines its own ``get_extra_state`` / ``set_extra_state``."""
    return getattr(type(module), name) is not getattr(_StateDictMixin, name)


class _HookDict:
    """A module's hook table (``m._state_dict_hooks``...), an ``OrderedDict`` made on first
    access and kept in the instance's ``__dict__`` (which then shadows this descriptor), so
    ``Module.__init__`` needs no entry for it and modules unpickled from older files get one."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.__dict__.setdefault(self.name, OrderedDict())


class _WrappedHook:
    """A load pre-hook registered with ``with_module=True``: called with the module first (held
    by a weak reference, as PyTorch's ``_WrappedHook``)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.module = None if module is None else weakref.ref(module)
        functools.update_wrapper(self, hook)

    def __call__(self, *args, **kwargs):
        if self.module is None:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.module is not None}
        if self.module is not None:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.module = None
        if state["with_module"]:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _handle(table, hook):
    from .hooks import RemovableHandle
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


class _StateDictMixin:
    """``state_dict`` / ``load_state_dict`` of ``Module``, their hooks and the extra state
    (``torch.nn.Module``'s, with its signatures: subclasses may override
    ``_save_to_state_dict`` / ``_load_from_state_dict`` as in PyTorch)."""

    _state_dict_hooks = _HookDict()
    _state_dict_pre_hooks = _HookDict()
    _load_state_dict_pre_hooks = _HookDict()
    _load_state_dict_post_hooks = _HookDict()

    # ------------------------------------------------------------------ hooks
    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` before this module's ``state_dict`` saves
        anything (``torch.nn.Module.register_state_dict_pre_hook``). Returns a handle."""
        return _handle(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after this module and its
        children are saved; it may edit ``state_dict`` in place and must return None
        (``torch.nn.Module.register_state_dict_post_hook``). Returns a handle.

        Raises:
            RuntimeError: (at ``state_dict()``) "state_dict post-hook must return None".
        """
        hook._from_public_api = True     # PyTorch marks the function itself, as here
        return _handle(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """The older post-hook (``torch.nn.Module._register_state_dict_hook``):
        ``hook(module, state_dict, prefix, local_metadata)``; a non-None return replaces the
        state dict, though only the root module's ``state_dict()`` returns it (PyTorch's
        behaviour, kept for compatibility).

        Raises:
            RuntimeError: the function was registered with ``register_state_dict_post_hook``.
        """
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return _handle(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before this module loads its own entries (the module first when
        ``with_module``) (``torch.nn.Module._register_load_state_dict_pre_hook``)."""
        return _handle(self._load_state_dict_pre_hooks,
                       _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its own entries; it may edit
        ``state_dict`` (a copy of the one given) (``torch.nn.Module.register_load_state_dict_
        pre_hook``). Returns a handle."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` after this module and its children are loaded;
        it may edit ``incompatible_keys.missing_keys`` / ``.unexpected_keys`` in place (a strict
        load then raises for what is left) and must return None
        (``torch.nn.Module.register_load_state_dict_post_hook``). Returns a handle.

        Raises:
            AssertionError: (at ``load_state_dict``) the hook returned a value.
        """
        return _handle(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ extra state
    def get_extra_state(self):
        """The module's extra state, saved under ``prefix + "_extra_state"`` when a subclass
        defines this method (and ``set_extra_state``) (``torch.nn.Module.get_extra_state``).

        Raises:
            RuntimeError: called on a module that does not define it.
        """
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state):
        """Restore what ``get_extra_state`` returned (``torch.nn.Module.set_extra_state``).

        Raises:
            RuntimeError: called on a module that does not define it.
        """
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # ------------------------------------------------------------------ save
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own entries (not its children's) into ``destination``: parameters,
        persistent buffers, then the extra state (``torch.nn.Module._save_to_state_dict``)."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if _overrides(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ``OrderedDict`` of parameters and persistent buffers by dotted name: each module's
        own parameters, then its buffers (and extra state), then its children's (PyTorch's
        order). Values are detached tensors sharing storage (the Parameters themselves with
        ``keep_vars``). A new dict carries ``_metadata``: ``{module prefix: {"version":
        module._version}}``, read back by ``load_state_dict``. Pre-hooks run before a module
        saves, post-hooks after its children.

        Positional ``destination, prefix, keep_vars`` are accepted with PyTorch's
        FutureWarning ("Positional args are being deprecated, use kwargs instead...").
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    # ------------------------------------------------------------------ load
    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own entries (``torch.nn.Module._load_from_state_dict``, same
        arguments: subclasses override it to convert older checkpoints, as BatchNorm does)."""
        load_local(self, state_dict, prefix, local_metadata, strict, missing_keys,
                   unexpected_keys, error_msgs)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict`` into this module (``copy_`` under
        ``no_grad``, casting to each parameter's dtype). Values may be minigrad Tensors or real
        ``torch.Tensor``s (converted bit for bit with ``minigrad.testing.from_torch``), so
        weights move straight from a PyTorch model: ``m.load_state_dict(torch_model.state_dict())``.
        ``assign=True``: the state dict's tensors replace the module's (their dtype kept, no
        copy); a parameter becomes a ``Parameter`` with the module's ``requires_grad``. The
        state dict's ``_metadata`` (if any) gives each module's ``local_metadata``; load
        pre-hooks run before each module loads, post-hooks after its children.

        Returns:
            a NamedTuple ``(missing_keys, unexpected_keys)``.

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: "Error(s) in loading state_dict for Name:\\n\\t..." listing missing and
                unexpected keys (when ``strict``), size mismatches and non-tensor values. As in
                PyTorch, entries without an error are copied before the error is raised.
        """
        return load_state_dict(self, state_dict, strict, assign)
