"""``minigrad.memory``: live and peak bytes per device, and what they are made of.

The cuda device's figures are always kept (``minigrad.cuda.memory_allocated``...). The cpu's are
kept only while cpu accounting is on, so that cpu tensors carry no bookkeeping otherwise (the
per-op hot path stays as it is): inside ``track("cpu")``, or between ``enable_cpu_accounting()``
and ``disable_cpu_accounting()``. Switching it on finds the cpu tensors alive at that moment (one
scan of the garbage collector's objects); from then on a mode on the dispatcher counts the
storage of every tensor an op takes or makes. The cpu has no caching allocator: its figures are
the unrounded bytes, and "reserved" equals "allocated" (PyTorch's CPU allocator caches nothing).

``track(device)`` splits the device's live bytes into five categories, from what the graph and
the dispatcher show, not from guesses (a storage is counted once, in the first that applies):

- ``parameters``: leaf tensors that require grad (``nn.Parameter`` or not) seen by an op in the
  region or alive when it starts;
- ``gradients``: the ``.grad`` of those leaves;
- ``optimizer_state``: storages made inside ``Optimizer.step`` that are still alive (Adam's
  ``exp_avg``, ``exp_avg_sq``, ``step``; while a step runs, also its temporaries), and the state
  tensors of optimizers alive when the region starts;
- ``saved_for_backward``: storages held by the saved-tensor holders (``SavedTensor``) of graph
  nodes that have not been released by a backward (activations kept for the backward pass; what
  a pack hook such as ``save_on_cpu`` put elsewhere counts on that device);
- ``other``: everything else (inputs, outputs, temporaries alive at the moment).

Example::

    with minigrad.memory.track("cuda") as m:
        loss = model(x).sum(); loss.backward(); opt.step()
    m.peak                       # peak allocated bytes of the device in the region
    m.by_category("peak")        # the split at that peak; m.by_category("now") at the end
    m.max_saved                  # the most bytes saved for backward at once
    print(m.report())

Mirrors nothing in PyTorch directly: its figures are ``torch.cuda.memory_stats``'s (for the cpu
too), its categories those of ``torch.profiler._memory_profiler``'s categories.
"""
from __future__ import annotations

import collections
import gc
import threading
import weakref

from . import devices as _devices
from .cuda.allocator import CachingAllocator
from .dispatch import DispatchMode
from .storage_accounting import StorageRegistry, root_of
from .tensor import Tensor

__all__ = ["track", "MemoryTracker", "CATEGORIES", "enable_cpu_accounting",
           "disable_cpu_accounting", "cpu_accounting_enabled", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats"]

CATEGORIES = ("parameters", "gradients", "optimizer_state", "saved_for_backward", "other")

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


def _kinds(objects):
    """``(object, kind)`` for the objects that matter to memory accounting: 1 a Tensor, 2 a graph
    node, 3 an optimizer (an object with ``param_groups`` whose class has ``add_param_group``).
    Decided once per type, from the type alone (``isinstance`` would ask proxies such as lazy
    modules for ``__class__``)."""
    from .autograd.function import Node
    kinds = {}
    for o in objects:
        tp = type(o)
        k = kinds.get(tp)
        if k is None:
            k = kinds[tp] = 1 if issubclass(tp, Tensor) else 2 if issubclass(tp, Node) else \
                3 if any("add_param_group" in c.__dict__ for c in tp.__mro__) else 0
        if k:
            yield o, k


def enable_cpu_accounting(_objects=None) -> None:
    """Switch cpu accounting on (nests with ``disable_cpu_accounting``): the cpu tensors alive now
    are counted (one scan of ``gc.get_objects()``), and from now on those any op takes or makes.
    The mode it pushes on the dispatcher stays until the matching ``disable_cpu_accounting``."""
    if _cpu_on[0] == 0:
        for t, kind in _kinds(gc.get_objects() if _objects is None else _objects):
            if kind == 1 and t._device is _devices.CPU:
                _cpu.track(t)
    _cpu_on[0] += 1
    from .dispatch import push_mode
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
    from .dispatch import pop_mode
    pop_mode(_cpu_mode)
    _cpu_on[0] -= 1


def cpu_accounting_enabled() -> bool:
    """Whether cpu accounting is on."""
    return _cpu_on[0] > 0


def _registry(device):
    d = _devices.device(device) if not isinstance(device, _devices.device) else device
    if d.type == "cuda":
        from .cuda.memory import _allocator
        _allocator(d)
        return _devices.cuda_storages()
    if d.type == "cpu":
        return _cpu
    raise ValueError(f"minigrad.memory: no memory figures for device '{d}'")


def memory_stats(device="cpu") -> "collections.OrderedDict[str, int]":
    """``minigrad.cuda.memory_stats`` for ``device`` ("cpu" or "cuda"); the cpu's as kept while
    cpu accounting is on (unrounded; one segment per storage)."""
    from .cuda.memory import memory_stats as cuda_stats
    reg = _registry(device)
    if reg is not _cpu:
        return cuda_stats(device)
    flat = []

    def add(prefix, obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                add(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            flat.append((prefix, obj))
    add("", _cpu.allocator.nested_stats())
    return collections.OrderedDict(sorted(flat))


def _stat(device, name, field):
    return getattr(_registry(device).allocator.stats[name]["all"], field)


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
    _registry(device).allocator.reset_peak()


# ------------------------------------------------------------------------------ categories
class _RangeWatch:
    """Whether an ``Optimizer.step`` range is open (``record_function``'s observer)."""

    def __init__(self):
        self.depth = 0

    def __call__(self, name, entering):
        if name.startswith("Optimizer.step#"):
            self.depth += 1 if entering else -1


class MemoryTracker(DispatchMode):
    """What ``track(device)`` returns; see the module docstring.

    Attributes:
        device: the device tracked ("cpu" or "cuda").
        start: allocated bytes of the device when the region began.
        peak: the peak allocated bytes in the region (``max_memory_allocated`` over it).
        max_saved: the most bytes saved for backward (not parameters) at one time.
    """

    def __init__(self, device="cpu"):
        self.device = _devices.device(device).type
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"minigrad.memory: no memory figures for device '{device}'")
        self._reg = None
        self.start = self.peak = self.max_saved = 0
        self._peak_split = None
        self._leaves = weakref.WeakSet()
        self._leaf_keys = {}          # id(leaf) -> key of its storage
        self._opt_keys = set()
        self._saved_count = {}        # key -> number of holders saving it
        self._saved_bytes = 0
        self._nodes = {}              # id(node) -> (weakref to the node, its saved keys)
        self._stale = False           # a backward ran: some nodes may be released
        self._ranges = _RangeWatch()
        self._tid = None
        self._active = False
        self._final = collections.OrderedDict((c, 0) for c in CATEGORIES)

    # ------------------------------------------------------------------ region
    def __enter__(self):
        from .profiler.record_function import observers
        self._tid = threading.get_ident()
        self._reg = _registry(self.device)
        self._active = True
        objects = gc.get_objects()
        if self._reg is _cpu:
            enable_cpu_accounting(objects)
        self._scan(objects)
        del objects
        observers.append(self._ranges)
        self._reg.watchers.append(self)
        self.start = self.peak = self._reg.allocator.stats["allocated_bytes"]["all"].current
        self._peak_split = self.by_category("now")
        return super().__enter__()

    def __exit__(self, *exc):
        from .profiler.record_function import observers
        super().__exit__(*exc)
        self._reg.watchers.remove(self)
        observers.remove(self._ranges)
        if self._reg is _cpu:
            disable_cpu_accounting()
        self._sweep()
        self._final = self.by_category("now")
        self._active = False
        return False

    def _scan(self, objects):
        """Find the parameters, optimizer states and graph nodes alive at the start."""
        for o, kind in _kinds(objects):
            if kind == 1:
                if o._requires_grad and o._grad_fn is None:
                    self._add_leaf(o)
                elif o._grad_fn is not None:
                    self._add_node(o._grad_fn)
            elif kind == 2:
                self._add_node(o)
            elif kind == 3:
                state = _instance_dict(o).get("state")
                for st in (state.values() if isinstance(state, dict) else ()):
                    for v in (st.values() if isinstance(st, dict) else ()):
                        if isinstance(v, Tensor):
                            k = self._reg.key_of(v)
                            if k is not None:
                                self._opt_keys.add(k)

    # ------------------------------------------------------------------ the dispatch mode
    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        if threading.get_ident() != self._tid:
            return call_next(args, kwargs)
        from .autograd import engine as _engine
        if _engine._current_graph_task_id() != -1:
            self._stale = True
        for a in args:
            if isinstance(a, Tensor) and a._requires_grad and a._grad_fn is None:
                self._add_leaf(a)
        out = call_next(args, kwargs)
        for o in (out if type(out) is tuple or type(out) is list else (out,)):
            if isinstance(o, Tensor) and o._grad_fn is not None:
                self._add_node(o._grad_fn)
        return out

    def _add_leaf(self, t):
        if id(t) not in self._leaf_keys:
            self._leaves.add(t)
            k = self._reg.key_of(t)
            self._leaf_keys[id(t)] = k
            weakref.finalize(t, self._leaf_keys.pop, id(t), None)

    def _add_node(self, node):
        saved = getattr(node, "_saved", None)
        if not saved or id(node) in self._nodes:
            return
        if self._stale:
            self._sweep()
        keys = []
        for s in saved:
            for t in _held(s):
                k = id(root_of(t)) if not isinstance(t, Tensor) else id(root_of(t._data))
                if k in self._reg.blocks:
                    keys.append(k)
        if not keys:
            return
        params = set(self._leaf_keys.values())
        keys = [k for k in keys if k not in params]
        nid = id(node)
        self._nodes[nid] = (weakref.ref(node, lambda _r, n=nid: self._drop_node(n)), keys)
        for k in keys:
            c = self._saved_count.get(k, 0)
            self._saved_count[k] = c + 1
            if c == 0:
                self._saved_bytes += self._reg.blocks[k].size
        if self._saved_bytes > self.max_saved:
            self.max_saved = self._saved_bytes

    def _drop_node(self, nid):
        entry = self._nodes.pop(nid, None)
        if entry is None:
            return
        for k in entry[1]:
            c = self._saved_count.get(k, 0) - 1
            if c <= 0:
                if self._saved_count.pop(k, None) is not None:
                    b = self._reg.blocks.get(k)
                    if b is not None:
                        self._saved_bytes -= b.size
            else:
                self._saved_count[k] = c

    def _sweep(self):
        """Drop the nodes a backward released (their saved tensors are gone from the graph)."""
        for nid, (ref, _keys) in list(self._nodes.items()):
            n = ref()
            if n is None or getattr(n, "_saved", None) is None:
                self._drop_node(nid)
        from .autograd import engine as _engine
        # inside a backward, nodes are released after their last op: stay stale until it ends
        self._stale = _engine._current_graph_task_id() != -1

    # ------------------------------------------------------------------ watcher
    def allocated(self, reg, key, block):
        """The registry's call for each new storage: optimizer state inside a step; a new peak
        takes the split of the moment."""
        if self._ranges.depth > 0:
            self._opt_keys.add(key)
        cur = reg.allocator.stats["allocated_bytes"]["all"].current
        if cur > self.peak:
            self.peak = cur
            self._peak_split = self.by_category("now")

    def freed(self, reg, key, size):
        """The registry's call for each storage that died."""
        self._opt_keys.discard(key)
        if self._saved_count.pop(key, None) is not None:
            self._saved_bytes -= size
            self._stale = True       # a node that saved it was released: sweep before reuse

    # ------------------------------------------------------------------ results
    def by_category(self, at: str = "peak") -> "collections.OrderedDict[str, int]":
        """Bytes per category (``CATEGORIES``), summing to the device's allocated bytes.

        Args:
            at: ``"peak"`` (the split at the region's peak) or ``"now"`` (the current split;
                after the region, the split at its end).

        Raises:
            ValueError: another ``at``.
        """
        if at == "peak":
            return collections.OrderedDict(self._peak_split)
        if at != "now":
            raise ValueError(f"by_category(): at must be 'peak' or 'now', got {at!r}")
        if not self._active:
            return collections.OrderedDict(self._final)
        if self._stale:
            self._sweep()
        blocks = self._reg.blocks
        seen = set()
        out = collections.OrderedDict((c, 0) for c in CATEGORIES)

        def take(cat, key):
            if key is not None and key not in seen and key in blocks:
                seen.add(key)
                out[cat] += blocks[key].size
        leaves = list(self._leaves)
        for t in leaves:
            take("parameters", self._reg.key_of(t))
        for t in leaves:
            g = t._grad
            if g is not None:
                take("gradients", self._reg.key_of(g))
        for k in list(self._opt_keys):
            take("optimizer_state", k)
        overlap = sum(blocks[k].size for k in self._saved_count if k in seen and k in blocks)
        out["saved_for_backward"] = self._saved_bytes - overlap
        total = self._reg.allocator.stats["allocated_bytes"]["all"].current
        out["other"] = total - sum(out.values())
        return out

    @property
    def current(self) -> int:
        """Allocated bytes of the device now."""
        return self._reg.allocator.stats["allocated_bytes"]["all"].current

    def report(self) -> str:
        """A table of the bytes per category at the peak and now, with the peak and the most
        bytes saved for backward at once."""
        peak, now = self.by_category("peak"), self.by_category("now")
        lines = [f"memory on {self.device}: start {_fmt(self.start)}, peak {_fmt(self.peak)}, "
                 f"max saved for backward {_fmt(self.max_saved)}",
                 f"{'category':<20}{'at peak':>14}{'now':>14}"]
        for c in CATEGORIES:
            lines.append(f"{c:<20}{_fmt(peak[c]):>14}{_fmt(now[c]):>14}")
        lines.append(f"{'total':<20}{_fmt(sum(peak.values())):>14}{_fmt(sum(now.values())):>14}")
        return "\n".join(lines)


def _instance_dict(o):
    """``o``'s own ``__dict__`` read without attribute look-up hooks, or {}."""
    try:
        d = object.__getattribute__(o, "__dict__")
    except (AttributeError, TypeError):
        return {}
    return d if type(d) is dict else {}


def _fmt(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} GiB"


def _held(s):
    """The tensors and arrays a saved-tensor holder keeps (a ``SavedTensor``, or what a pack
    hook returned: tensors, possibly in tuples, lists or dicts)."""
    out = []
    t = getattr(s, "tensor", None)
    if t is not None:
        out.append(t)
    d = getattr(s, "data", None)
    if d is not None and not isinstance(d, Tensor):
        out.append(d)
    packed = getattr(s, "packed", None)
    stack = [packed] if packed is not None else []
    while stack:
        p = stack.pop()
        if isinstance(p, Tensor):
            out.append(p)
        elif isinstance(p, (tuple, list)):
            stack.extend(p)
        elif isinstance(p, dict):
            stack.extend(p.values())
    return out


def track(device="cpu") -> MemoryTracker:
    """A context manager tracking ``device``'s memory and its split by category; see the module
    docstring. On the cpu it switches cpu accounting on for the region.

    Args:
        device: "cpu" or "cuda" (or a ``minigrad.device``).

    Raises:
        ValueError: a device with no memory figures. AssertionError: cuda with the emulation
            off.
    """
    return MemoryTracker(device)
