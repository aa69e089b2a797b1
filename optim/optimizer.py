"""``Optimizer``: the base class of every optimizer (mirrors ``torch.optim.Optimizer``).

It keeps ``param_groups`` (a list of dicts, each with ``"params"`` and every hyper-parameter
filled from ``defaults``) and ``state`` (a ``defaultdict(dict)`` keyed by the parameter Tensor),
and implements ``zero_grad``, ``state_dict`` / ``load_state_dict`` in PyTorch's format,
``add_param_group`` and step hooks.

Optimizers write parameters and state only through dispatched ops, as PyTorch's do: the
``_foreach_*`` ops (``minigrad/ops/foreach.py``; the default for-loop runs them on one-tensor
lists) and the fused kernels (``minigrad/ops/fused_optim.py``), so a dispatch mode sees the
whole step. ``fused=`` / ``foreach=`` choose between them as in PyTorch 2.13.
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from types import MappingProxyType


from minigrad import dtypes as _dt
from minigrad.autograd.grad_mode import _grad_state, enable_grad, no_grad
from minigrad.nn._state import _is_torch_tensor
from minigrad.nn.module import zero_grads_
from minigrad import numerics as _nx
from minigrad.profiler.record_function import observers as _range_observers
from minigrad.profiler.record_function import record_function
from minigrad.profiler.recorder import current as _profiling
from minigrad.testing import from_torch
from minigrad.tensor import Tensor

__all__ = ["Optimizer", "required"]

_EMPTY = MappingProxyType({})     # the state of a parameter not stepped yet (read only)


def _typename(obj) -> str:
    """``torch.typename``: ``minigrad.FloatTensor`` for tensors, the qualified type otherwise."""
    if isinstance(obj, Tensor):
        return f"minigrad.{obj.dtype.legacy_name}"
    t = type(obj)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", None) else f"{mod}.{t.__qualname__}"


class _RequiredParameter:
    """Marks a hyper-parameter every param group must give (``torch.optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class _RemovableHandle:
    """Handle returned by the ``register_*_hook`` methods; ``remove()`` unregisters."""

    _next_id = 0

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = _RemovableHandle._next_id
        _RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _wrap_step(step):
    """Run step pre-hooks, then ``step`` (updates under ``no_grad``), then step post-hooks, inside
    the profiler range ``Optimizer.step#<class>.step``."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if _profiling() is None and not _range_observers:   # nobody reads the range: skip it
            return _hooked_step(step, self, args, kwargs)
        # the profiler's range, named as PyTorch's profile_hook_step names it
        with record_function(f"Optimizer.step#{type(self).__name__}.step"):
            return _hooked_step(step, self, args, kwargs)

    wrapper._optim_hooked = True
    return wrapper


def _hooked_step(step, self, args, kwargs):
    """``step`` between the optimizer's step pre-hooks and post-hooks."""
    for hook in list(self._optimizer_step_pre_hooks.values()):
        res = hook(self, args, kwargs)
        if res is not None:
            if not (isinstance(res, tuple) and len(res) == 2):
                raise RuntimeError("optimizer step pre hook must return None or a tuple "
                                   f"of (new_args, new_kwargs), but got {res}.")
            args, kwargs = res
    out = step(self, *args, **kwargs)
    for hook in list(self._optimizer_step_post_hooks.values()):
        hook(self, args, kwargs)
    return out


class Optimizer:
    """Base class for optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts (param groups,
            each with a ``"params"`` entry and optional per-group hyper-parameters).
        defaults: hyper-parameter defaults, filled into every group that lacks them.

    Attributes:
        param_groups: list of dicts; ``"params"`` holds the Tensors.
        state: ``defaultdict(dict)`` keyed by parameter Tensor.
        defaults: the dict given.

    Raises:
        TypeError: ``params`` is a single Tensor, a set, or holds a non-Tensor.
        ValueError: empty parameter list; a parameter in two groups; a non-leaf parameter.

    Subclasses implement ``step(closure=None)``; it is wrapped automatically so step hooks run.
    """

    # state entries that are 0-dim tensors, not shaped like their parameter
    _scalar_state = ("step",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_optim_hooked", False):
            cls.step = _wrap_step(step)

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ------------------------------------------------------------------ pickling / repr
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------------ param groups
    def add_param_group(self, param_group: dict) -> None:
        """Append a param group (``Optimizer.add_param_group``), filling in the defaults.

        Raises:
            TypeError: not a dict; params given as a set; a param that is not a Tensor.
            ValueError: a non-leaf param; a required hyper-parameter missing; a param already in
                another group ("some parameters appear in more than one parameter group");
                mixing named and unnamed params.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or
                                                                      p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors (``Optimizer.zero_grad``).

        Args:
            set_to_none: True (default) sets ``.grad`` to None; False detaches the grad and
                zeroes it in place (its storage array and version counter are kept).
        """
        params = (p for group in self.param_groups for p in group["params"])
        if _profiling() is None and not _range_observers:   # nobody reads the range: skip it
            zero_grads_(params, set_to_none)
            return
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            zero_grads_(params, set_to_none)

    def step(self, closure=None):
        """Perform one optimization step (``Optimizer.step``); subclasses implement it.

        Raises:
            NotImplementedError: on the base class.
        """
        raise NotImplementedError

    def _step_groups(self, closure):
        """The shared body of ``step``: evaluate the closure, validate every group's grads
        before touching anything, then ``_update_group(group, params)`` each group."""
        loss = None if closure is None else self._closure_loss(closure)
        work = [(g, self._params_with_grad(g)) for g in self.param_groups]
        gs = _grad_state
        prev = gs.enabled
        gs.enabled = False              # no_grad(), without its context-manager object
        token = _nx.quiet()             # np.errstate(all="ignore"), as two C calls
        try:
            for group, params in work:
                self._update_group(group, params)
        finally:
            _nx.unquiet(token)
            gs.enabled = prev
        return loss

    def _closure_loss(self, closure):
        """Evaluate ``closure`` (if any) with grad enabled, as PyTorch's optimizers do."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _params_with_grad(self, group):
        """The group's params whose grad is not None, validated before anything is touched.

        Raises:
            TypeError: a ``.grad`` that is not a Tensor.
            RuntimeError: a grad whose shape or dtype differs from its parameter's (PyTorch
                refuses such a grad when it is assigned; minigrad checks here instead), or a
                state tensor whose shape differs from its parameter's.
        """
        out = []
        fused = group.get("fused")
        state = self.state
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(g).__name__}")
            shape = p._data.shape
            if g._data.shape != shape:
                raise RuntimeError(f"attempting to step with a gradient of size "
                                   f"'{list(g.shape)}' for a parameter of size "
                                   f"'{list(p.shape)}'. Please ensure that the gradient and the "
                                   "tensor are the same size")
            if g.dtype is not p.dtype:
                raise RuntimeError(f"attempting to step with a gradient of dtype {g.dtype} for a "
                                   f"parameter of dtype {p.dtype}. The gradient must match the "
                                   "tensor's dtype")
            if fused and not p.dtype.is_floating_point:
                raise RuntimeError("`fused=True` requires all the params to be floating point "
                                   "Tensors of supported devices: ['mps', 'cuda', 'xpu', 'hpu', "
                                   f"'cpu', 'mtia', 'privateuseone'] but {p.dtype} and cpu")
            if not p.dtype.is_floating_point:
                raise RuntimeError(f"optimizers can only update floating point parameters, got "
                                   f"{p.dtype}")
            for key, v in state.get(p, _EMPTY).items():
                if isinstance(v, Tensor) and key not in self._scalar_state and \
                        v._data.shape != shape:
                    raise RuntimeError(f"optimizer state '{key}' has size {list(v.shape)} but "
                                       f"its parameter has size {list(p.shape)}")
            out.append(p)
        return out

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before each step; it may return new
        ``(args, kwargs)``. Returns a handle with ``remove()``."""
        h = _RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[h.id] = hook
        return h

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after each step. Returns a handle."""
        h = _RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[h.id] = hook
        return h

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict:
        """The optimizer state in PyTorch's format (``Optimizer.state_dict``).

        Returns:
            ``{"state": {int: {name: value}}, "param_groups": [{..., "params": [int, ...]}]}``:
            parameters are replaced by their position over all groups; state values are the
            live tensors (not copies), as in PyTorch.
        """
        mapping: dict = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    @staticmethod
    def _cast_state_value(param, value, key, group):
        if key == "step":
            if group is not None and (group.get("capturable", False) or
                                      group.get("fused", False)):
                return value.to(device=param.device, dtype=_dt.float32)
            return value
        if param.dtype.is_floating_point:
            return value.to(device=param.device, dtype=param.dtype)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state produced by ``state_dict`` (``Optimizer.load_state_dict``).

        A state dict saved by PyTorch loads too: its ``torch.Tensor`` values become minigrad
        tensors bit for bit (as ``Module.load_state_dict`` does). State tensors move to their
        parameter's device and, for a floating parameter, to its
        dtype, except ``"step"`` (kept as is unless the group is capturable/fused, then fp32 on
        the parameter's device); a tensor already right is used as is (not copied), as in
        PyTorch (``_process_value_according_to_param_policy``).

        Raises:
            ValueError: "loaded state dict has a different number of parameter groups", or
                "loaded state dict contains a parameter group that doesn't match the size of
                optimizer's group".
        """
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def group_of(pid):
            for g in state_dict["param_groups"]:
                if pid in g["params"]:
                    return g
            return None

        def cast(param, value, group, key=None):
            if not isinstance(value, Tensor) and _is_torch_tensor(value):
                value = from_torch(value, requires_grad=False)  # a real torch.Tensor: same bits
            if isinstance(value, Tensor):
                return self._cast_state_value(param, value, key, group)
            if isinstance(value, dict):
                return {k: cast(param, v, group, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, group) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, group_of(k))
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    # ------------------------------------------------------------------ helpers for steps
    @staticmethod
    def _implementation(group, params) -> str:
        """Which of PyTorch's three step implementations a group runs: "fused" (``fused=True``),
        "foreach" (``foreach=True``) or "for_loop" (the default: PyTorch's
        ``_default_to_fused_or_foreach`` picks foreach only for CUDA tensors, and minigrad's
        tensors are CPU tensors)."""
        if group.get("fused"):
            return "fused"
        return "foreach" if group.get("foreach") else "for_loop"

    @staticmethod
    def _by_dtype(params) -> list:
        """Indices of ``params`` grouped by dtype, in first-seen order (PyTorch's
        ``_group_tensors_by_device_and_dtype`` on one device)."""
        groups: dict = {}
        for i, p in enumerate(params):
            groups.setdefault(p.dtype, []).append(i)
        return list(groups.values())

    @staticmethod
    def _for_loop_chunks(params) -> list:
        """Index lists for the for-loop implementation: one list per (dtype, device) for
        fp32/fp64 parameters, one per parameter for fp16/bf16.

        PyTorch's for-loop updates one tensor at a time; minigrad runs it as ``_foreach_*`` ops.
        On CPU a ``_foreach_*`` kernel is a loop of the per-tensor kernel, and the only
        difference between the two paths (``_foreach_mul_`` rounding a number to a 16-bit
        dtype, see ``sgd._mul_``) cannot arise in fp32/fp64, so there one call over all the
        same-dtype parameters gives the for-loop's bits with far fewer dispatches
        (``tests/differential/test_optim.py`` steps several fp32/fp64 parameters at once
        and checks every bit against torch's for-loop)."""
        if params:      # the common case first: one fp32/fp64 dtype on one device object
            dt, dev = params[0].dtype, params[0]._device
            if dt.itemsize >= 4:
                for p in params:
                    if p.dtype is not dt or p._device is not dev:
                        break
                else:
                    return [list(range(len(params)))]
        groups: dict = {}
        for i, p in enumerate(params):
            wide = p.dtype.itemsize >= 4
            groups.setdefault((p.dtype, p._device) if wide else i, []).append(i)
        return list(groups.values())

    _no_grad = no_grad

