"""``MemoryTracker``: a device's live bytes split by category (see ``minigrad.memory``)."""
from __future__ import annotations

import collections
import gc
import threading
import weakref

from .. import devices as _devices
from ..dispatch import DispatchMode
from ..storage_accounting import root_of
from ..tensor import Tensor
from .figures import disable_cpu_accounting, enable_cpu_accounting, kinds, registry

__all__ = ["MemoryTracker", "track", "CATEGORIES"]

CATEGORIES = ("parameters", "gradients", "optimizer_state", "saved_for_backward", "other")


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
        self._leaf_keys = {}      # id(leaf) -> (weakref to the leaf, key of its storage)
        self._opt_keys = set()
        self._saved_count = {}        # key -> number of holders saving it
        self._saved_bytes = 0
        self._nodes = {}              # id(node) -> (weakref to the node, its saved keys)
        self._frames = {}             # id(frame) -> (weakref to a checkpoint frame, its keys)
        self._dirty = set()           # ids of frames whose recomputed tensors changed
        self._stale = False           # a backward ran: some nodes may be released
        self._ranges = _RangeWatch()
        self._tid = None
        self._active = False
        self._final = collections.OrderedDict((c, 0) for c in CATEGORIES)

    # ------------------------------------------------------------------ region
    def __enter__(self):
        from ..profiler.record_function import observers
        from ..utils.checkpoint import frame_watchers
        self._tid = threading.get_ident()
        self._reg = registry(self.device)
        self._active = True
        objects = gc.get_objects()
        if self._reg is registry("cpu"):
            enable_cpu_accounting(objects)
        self._scan(objects)
        del objects
        observers.append(self._ranges)
        frame_watchers.append(self._frame_changed)
        self._reg.watchers.append(self)
        self.start = self.peak = self._reg.allocator.stats["allocated_bytes"]["all"].current
        self._peak_split = self.by_category("now")
        return super().__enter__()

    def __exit__(self, *exc):
        from ..profiler.record_function import observers
        from ..utils.checkpoint import frame_watchers
        super().__exit__(*exc)
        self._refresh_frames()
        self._reg.watchers.remove(self)
        observers.remove(self._ranges)
        frame_watchers.remove(self._frame_changed)
        if self._reg is registry("cpu"):
            disable_cpu_accounting()
        self._sweep()
        self._final = self.by_category("now")
        self._active = False
        return False

    def _scan(self, objects):
        """Find the parameters, optimizer states and graph nodes alive at the start."""
        for o, kind in kinds(objects):
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
        from ..autograd import engine as _engine
        if _engine._current_graph_task_id() != -1:
            self._stale = True
        for a in args:
            if isinstance(a, Tensor) and a._requires_grad and a._grad_fn is None:
                self._add_leaf(a)
        try:
            out = call_next(args, kwargs)
        finally:
            if self._dirty:           # a checkpoint's rerun filled holders in this op
                self._refresh_frames()
        for o in (out if type(out) is tuple or type(out) is list else (out,)):
            if isinstance(o, Tensor) and o._grad_fn is not None:
                self._add_node(o._grad_fn)
        return out

    def _add_leaf(self, t):
        entry = self._leaf_keys.get(id(t))
        if entry is None or entry[0]() is not t:
            self._leaf_keys[id(t)] = (weakref.ref(t), self._reg.key_of(t))

    def _add_node(self, node):
        saved = getattr(node, "_saved", None)
        if not saved or id(node) in self._nodes:
            return
        if self._stale:
            self._sweep()
        held = []
        for s in saved:
            frame = getattr(getattr(s, "packed", None), "frame", None)
            if frame is not None:     # a non-reentrant checkpoint's holder: the frame keeps
                self._add_frame(frame)    # the region's inputs and, in backward, its reruns
            else:
                held.extend(_held(s))
        keys = self._keys_of(held)
        if not keys:
            return
        nid = id(node)
        self._nodes[nid] = (weakref.ref(node, lambda _r, n=nid: self._drop_node(n)), keys)
        for k in keys:
            self._ref(k)
        if self._saved_bytes > self.max_saved:
            self.max_saved = self._saved_bytes

    def _keys_of(self, held):
        """The registry keys of the storages of ``held`` (tensors and arrays) counted on this
        device, parameters left out."""
        keys = []
        blocks = self._reg.blocks
        for t in held:
            k = id(root_of(t)) if not isinstance(t, Tensor) else id(root_of(t._data))
            if k not in blocks and isinstance(t, Tensor) and t._device.type == self.device:
                self._reg.track(t)      # a rerun's last tensor, before the cpu mode saw it
            if k in blocks:
                keys.append(k)
        if keys:
            params = {k for _r, k in self._leaf_keys.values()}
            keys = [k for k in keys if k not in params]
        return keys

    def _ref(self, k):
        c = self._saved_count.get(k, 0)
        self._saved_count[k] = c + 1
        if c == 0:
            self._saved_bytes += self._reg.blocks[k].size

    def _unref(self, k):
        c = self._saved_count.get(k, 0) - 1
        if c <= 0:
            if self._saved_count.pop(k, None) is not None:
                b = self._reg.blocks.get(k)
                if b is not None:
                    self._saved_bytes -= b.size
        else:
            self._saved_count[k] = c

    # ------------------------------------------------------------------ checkpoint frames
    def _add_frame(self, frame):
        fid = id(frame)
        entry = self._frames.get(fid)
        if entry is not None and entry[0]() is frame:
            return
        self._frames[fid] = (weakref.ref(frame, lambda _r, f=fid: self._drop_frame(f)), set())
        self._dirty.add(fid)
        self._refresh_frames()

    def _frame_changed(self, frame):
        """``minigrad.utils.checkpoint``'s call when a frame's recomputed tensors change; they
        are counted after the op running now (its output may not be counted yet)."""
        if id(frame) in self._frames and threading.get_ident() == self._tid:
            self._dirty.add(id(frame))

    def _refresh_frames(self):
        """Recount what the changed frames keep: inputs, and recomputed tensors not unpacked."""
        dirty, self._dirty = self._dirty, set()
        for fid in dirty:
            entry = self._frames.get(fid)
            frame = None if entry is None else entry[0]()
            if frame is None:
                continue
            new = set(self._keys_of(_held_all(frame.kept())))
            old = entry[1]
            for k in new - old:
                self._ref(k)
            for k in old - new:
                self._unref(k)
            self._frames[fid] = (entry[0], new)
        if self._saved_bytes > self.max_saved:
            self.max_saved = self._saved_bytes

    def _drop_frame(self, fid):
        entry = self._frames.pop(fid, None)
        self._dirty.discard(fid)
        if entry is not None:
            for k in entry[1]:
                self._unref(k)

    def _drop_node(self, nid):
        entry = self._nodes.pop(nid, None)
        if entry is None:
            return
        for k in entry[1]:
            self._unref(k)

    def _sweep(self):
        """Drop the nodes a backward released (their saved tensors are gone from the graph)."""
        for nid, (ref, _keys) in list(self._nodes.items()):
            n = ref()
            if n is None or getattr(n, "_saved", None) is None:
                self._drop_node(nid)
        from ..autograd import engine as _engine
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
        for _ref, keys in self._frames.values():
            keys.discard(key)
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
        if self._dirty:
            self._refresh_frames()
        blocks = self._reg.blocks
        seen = set()
        out = collections.OrderedDict((c, 0) for c in CATEGORIES)

        def take(cat, key):
            if key is not None and key not in seen and key in blocks:
                seen.add(key)
                out[cat] += blocks[key].size
        leaves = []
        for lid, (ref, _k) in list(self._leaf_keys.items()):
            t = ref()
            if t is None:
                del self._leaf_keys[lid]
            else:
                leaves.append(t)
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


def _held_all(saved):
    """``_held`` over a list of saved-tensor holders (and tensors, kept as they are)."""
    out = []
    for s in saved:
        if isinstance(s, Tensor):
            out.append(s)
        else:
            out.extend(_held(s))
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

