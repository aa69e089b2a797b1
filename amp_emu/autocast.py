"""``autocast``: mixed precision as a dispatch mode (mirrors ``torch.autocast``).

Each ``autocast(...)`` region pushes a mode on minigrad's dispatch stack. For every dispatched op
the innermost region's mode finds the op's device type from its tensor arguments ("cuda" when any
of them is on the emulated cuda device, else "cpu": PyTorch's AutocastCUDA / AutocastCPU dispatch
keys), and, when autocast is enabled for that device type, looks the op up in that device type's
``Policy`` and casts the eligible tensor arguments (float32/float16/bfloat16; never float64,
integers or bools; also inside lists, for cat/stack) with ``dispatch("_to_copy", ...)``, so each
cast is a graph node (``ToCopyBackward0``) and gradients flow back in the original dtype. The op
then runs with autocast excluded for its own sub-ops, as PyTorch's wrapper excludes its key.

Thread-local state as PyTorch: per device type an enabled flag, a dtype and a policy, the cache
flag, the nesting counter and the weight-cast cache; every region restores the previous state on
exit. So ``autocast("cuda")`` applies to cuda tensors only and ``autocast("cpu")`` to cpu tensors
only, and an inner ``autocast("cuda", enabled=False)`` leaves cpu tensors under an outer cpu
region, as in PyTorch. With the cuda emulation off (``MINIGRAD_EMULATE_CUDA=0``),
``autocast("cuda")`` warns and disables itself, as PyTorch without CUDA.
Because the mode stays live until the region exits, ``backward()`` called inside a region runs its
backward ops under autocast too (PyTorch does the same).

Deliberate differences from PyTorch:
- The weight-cast cache is keyed by (tensor, dtype), not by tensor alone, so nested regions with
  different dtypes do not hand an fp16 copy to a bf16 region (PyTorch's cache collides there and
  the op then fails with a dtype mismatch).
- State changed with ``set_autocast_enabled`` outside any region has no effect on ops until a
  region is entered (the mode lives with the regions).
"""
from __future__ import annotations

import collections.abc
import functools
import threading
import warnings

import numpy as np

from minigrad import dtypes as _dt
from minigrad.autograd.grad_mode import _grad_state
from minigrad.devices import CPU, device as _device, emulation_enabled
from minigrad.dispatch import dispatch, pop_mode, push_mode
from minigrad.tensor import Tensor

from .policy import (BANNED_BCE_MESSAGE, CastCategory, Policy, _BUILTIN, _DEFAULT_DTYPE,
                     prioritize)

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_enabled", "set_autocast_enabled",
           "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_available"]

_L, _F, _S, _A, _P, _B, _U = (CastCategory.LOWER_PRECISION_FP, CastCategory.FP32,
                              CastCategory.FP32_SET_OPT_DTYPE, CastCategory.FP32_APPEND_DTYPE,
                              CastCategory.PROMOTE, CastCategory.BANNED, CastCategory.UNTOUCHED)
_F32 = _dt.float32
_ELIGIBLE = frozenset((_dt.float32, _dt.float16, _dt.bfloat16))
_DEVICES = ("cuda", "cpu")


class _State(threading.local):
    def __init__(self):
        self.enabled = {d: False for d in _DEVICES}
        self.dtype = dict(_DEFAULT_DTYPE)
        self.policy = dict(_BUILTIN)     # device type -> the Policy its ops follow
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}          # (id(tensor), dtype) -> (tensor, cast)
        self.regions = []        # the live region modes, innermost last
        self.excluded = 0        # > 0 while a listed op's kernel runs
        self.watchers = 0        # > 0 while a trace records decisions (minigrad.testing)
        self.decision = None     # then: (op, category, casts) of the op about to run


_state = _State()


def _check_device(device_type):
    # an unknown device type raises the device parser's error first, as in PyTorch
    # ("Expected one of cpu, cuda, ... device type at start of device string: tpu"); a known
    # type that minigrad does not emulate (mps, xla...) raises ours
    _device(device_type)
    if device_type not in _DEVICES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_available(device_type: str) -> bool:
    """True for "cuda" and "cpu" (``torch.amp.is_autocast_available``).

    Raises:
        RuntimeError: an unknown device type (the device parser's message).
    """
    _device(device_type)
    return device_type in _DEVICES


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is enabled for ``device_type`` on this thread (``torch.is_autocast_enabled``)."""
    _check_device(device_type)
    return _state.enabled[device_type]


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Set the enabled flag of ``device_type`` (``torch.set_autocast_enabled``)."""
    _check_device(device_type)
    _state.enabled[device_type] = bool(enabled)


def get_autocast_dtype(device_type: str):
    """The low-precision dtype of ``device_type`` (``torch.get_autocast_dtype``): float16 for
    cuda and bfloat16 for cpu unless a region or ``set_autocast_dtype`` changed it."""
    _check_device(device_type)
    return _state.dtype[device_type]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the low-precision dtype of ``device_type`` (``torch.set_autocast_dtype``)."""
    _check_device(device_type)
    _state.dtype[device_type] = _dt.as_dtype(dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether the weight-cast cache is on (``torch.is_autocast_cache_enabled``)."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turn the weight-cast cache on or off (``torch.set_autocast_cache_enabled``)."""
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop all cached weight casts (``torch.clear_autocast_cache``)."""
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    """Increment the region nesting counter; returns the new value."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """Decrement the region nesting counter; returns the new value."""
    _state.nesting -= 1
    return _state.nesting


# ---------------------------------------------------------------------- the mode
def _cast(t, dtype, st, low):
    """PyTorch's ``cached_cast`` for one argument (Tensor, list/tuple of Tensors, other)."""
    if isinstance(t, Tensor):
        sd = t.dtype
        if sd is dtype or sd not in _ELIGIBLE:
            return t
        if (dtype is low and sd is _F32 and st.cache_enabled and t._requires_grad
                and t.grad_fn is None and t._base is None):
            key = (id(t), dtype)
            hit = st.cache.get(key)
            # as torch 2.13: casts are cached (and reused, stale after in-place updates) under
            # no_grad too, but a copy cast under no_grad has no graph, so grad mode re-casts
            if hit is not None and hit[0] is t and (hit[1].grad_fn is not None
                                                    or not _grad_state.enabled):
                return hit[1]
            c = dispatch("_to_copy", t, dtype=dtype)
            st.cache[key] = (t, c)
            return c
        return dispatch("_to_copy", t, dtype=dtype)
    if isinstance(t, (list, tuple)) and t and isinstance(t[0], Tensor):
        return type(t)(_cast(x, dtype, st, low) for x in t)
    return t


def _device_type(args, kwargs):
    """The autocast device type of an op: "cuda" when a tensor argument is on cuda, "cpu" when
    all are on the cpu, None without tensor arguments (factories: autocast leaves them)."""
    found = None
    for a in (args if not kwargs else (*args, *kwargs.values())):
        if isinstance(a, Tensor):
            if a._device is not CPU:
                return "cuda"
            found = "cpu"
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            for x in a:
                if isinstance(x, Tensor) and x._device is not CPU:
                    return "cuda"
            found = "cpu"
    return found


def _first_tensor(args):
    for a in args:
        if isinstance(a, Tensor):
            return a
        if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            return a[0]
    return None


def _tensor_dtypes(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            yield a.dtype
        elif isinstance(a, (list, tuple)):
            for x in a:
                if isinstance(x, Tensor):
                    yield x.dtype


class _AutocastMode:
    """The dispatch mode of one region; acts only when it is the innermost region, and then for
    the op's own device type (the state of every device type is live at once, as in PyTorch)."""

    __slots__ = ("device_type",)

    def __init__(self, device_type):
        self.device_type = device_type

    def __minigrad_dispatch__(self, op, args, kwargs, call_next):
        st = _state
        if st.excluded or st.regions[-1] is not self:
            return call_next(args, kwargs)
        dev = _device_type(args, kwargs)
        if dev is None or not st.enabled[dev] or "out" in kwargs:
            return call_next(args, kwargs)
        cat = st.policy[dev]._table.get(op)
        if cat is None or cat is _U:
            return call_next(args, kwargs)
        args0, kwargs0 = args, kwargs
        low = st.dtype[dev]
        if cat is _L or cat is _F:
            target = low if cat is _L else _F32
            args = tuple(_cast(a, target, st, low) for a in args)
            if kwargs:
                kwargs = {k: _cast(v, target, st, low) for k, v in kwargs.items()}
        elif cat is _S or cat is _A:
            first = _first_tensor(args)
            if kwargs.get("dtype") is None and first is not None:
                if first.dtype in _ELIGIBLE:
                    kwargs = {**kwargs, "dtype": _F32}
                elif cat is _A:
                    kwargs = {**kwargs, "dtype": first.dtype}
        elif cat is _P:
            target = prioritize(_tensor_dtypes(args, kwargs), low)
            args = tuple(_cast(a, target, st, low) for a in args)
            if kwargs:
                kwargs = {k: _cast(v, target, st, low) for k, v in kwargs.items()}
        elif cat is _B:
            raise RuntimeError(BANNED_BCE_MESSAGE)
        if st.watchers:         # a trace (minigrad.testing.TraceMode) records the decision
            st.decision = (op, cat, _casts_made(args0, kwargs0, args, kwargs))
        st.excluded += 1
        try:
            return call_next(args, kwargs)
        finally:
            st.excluded -= 1


def _casts_made(args0, kwargs0, args, kwargs):
    """What the mode changed: ``(argument, from dtype name, to dtype name)`` per tensor it cast
    (``argument``: the position, or the keyword; ``"name[i]"`` inside a tensor list) and
    ``("dtype", None, name)`` for a ``dtype=`` it added."""
    out = []

    def one(key, a, b):
        if isinstance(a, Tensor) and b is not a:
            out.append((key, a.dtype.name, b.dtype.name))
        elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and b is not a:
            for i, (x, y) in enumerate(zip(a, b)):
                one(f"{key}[{i}]", x, y)
    for i, (a, b) in enumerate(zip(args0, args)):
        one(i, a, b)
    for k, v in kwargs.items():
        if k in kwargs0:
            one(k, kwargs0[k], v)
        elif k == "dtype":
            out.append(("dtype", None, v.name))
    return tuple(out)


# ---------------------------------------------------------------------- autocast
def _dtype_str(d):
    return "torch." + d.name


class autocast:
    """Context manager / decorator running a region in mixed precision (``torch.autocast``).

    Args:
        device_type: "cuda" or "cpu": the device whose ops the region casts, with PyTorch's
            table for that device.
        dtype: the low-precision dtype; None takes ``policy.default_dtype`` when a policy is
            given, else ``get_autocast_dtype(device_type)`` (float16 for cuda, bfloat16 for cpu,
            or what an enclosing region set).
        enabled: False makes a region where ops run in their input dtypes.
        cache_enabled: the weight-cast cache; None takes ``is_autocast_cache_enabled()``.
        policy: a ``Policy`` to use instead of the built-in table of ``device_type``.

    Raises:
        ValueError: ``device_type`` not a str ("Expected `device_type` of type `str`, got: ...").
        RuntimeError: an unsupported device type.

    Warns:
        UserWarning: cpu with a dtype other than bf16/fp16 (PyTorch's message); autocast is then
            disabled in the region. The cuda profile accepts fp16, bf16 and fp32.

    The region applies to ops whose tensors are on ``device_type`` (see the module docstring,
    also for the deliberate difference of the cache keyed by dtype).
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None, policy=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        device_type = _device(device_type).type   # "cuda:0" names "cuda"; "tpu" raises
        _check_device(device_type)
        self.device = device_type
        if dtype is not None:
            self.fast_dtype = _dt.as_dtype(dtype)
        elif policy is not None and getattr(policy, "default_dtype", None) is not None:
            self.fast_dtype = policy.default_dtype      # a user policy's own default
        else:
            self.fast_dtype = get_autocast_dtype(device_type)
        self.policy = policy if policy is not None else _BUILTIN[device_type]
        if not isinstance(self.policy, Policy):
            raise TypeError(f"policy must be an amp_emu.Policy, got {type(policy).__name__}")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else bool(cache_enabled)
        if enabled and device_type == "cuda" and policy is None and not emulation_enabled():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
            enabled = False
        if enabled and self.fast_dtype not in self.policy.supported_dtypes:
            name = device_type.upper()
            warnings.warn(
                f"In {name} autocast, but the target dtype is not supported. Disabling "
                f"autocast.\n{name} Autocast only supports dtypes of "
                + ", ".join(_dtype_str(d) for d in self.policy.supported_dtypes) + " currently.",
                stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        self._saved = []
        self._policy_regions = []

    def __enter__(self):
        st = _state
        dev = self.device
        self._saved.append((st.cache_enabled, st.enabled[dev], st.dtype[dev], st.policy[dev]))
        st.enabled[dev] = self._enabled
        st.dtype[dev] = self.fast_dtype
        st.policy[dev] = self.policy
        st.nesting += 1
        st.cache_enabled = self._cache_enabled
        mode = _AutocastMode(dev)
        st.regions.append(mode)
        push_mode(mode)
        extra = self.policy.region() if self._enabled else None   # a policy's own region
        self._policy_regions.append(extra)
        if extra is not None:
            extra.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        st = _state
        dev = self.device
        extra = self._policy_regions.pop()
        try:
            if extra is not None:
                extra.__exit__(exc_type, exc, tb)
            mode = st.regions.pop()
            pop_mode(mode)
        finally:
            st.nesting -= 1
            if st.nesting == 0:
                st.cache.clear()
            cache_enabled, enabled, dtype, policy = self._saved.pop()
            st.enabled[dev] = enabled
            st.dtype[dev] = dtype
            st.policy[dev] = policy
            st.cache_enabled = cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast

    def __repr__(self):
        return (f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
                f"enabled={self._enabled}, cache_enabled={self._cache_enabled})")


# ---------------------------------------------------------------------- custom_fwd / custom_bwd
def _cast_inputs(value, device_type, dtype):
    if isinstance(value, Tensor):
        ok = value.dtype.is_floating_point and value.dtype is not _dt.float64 and \
            value._device.type == device_type
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_inputs(k, device_type, dtype): _cast_inputs(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast_inputs(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``Function.forward`` (``torch.amp.custom_fwd``).

    Records the autocast state on ``ctx`` (``ctx._fwd_used_autocast``, ``ctx._dtype``) for
    ``custom_bwd``. With ``cast_inputs=dt`` and autocast enabled for ``device_type``, floating
    tensor inputs on ``device_type`` (not float64; also inside lists/tuples/dicts) are cast to
    ``dt`` and forward
    runs with autocast disabled; outside autocast it is a no-op.

    Raises:
        ValueError: ``device_type`` not a str.
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if on:
            dt = _dt.as_dtype(cast_inputs)
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_inputs(args, device_type, dt),
                           **_cast_inputs(kwargs, device_type, dt))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``Function.backward`` (``torch.amp.custom_bwd``): backward runs
    under the autocast state (enabled flag and dtype) that ``custom_fwd`` saw in forward.

    Raises:
        ValueError: ``device_type`` not a str.
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
