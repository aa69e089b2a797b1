"""``Module``: the base class of layers and models (``torch.nn.Module``).

Registration of parameters, buffers and submodules by attribute assignment, traversal
(``parameters``, ``named_modules``...), train/eval, ``zero_grad``, ``state_dict`` /
``load_state_dict`` with PyTorch's key order and error texts, device moves and dtype conversion
in place, forward hooks, state-dict hooks and extra state (``minigrad/nn/_state.py``), and
PyTorch's ``repr``. Devices other than the CPU and the emulated cuda device are not supported
(a deliberate omission).
"""
from __future__ import annotations

from collections import OrderedDict

from ..dispatch import dispatch
from ..tensor import Tensor
from ._convert import _ConvertMixin
from ._state import _StateDictMixin
from . import hooks as _hooks
from .hooks import RemovableHandle, _HooksMixin
from .parameter import Buffer, Parameter, typename

__all__ = ["Module", "RemovableHandle"]


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in s)


def _check_name(kind, name, module, extra=""):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"" + (f", got: {name}" if extra else ""))
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")


def zero_grads_(params, set_to_none: bool = True) -> None:
    """Reset each tensor's ``.grad`` (``Module.zero_grad`` / ``Optimizer.zero_grad``): to None
    (default), or detached and zeroed in place by the dispatched ``zero_`` op (its storage
    array is kept, its version counter bumped)."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if g.grad_fn is not None:
            g.detach_()
        else:
            g.requires_grad_(False)
        dispatch("zero_", g)


class Module(_StateDictMixin, _ConvertMixin, _HooksMixin):
    """Base class of all layers (``torch.nn.Module``).

    Subclasses call ``super().__init__()`` first, then assign ``Parameter``s, ``Module``s and
    (via ``register_buffer``) buffers as attributes, and define ``forward``. Calling the module
    runs forward pre-hooks, ``forward``, then forward hooks.

    Attributes:
        training: True in training mode (``train()``), False after ``eval()``.
    """

    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = {}

    def forward(self, *input):
        """The computation; subclasses must override it.

        Raises:
            NotImplementedError: 'Module [Name] is missing the required "forward" function'.
        """
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required "
                                  "\"forward\" function")

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param) -> None:
        """Register ``param`` (a ``Parameter`` or None) as ``name``.

        Raises:
            AttributeError: before ``Module.__init__``; TypeError: a non-string name or a value
            that is not a Parameter; KeyError: a name with ".", empty, or already an attribute;
            ValueError: a non-leaf tensor.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Register a non-parameter tensor (or None) as ``name``; persistent buffers go into
        ``state_dict``.

        Raises:
            AttributeError / TypeError / KeyError as ``register_parameter``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module) -> None:
        """Register ``module`` (a Module or None) as the child ``name``.

        Raises:
            TypeError: not a Module, or a non-string name; KeyError: a name with ".", empty, or
            already an attribute.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _check_name("module", name, self, extra=True)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                _remove_from(name, d, self._parameters, self._buffers,
                             self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer):           # nn.Buffer(t, persistent=...)
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for s in (self._parameters, self._buffers, self._modules):
            if name in s:
                del s[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yield ``(name, module)`` for this module and all descendants, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """Yield this module and all descendants (each once)."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """Yield ``(name, module)`` for the direct children (each module once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        """Yield the direct child modules."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for k, v in get_members(mod):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + k, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """Yield ``(dotted_name, Parameter)``, own parameters first, then each child's; shared
        parameters once (unless ``remove_duplicate=False``)."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse: bool = True):
        """Yield the parameters (see ``named_parameters``)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yield ``(dotted_name, Tensor)`` for the buffers (persistent or not)."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Yield the buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str):
        """The submodule at dotted path ``target`` ("" is self).

        Raises:
            AttributeError: when a path component does not exist or is not a Module.
        """
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str):
        """The parameter at dotted path ``target``.

        Raises:
            AttributeError: when the path or the parameter does not exist.
        """
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(mod._get_name() + " has no parameter `" + name + "`")
        return mod._parameters[name]

    # ------------------------------------------------------------------ modes, grads
    def train(self, mode: bool = True):
        """Set training mode on this module and all descendants; returns self.

        Raises:
            ValueError: when ``mode`` is not a bool ("training mode is expected to be boolean").
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to None (default), or to zeros in place."""
        zero_grads_(self.parameters(), set_to_none)

    def apply(self, fn):
        """Call ``fn(module)`` on every descendant (children first) and self; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (d.get("_forward_pre_hooks") or d.get("_forward_hooks") or
                d.get("_backward_hooks") or d.get("_backward_pre_hooks") or
                _hooks._global_forward_pre_hooks or _hooks._global_forward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(_hooks._global_forward_pre_hooks.values()):   # global hooks first
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw = None
        if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
            from .hooks import BackwardHook
            bw = BackwardHook(self, d.get("_backward_hooks", {}), d.get("_backward_pre_hooks", {}))
            args = bw.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hooks, with_kwargs in ((_hooks._global_forward_hooks,        # global hooks first
                                    _hooks._global_forward_hooks_with_kwargs),
                                   (self._forward_hooks, self._forward_hooks_with_kwargs)):
            for hid, hook in list(hooks.items()):
                if hid in with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
        if bw is not None:
            result = bw.setup_output_hook(result)
        return result

    # ------------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr``; override in subclasses."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + k + "): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)


def _remove_from(name, *stores):
    for s in stores:
        if isinstance(s, dict):
            s.pop(name, None)
        else:
            s.discard(name)
