"""Profiler events and their summaries: ``FunctionEvent``, ``FunctionEventAvg``, ``EventList``.

Mirrors ``torch.autograd.profiler_util``: an ``EventList`` is a list of ``FunctionEvent`` (one
per recorded op or range, with its parent and children), ``key_averages()`` folds it into one
``FunctionEventAvg`` per name (optionally per name and input shapes, or name and stack), and
``table()`` prints PyTorch's table with PyTorch's column names and formats (Name, Self CPU %,
Self CPU, CPU total %, CPU total, CPU time avg, CPU Mem, Self CPU Mem, # of Calls, Input Shapes).

Times are microseconds (floats, from ``time.perf_counter_ns``). "Self" time is an event's time
less its children's, as in PyTorch. The emulated cuda device runs on the host, so there is no
device time: every event is a CPU event and the table has no CUDA time columns; memory of cuda
tensors goes to the CUDA Mem columns.
"""
from __future__ import annotations

from collections import defaultdict

__all__ = ["Interval", "FunctionEvent", "FunctionEventAvg", "EventList"]


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class Interval:
    """A time range in microseconds (``torch.autograd.profiler_util.Interval``)."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        """``end - start`` in microseconds."""
        return self.end - self.start


class _Formatted:
    """The ``*_str`` properties of PyTorch's ``FormattedTimesMixin``."""

    @property
    def cpu_time(self):
        """Average total CPU time per call (us)."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        """Average device time per call: always 0 (the emulated device runs on the host)."""
        return 0.0

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time_total_str(self):
        return _format_time(0.0)

    @property
    def self_device_time_total_str(self):
        return _format_time(0.0)

    device_time_str = device_time_total_str
    device_time_total = 0.0
    self_device_time_total = 0.0
    cuda_time = 0.0
    is_async = False
    is_remote = False
    is_legacy = False
    node_id = -1
    device_type = "CPU"


class FunctionEvent(_Formatted):
    """One recorded op or range (``torch.autograd.profiler_util.FunctionEvent``).

    Attributes:
        id: index in recording order; name / key: e.g. ``"aten::addmm"``.
        time_range: an ``Interval`` in us from the start of the profile.
        thread: the recording thread's id; cpu_parent / cpu_children: the enclosing event and
            the events directly inside it.
        input_shapes: one entry per argument (a tensor's shape as a list, ``[]`` otherwise) when
            ``record_shapes``; input_dtypes: PyTorch's C++ type names (``"float"``,
            ``"c10::Half"``, ``"Scalar"``...).
        self_cpu_memory_usage / cpu_memory_usage: bytes allocated minus bytes freed by the op
            itself / by it and everything inside it (``profile_memory``; negative when it frees
            more than it allocates); ``*_device_*`` the same for cuda tensors (512-byte
            blocks).
        stack: the Python frames (``"file(line): function"``) when ``with_stack``.
        flops: PyTorch's FLOP estimate when ``with_flops`` (0 when it has none).
        is_user_annotation: True for ``record_function`` ranges.
        trace_name: the name the Chrome trace shows. As PyTorch's ``_rewrite_name``, the
            profiler's step ranges ``ProfilerStep#N`` are named ``ProfilerStep*`` (so that
            ``key_averages`` merges them into one row) and keep ``ProfilerStep#N`` here.
            None for a top-level ``[memory]`` event (an allocation or free outside every
            event: no duration, no parent, numbered after the other events), which the trace
            shows as an instant event only.
    """

    def __init__(self, id, name, thread, user_annotation=False, use_device=None, sequence_nr=-1):
        self.id = id
        self.trace_name = name
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        self.name = self.key = name
        self.thread = thread
        self.is_user_annotation = user_annotation
        self.use_device = use_device
        self.sequence_nr = sequence_nr
        self.cpu_parent = None
        self.cpu_children = []
        self.input_shapes = []
        self.input_dtypes = []
        self.stack = []
        self.flops = 0
        self.overload_name = ""
        self.scope = 0
        self.count = 1
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self._start_ns = self._end_ns = None
        self.time_range = Interval(0.0, 0.0)

    @property
    def cpu_time_total(self):
        """Wall time of the event, children included (us)."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """``cpu_time_total`` less the children's (us)."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"cpu_time={self.cpu_time_total_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_Formatted):
    """The sum of several events of one key (``torch.autograd.profiler_util.FunctionEventAvg``):
    counts and totals add up; ``cpu_time`` is the average total time per call."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.overload_name = None
        self.scope = None
        self.use_device = None
        self.is_user_annotation = False
        self.cpu_parent = None
        self.cpu_children = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.flops = 0

    def add(self, other):
        """Add ``other`` (a FunctionEvent or FunctionEventAvg of the same key) to the sums.

        Raises:
            AssertionError: the keys differ.
        """
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.overload_name = other.overload_name
            self.scope = other.scope
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.flops += other.flops
        return self

    __iadd__ = add

    def __repr__(self):
        dev = self.use_device or "cuda"
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{dev}_time={self.self_device_time_total_str} "
                f"{dev}_time={self.device_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage}>")


class EventList(list):
    """A list of events with PyTorch's summaries (``torch.autograd.profiler_util.EventList``)."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False,
                 trace_meta=None):
        super().__init__(*args)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._trace_meta = trace_meta or {}

    @property
    def self_cpu_time_total(self):
        """The sum of every event's self CPU time (us): the profile's CPU time."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        """One ``FunctionEventAvg`` per event name (and input shapes / top ``group_by_stack_n``
        stack frames when asked), in first-seen order."""
        stats = defaultdict(FunctionEventAvg)
        for ev in self:
            key = (ev.key, ev.is_user_annotation)
            if group_by_input_shapes:
                key += (str(ev.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(ev.stack[:group_by_stack_n])
            stats[key].add(ev)
        out = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in out:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return out

    def total_average(self):
        """All events summed into one ``FunctionEventAvg`` with key ``"Total"``."""
        total = FunctionEventAvg()
        for ev in self:
            total.add(ev)
            total.key = None
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """PyTorch's profiler table as a string (``EventList.table``).

        Args:
            sort_by: an attribute to sort by, descending (``"cpu_time_total"``,
                ``"self_cpu_time_total"``, ``"count"``, ``"cpu_memory_usage"``...; ``cuda_*``
                names read the (zero) device figures); None keeps recording order.
            row_limit: at most this many rows (-1 or None: all).
            top_level_events_only: only events without a parent.
            time_unit: ``"s"``, ``"ms"`` or ``"us"`` for every time; None picks per value.
        """
        from .table import build_table
        return build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           with_flops=self._with_flops, profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace JSON file (see ``minigrad.profiler.trace``)."""
        from .trace import write_chrome_trace
        write_chrome_trace(self, path)
