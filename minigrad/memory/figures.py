"""The memory figures of each device, and cpu accounting (see ``minigrad.memory``).

The cuda device's figures come from its caching allocator (``minigrad.cuda.memory``); the cpu's
from a registry of cpu storages over an allocator without cache or rounding, kept only while cpu
accounting is on: ``enable_cpu_accounting`` finds the cpu tensors alive (one scan of
``gc.get_objects()``) and pushes a mode on the dispatcher that counts the storage of every cpu
tensor an op takes or makes, until ``disable_cpu_accounting``.
"""
from __future__ import annotations

import collections
import gc

from .. import devices as _devices
from ..cuda.allocator import CachingAllocator
from ..dispatch import DispatchMode
from ..storage_accounting import StorageRegistry
from ..tensor import Tensor

__all__ = ["enable_cpu_accounting", "disable_cpu_accounting", "cpu_accounting_enabled",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_stats", "reset_peak_memory_stats", "widening_cache_stats",
           "reset_widening_cache_peak", "registry", "kinds"]

_cpu = StorageRegistry(CachingAllocator(device=-1, caching=False))
_cpu_on = [0]             # how many regions have cpu accounting on


class _CpuMode(DispatchMode):
    """Counts the storage of every cpu tensor an op takes or makes (cpu accounting)."""

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        out = call_next(args, kwargs)
        _track_cpu(args)
        if kwargs:
            _track_cpu(tuple(kwargs.values()))
        if out is not None:
            _track_cpu(out if type(out) is tuple or type(out) is list else (out,))
        return out


def _track_cpu(items):
    for o in items:
        if isinstance(o, Tensor):
            if o._device is _devices.CPU:
                _cpu.track(o)
        elif type(o) is list or type(o) is tuple:
            _track_cpu(o)


_cpu_mode = _CpuMode()


def kinds(objects):
    """``(object, kind)`` for the objects that matter to memory accounting: 1 a Tensor, 2 a graph
    node, 3 an optimizer (an object with ``param_groups`` whose class has ``add_param_group``).
    Decided once per type, from the type alone (``isinstance`` would ask proxies such as lazy
    modules for ``__class__``)."""
    from ..autograd.function import Node
    cache = {}
    for o in objects:
        tp = type(o)
        k = cache.get(tp)
        if k is None:
            k = cache[tp] = 1 if issubclass(tp, Tensor) else 2 if issubclass(tp, Node) else \
                3 if any("add_param_group" in c.__dict__ for c in tp.__mro__) else 0
        if k:
            yield o, k


def enable_cpu_accounting(_objects=None) -> None:
    """Switch cpu accounting on (nests with ``disable_cpu_accounting``): the cpu tensors alive now
    are counted (one scan of ``gc.get_objects()``), and from now on those any op takes or makes.
    The mode it pushes on the dispatcher stays until the matching ``disable_cpu_accounting``."""
    if _cpu_on[0] == 0:
        for t, kind in kinds(gc.get_objects() if _objects is None else _objects):
            if kind == 1 and t._device is _devices.CPU:
                _cpu.track(t)
    _cpu_on[0] += 1
    from ..dispatch import push_mode
    push_mode(_cpu_mode)


def disable_cpu_accounting() -> None:
    """Undo one ``enable_cpu_accounting``. Storages counted so far are still freed when they
    die; new ones are no longer seen.

    Raises:
        RuntimeError: when cpu accounting is not on, or when another mode was pushed after it
            and is still on the stack.
    """
    if _cpu_on[0] == 0:
        raise RuntimeError("disable_cpu_accounting(): cpu memory accounting is not on")
    from ..dispatch import pop_mode
    pop_mode(_cpu_mode)
    _cpu_on[0] -= 1


def cpu_accounting_enabled() -> bool:
    """Whether cpu accounting is on."""
    return _cpu_on[0] > 0


def registry(device):
    d = _devices.device(device) if not isinstance(device, _devices.device) else device
    if d.type == "cuda":
        from ..cuda.memory import _allocator
        _allocator(d)
        return _devices.cuda_storages()
    if d.type == "cpu":
        return _cpu
    raise ValueError(f"minigrad.memory: no memory figures for device '{d}'")


def memory_stats(device="cpu") -> "collections.OrderedDict[str, int]":
    """``minigrad.cuda.memory_stats`` for ``device`` ("cpu" or "cuda"); the cpu's as kept while
    cpu accounting is on (unrounded; one segment per storage)."""
    from ..cuda.memory import flatten_stats, memory_stats as cuda_stats
    reg = registry(device)
    if reg is not _cpu:
        return cuda_stats(device)
    return flatten_stats(_cpu.allocator.nested_stats())


def _stat(device, name, field):
    return getattr(registry(device).allocator.stats[name]["all"], field)


def memory_allocated(device="cpu") -> int:
    """Bytes of the live storages of ``device`` (``torch.cuda.memory_allocated`` for either)."""
    return _stat(device, "allocated_bytes", "current")


def max_memory_allocated(device="cpu") -> int:
    """The peak of ``memory_allocated(device)`` since the last ``reset_peak_memory_stats``."""
    return _stat(device, "allocated_bytes", "peak")


def memory_reserved(device="cpu") -> int:
    """Bytes reserved on ``device``: the cuda caching allocator's segments; for the cpu the same
    as ``memory_allocated``."""
    return _stat(device, "reserved_bytes", "current")


def max_memory_reserved(device="cpu") -> int:
    """The peak of ``memory_reserved(device)``."""
    return _stat(device, "reserved_bytes", "peak")


def reset_peak_memory_stats(device="cpu") -> None:
    """Set the peaks of ``device``'s figures to their current values."""
    registry(device).allocator.reset_peak()


def widening_cache_stats() -> dict:
    """The host-side bytes of minigrad's emulation caches: the fp16 widening cache
    (``minigrad._widening``: fp32 images of fp16 arrays, so that each array is widened once) and
    the forward ``tanh`` a tanh-form GELU node keeps for its backward. Not a device's memory, so
    no other figure here or in ``minigrad.cuda`` counts them (those stay PyTorch's). Mirrors
    nothing in PyTorch.

    Returns:
        ``{"current": bytes held now, "peak": the most held since the last
        ``reset_widening_cache_peak``, "entries": fp16 arrays with an image, "hits": widenings
        served from it since then}``.
    """
    from .. import _widening
    return _widening.stats()


def reset_widening_cache_peak() -> None:
    """Set ``widening_cache_stats()``'s peak to the bytes held now and its hit count to 0."""
    from .. import _widening
    _widening.reset_peak()


# ------------------------------------------------------------------------------ categories
