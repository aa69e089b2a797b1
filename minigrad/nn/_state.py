"""``Module.state_dict`` / ``load_state_dict`` (``torch.nn.Module``'s): PyTorch's key order,
its walk over the module tree, its key bookkeeping and its error texts. Mixed into ``Module``."""
from __future__ import annotations

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



# ``load_state_dict(assign=True)`` for the load under way (PyTorch passes it down in the
# state dict's metadata as ``assign_to_params_buffers``; here a flag, so subclasses'
# ``_load_from_state_dict(...)`` keep PyTorch's signature)
_ASSIGN = [False]


def _is_torch_tensor(x) -> bool:
    """True for a ``torch.Tensor`` (checked by class name: minigrad never imports torch)."""
    return any(c.__module__.startswith("torch") and c.__name__ == "Tensor"
               for c in type(x).__mro__)


def load_local(module, state_dict, prefix, strict, missing, unexpected, errors):
    """Load ``module``'s own parameters and persistent buffers from ``state_dict`` (keys with
    ``prefix``), recording missing/unexpected keys and error messages (PyTorch's
    ``_load_from_state_dict``)."""
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
        if _ASSIGN[0]:
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
    if strict:
        for key in state_dict.keys():
            if not key.startswith(prefix):
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
    state_dict = OrderedDict(state_dict)

    def load(mod, local_sd, prefix=""):
        # PyTorch always collects keys (strict=True here); ``strict`` only decides the error
        mod._load_from_state_dict(local_sd, prefix, True, missing, unexpected, errors)
        for name, child in mod._modules.items():
            if child is not None:
                cp = prefix + name + "."
                load(child, {k: v for k, v in local_sd.items() if k.startswith(cp)}, cp)

    _ASSIGN[0] = bool(assign)
    try:
        load(module, state_dict)
    finally:
        _ASSIGN[0] = False
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


class _StateDictMixin:
    """``state_dict`` / ``load_state_dict`` of ``Module``."""

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ``OrderedDict`` of parameters and persistent buffers by dotted name: each module's
        own parameters, then its buffers, then its children's (PyTorch's order). Values are
        detached tensors sharing storage (the Parameters themselves with ``keep_vars``)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, strict, missing, unexpected, errors):
        load_local(self, state_dict, prefix, strict, missing, unexpected, errors)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict`` into this module (``copy_`` under
        ``no_grad``, casting to each parameter's dtype). Values may be minigrad Tensors or real
        ``torch.Tensor``s (converted bit for bit with ``minigrad.testing.from_torch``), so
        weights move straight from a PyTorch model: ``m.load_state_dict(torch_model.state_dict())``.
        ``assign=True``: the state dict's tensors replace the module's (their dtype kept, no
        copy); a parameter becomes a ``Parameter`` with the module's ``requires_grad``.

        Returns:
            a NamedTuple ``(missing_keys, unexpected_keys)``.

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: "Error(s) in loading state_dict for Name:\\n\\t..." listing missing and
                unexpected keys (when ``strict``), size mismatches and non-tensor values. As in
                PyTorch, entries without an error are copied before the error is raised.
        """
        return load_state_dict(self, state_dict, strict, assign)
