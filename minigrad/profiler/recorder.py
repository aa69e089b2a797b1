"""The recorder: the one place where profiler events are opened and closed.

A profiler is a *mode on the dispatcher* (``minigrad.dispatch``): while a ``Recorder`` records,
every dispatched op, forward and backward, passes through its ``__minigrad_dispatch__``, which
opens an event named as PyTorch names the op (``aten::addmm`` for our ``addmm``; the overload,
``div.Tensor_mode``, is dropped as PyTorch's table drops it), runs the op, and closes the event.
Ops that an op dispatches itself (``linear`` dispatches ``t`` and ``addmm``) run inside the open
event, so events nest exactly as the calls do. No op knows the profiler exists.

Two other sources feed the same stack of open events:

- ``record_function(name)`` (user ranges, ``Optimizer.step#AdamW.step``, ``ProfilerStep#3``);
- the backward engine, through its one hook ``minigrad.autograd.engine._profile_hook``: one
  ``autograd::engine::evaluate_function: AddmmBackward0`` range per node the engine runs and,
  inside it, the node's own range ``AddmmBackward0`` around its backward formula, as PyTorch's
  engine records them.

With ``profile_memory`` an op's event counts the bytes of storage allocated and freed while it is
the innermost open event, from the memory accounting (``minigrad.storage_accounting``: the cuda
device's caching allocator, whose blocks are rounded to 512 bytes, and the cpu's, switched on for
the profile), split by device into CPU and (emulated) CUDA figures. A free counts negative, so an
op's self memory is what it allocated minus what it freed, and a ``record_function`` range that
drops a tensor shows negative self memory, as in PyTorch's table. An allocation or free outside
every event (a tensor deleted in Python between ops) becomes an event of its own named
``[memory]``, as PyTorch's: no duration, no parent, its bytes as its (self) memory, numbered after
every other event (``_stop`` merges it in by time); ``key_averages`` folds them into one
``[memory]`` row. Every allocation and free is also kept as a record (time, bytes, address, the
device's allocated and reserved totals after it), which the Chrome trace shows as PyTorch's
``[memory]`` instant events.

Only the thread that started the recorder is recorded (the mode stack is per thread; the engine
hook checks the thread), and one recorder records at a time.
"""
from __future__ import annotations

import os
import sys
import threading
from time import perf_counter_ns


from ..autograd import engine as _engine
from ..autograd.function import AccumulateGrad
from ..dispatch import DispatchMode, pop_mode, push_mode
from ..tensor import Tensor
from .events import FunctionEvent

__all__ = ["Recorder", "current"]

_current = [None]          # the recording Recorder, or None


def current():
    """The Recorder recording on this thread, or None."""
    r = _current[0]
    return r if r is not None and r.tid == threading.get_ident() else None


_MINIGRAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# frames in these packages are left out of ``with_stack`` stacks (PyTorch shows user frames)
_SKIP_DIRS = tuple(os.path.join(d, "") for d in
                   (_MINIGRAD, os.path.join(os.path.dirname(_MINIGRAD), "optim"),
                    os.path.join(os.path.dirname(_MINIGRAD), "amp_emu")))


def _shape_of(a):
    if isinstance(a, Tensor):
        return list(a.shape)
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
        return [list(x.shape) for x in a]
    return []


def _type_of(a):
    if isinstance(a, Tensor):
        return a.dtype.cpp_name
    if a is None:
        return ""
    if isinstance(a, (bool, int, float, complex)):
        return "Scalar"
    if isinstance(a, (list, tuple)):
        return "TensorList" if a and isinstance(a[0], Tensor) else "ScalarList"
    return ""


def _flops(name, args):
    """PyTorch's FLOP formulas (``torch/csrc/profiler/util.cpp``'s ``computeFlops`` for mm,
    addmm, bmm, baddbmm, mul, add) on the shapes of the arguments; 0 for other ops."""
    try:
        if name == "mm":
            (m, k), (_, n) = args[0].shape, args[1].shape
            return 2 * m * k * n
        if name == "addmm":
            (m, k), (_, n) = args[1].shape, args[2].shape
            return 2 * m * k * n
        if name == "bmm":
            (b, m, k), (_, _, n) = args[0].shape, args[1].shape
            return 2 * b * m * k * n
        if name == "baddbmm":
            (b, m, k), (_, _, n) = args[1].shape, args[2].shape
            return 2 * b * m * k * n
        if name in ("mul", "add"):
            return args[0].numel() if isinstance(args[0], Tensor) else 0
    except (AttributeError, IndexError, TypeError, ValueError):
        return 0
    return 0


class Recorder(DispatchMode):
    """Collects ``FunctionEvent``\\ s on one thread between ``start()`` and ``stop()``.

    Args:
        record_shapes: store each event's input shapes and input types.
        profile_memory: count the bytes each op allocates and frees (see the module docstring).
        with_stack: store the Python call stack (outside minigrad) of each event.
        with_flops: store PyTorch's FLOP estimate for matmul-like ops and ``mul``/``add``.
        use_device: ``"cuda"`` when the CUDA activity is profiled, else None (shown in tables).
    """

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, use_device=None):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.use_device = use_device
        self.events = []      # every event, in the order it was opened
        self.memory_events = []   # the ``[memory]`` events (allocations/frees outside events)
        self.memory_records = []  # (time ns, bytes, address, allocated, reserved, cuda?) each
        self._addresses = {}      # registry key -> the address of its block
        self._open = []       # the stack of open events, outermost first
        self._registries = []  # the storage registries watched with profile_memory
        self.tid = threading.get_ident()
        self.pid = os.getpid()
        self.t0_ns = None

    # ------------------------------------------------------------------ start / stop
    def start(self):
        """Start recording: push the dispatch mode and set the engine hook.

        Raises:
            RuntimeError: another profiler is recording already.
        """
        if _current[0] is not None:
            raise RuntimeError("Can't start the profiler: another profiler is already recording "
                               "(profilers do not nest)")
        self.tid = threading.get_ident()
        self.t0_ns = perf_counter_ns()
        _current[0] = self
        if self.profile_memory:
            from .. import devices as _devices
            from ..memory import figures as _memory
            # its mode is pushed first, so it runs inside ours: our event is still open when it
            # counts an op's storage
            _memory.enable_cpu_accounting()
            self._registries = [_memory.registry("cpu")]
            if _devices.emulation_enabled():
                self._registries.append(_devices.cuda_storages())
            for reg in self._registries:
                reg.watchers.append(self)
        push_mode(self)
        _engine._profile_hook = self.node_range

    def stop(self):
        """Stop recording; close what is still open (a range left open by an exception)."""
        end = perf_counter_ns()
        for ev in reversed(self._open):
            ev._end_ns = end
        self._open.clear()
        _engine._profile_hook = None
        _current[0] = None
        pop_mode(self)
        if self._registries:
            from ..memory import figures as _memory
            for reg in self._registries:
                reg.watchers.remove(self)
            self._registries = []
            _memory.disable_cpu_accounting()

    # ------------------------------------------------------------------ events
    def open(self, name, args=(), kwargs=None, user_annotation=False, sequence_nr=-1):
        """Open an event named ``name`` (nested in the innermost open one) and return it."""
        ev = FunctionEvent(len(self.events), name, self.tid, user_annotation=user_annotation,
                           use_device=self.use_device, sequence_nr=sequence_nr)
        if self.record_shapes:
            vals = tuple(args) + (tuple(kwargs.values()) if kwargs else ())
            ev.input_shapes = [_shape_of(a) for a in vals]
            ev.input_dtypes = [_type_of(a) for a in vals]
        if self.with_stack:
            ev.stack = self._python_stack()
        if self._open:
            parent = self._open[-1]
            ev.cpu_parent = parent
            parent.cpu_children.append(ev)
        self.events.append(ev)
        self._open.append(ev)
        ev._start_ns = perf_counter_ns()
        return ev

    def close(self, ev):
        """Close ``ev`` and any range opened inside it and not closed (an exception's)."""
        end = perf_counter_ns()
        while self._open:
            top = self._open.pop()
            top._end_ns = end
            if top is ev:
                break

    def _python_stack(self):
        out = []
        f = sys._getframe(2)
        while f is not None:
            fn = f.f_code.co_filename
            if not fn.startswith(_SKIP_DIRS):
                out.append(f"{fn}({f.f_lineno}): {f.f_code.co_name}")
            f = f.f_back
        return out

    # ------------------------------------------------------------------ memory (watcher)
    def allocated(self, registry, key, block):
        """A storage was allocated: its block's bytes go to the innermost open event (a
        ``[memory]`` event when none is open)."""
        self._addresses[key] = block.address
        self._count(registry, block.size, block.address)

    def freed(self, registry, key, size):
        """A storage was freed: its bytes count negative in the innermost open event (a
        ``[memory]`` event when none is open)."""
        self._count(registry, -size, self._addresses.pop(key, 0))

    def _count(self, registry, nbytes, address):
        if threading.get_ident() != self.tid:
            return
        now = perf_counter_ns()
        cpu = registry is self._registries[0]
        stats = registry.allocator.stats
        self.memory_records.append((now, nbytes, address, stats["allocated_bytes"]["all"].current,
                                    0 if cpu else stats["reserved_bytes"]["all"].current, not cpu))
        if self._open:
            ev = self._open[-1]
        else:
            # PyTorch's ``[memory]`` event: id and trace name set at the end (``_stop``)
            ev = FunctionEvent(-1, "[memory]", self.tid, use_device=self.use_device)
            ev._start_ns = ev._end_ns = now
            self.memory_events.append(ev)
        if cpu:
            ev.self_cpu_memory_usage += nbytes
        else:
            ev.self_device_memory_usage += nbytes

    # ------------------------------------------------------------------ the dispatch mode
    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        """Record the op ``op_name`` as ``aten::<name>`` around the rest of the dispatch."""
        if _current[0] is not self or threading.get_ident() != self.tid:
            return call_next(args, kwargs)
        base = op_name.split(".", 1)[0]
        ev = self.open("aten::" + base, args, kwargs)
        if self.with_flops:
            ev.flops = _flops(base, args)
        try:
            out = call_next(args, kwargs)
        finally:
            self.close(ev)
        return out

    # ------------------------------------------------------------------ the engine hook
    def node_range(self, node, engine_range):
        """The engine's hook: open ``autograd::engine::evaluate_function: <node name>`` (when
        ``engine_range``) or the node's own range; return the callable that closes it."""
        if threading.get_ident() != self.tid:
            return None
        name = node.name()
        seq = -1 if type(node) is AccumulateGrad else getattr(node, "_seq", -1)
        if not engine_range:
            ev = self.open(name, sequence_nr=seq)
            return lambda: self.close(ev)
        ev = self.open("autograd::engine::evaluate_function: " + name, sequence_nr=seq)
        if type(node) is AccumulateGrad:
            # the engine runs accumulation itself (no call of a backward formula): open the
            # node's own range here
            self.open(name)
        return lambda: self.close(ev)
