"""``profile``, ``schedule`` and ``tensorboard_trace_handler`` (``torch.profiler``).

``profile`` records between ``start()`` and ``stop()`` (or in a ``with`` block) through a
``Recorder`` (``minigrad.profiler.recorder``), a mode on the dispatcher. With a ``schedule``,
``prof.step()`` moves through PyTorch's actions per step: NONE (not recording), WARMUP (prepared,
not recording: PyTorch warms its tracer up here; ours needs no warm-up), RECORD, and
RECORD_AND_SAVE (the last recorded step of a cycle: at the next step the cycle's events are
final and ``on_trace_ready(prof)`` is called). ``events()``, ``key_averages()`` and
``export_chrome_trace()`` give the last finished cycle, as PyTorch's do.

Activities: ``ProfilerActivity.CPU`` and ``ProfilerActivity.CUDA`` are accepted. The emulated
cuda device computes on the host, so its ops are CPU events (no kernels, no device time); with
CUDA among the activities the table's memory columns split off the bytes of cuda tensors as
PyTorch's "CUDA Mem" columns. ``with_modules`` is accepted and has no effect (no module
hierarchy is recorded).
"""
from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from .events import EventList, Interval
from .record_function import record_function
from .recorder import Recorder

__all__ = ["ProfilerActivity", "ProfilerAction", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """Activity groups to profile (``torch.profiler.ProfilerActivity``)."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3


class ProfilerAction(enum.Enum):
    """What the profiler does during a step (``torch.profiler.ProfilerAction``)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """``{CPU, CUDA}`` when the emulated cuda device is available, else ``{CPU}``."""
    from .. import cuda
    acts = {ProfilerActivity.CPU}
    if cuda.is_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule for ``profile(schedule=...)``: a function of the step number returning a
    ``ProfilerAction`` (``torch.profiler.schedule``).

    After ``skip_first`` steps, cycles of ``wait`` NONE steps, ``warmup`` WARMUP steps and
    ``active`` recorded steps (the last one RECORD_AND_SAVE) repeat ``repeat`` times (0: for
    ever). ``skip_first_wait != 0`` skips the first cycle's wait.

    Raises:
        AssertionError: a negative count or ``active <= 0`` (PyTorch's message); the returned
            function raises it for a negative step.

    Warns:
        UserWarning: ``warmup == 0`` ("Profiler won't be using warmup, this can skew profiler
            results").
    """
    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


_N, _W, _R, _S = (ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
                  ProfilerAction.RECORD_AND_SAVE)
# (previous action, current action) -> what to do; PyTorch's profile.action_map
_TRANSITIONS = {
    (_N, _N): [], (_N, _W): ["_prepare"], (_N, _R): ["_prepare", "_start"],
    (_N, _S): ["_prepare", "_start"],
    (_W, _N): ["warn:Incorrect schedule: WARMUP followed by NONE", "_start", "_stop"],
    (_W, _W): [], (_W, _R): ["_start"], (_W, _S): ["_start"],
    (_R, _N): ["warn:Incorrect schedule: RECORD followed by NONE", "_stop"],
    (_R, _W): ["warn:Incorrect schedule: RECORD followed by WARMUP", "_stop"],
    (_R, _R): [], (_R, _S): [],
    (_S, _N): ["_stop", "_trace_ready"], (_S, _W): ["_stop", "_trace_ready", "_prepare"],
    (_S, _R): ["_stop", "_trace_ready", "_prepare", "_start"],
    (_S, _S): ["_stop", "_trace_ready", "_prepare", "_start"],
    (_N, None): [], (_W, None): ["_start", "_stop"], (_R, None): ["_stop", "_trace_ready"],
    (_S, None): ["_stop", "_trace_ready"],
}


def _default_schedule(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False):
    """An ``on_trace_ready`` handler writing each cycle's Chrome trace to
    ``dir_name/<worker_name>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the file
    names TensorBoard's profiler plugin reads (``torch.profiler.tensorboard_trace_handler``).
    ``worker_name`` defaults to ``"<hostname>_<pid>"``.

    Raises:
        RuntimeError: "Can't create directory: <dir_name>".
    """
    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler_fn


class profile:
    """The profiler (``torch.profiler.profile``): context manager, or ``start()`` / ``stop()``.

    Args:
        activities: ``ProfilerActivity`` values; default ``supported_activities()``.
        schedule: a function of the step number returning a ``ProfilerAction`` (see
            ``schedule``); default: record every step.
        on_trace_ready: called with the profiler at the end of each recorded cycle.
        record_shapes: record input shapes and types of each op (``key_averages(
            group_by_input_shape=True)``, the trace's "Input Dims").
        profile_memory: count the bytes each op allocates and frees (frees negative; cpu
            memory accounting is on for the profile: see ``minigrad.profiler.recorder``).
        with_stack: record the Python frames (outside minigrad) of each event.
        with_flops: PyTorch's FLOP estimates for mm/addmm/bmm/baddbmm/mul/add.
        with_modules: accepted; no effect.

    Example:
        >>> with profile(record_shapes=True) as prof:
        ...     loss = model(x).sum(); loss.backward()
        >>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

    Raises:
        AssertionError: no activity given ("No valid profiler activities found").
        RuntimeError: starting while another profiler records.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, **unsupported):
        for k in unsupported:
            if k not in ("experimental_config", "execution_trace_observer", "acc_events",
                         "use_cuda", "custom_trace_id_callback", "post_processing_timeout_s"):
                raise TypeError(f"profile.__init__() got an unexpected keyword argument {k!r}")
        acts = set(supported_activities() if activities is None else activities)
        use_cuda = unsupported.get("use_cuda")
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.on_trace_ready = on_trace_ready
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self._recorder = None      # the cycle being prepared or recorded
        self._events = None        # the last finished cycle's EventList
        self._base_ns = 0

    # ------------------------------------------------------------------ the state machine
    def _prepare(self):
        use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self._recorder = Recorder(self.record_shapes, self.profile_memory, self.with_stack,
                                  self.with_flops, use_device)

    def _start(self):
        if self._recorder is None:
            self._prepare()
        self._base_ns = time.time_ns()
        self._recorder.start()

    def _stop(self):
        r = self._recorder
        if r is None or r.t0_ns is None:
            return
        r.stop()
        t0 = r.t0_ns
        for ev in r.events:
            ev.time_range = Interval((ev._start_ns - t0) / 1000.0, (ev._end_ns - t0) / 1000.0)
        for ev in reversed(r.events):      # children before parents: totals include children
            ev.cpu_memory_usage = ev.self_cpu_memory_usage + sum(
                c.cpu_memory_usage for c in ev.cpu_children)
            ev.device_memory_usage = ev.self_device_memory_usage + sum(
                c.device_memory_usage for c in ev.cpu_children)
        events = r.events
        if r.memory_events:
            # PyTorch's top-level ``[memory]`` events: numbered after the others, not in the
            # trace as ranges, merged in by time (ties: the op first)
            for i, ev in enumerate(r.memory_events, len(events)):
                ev.id, ev.trace_name = i, None
                ev.time_range = Interval((ev._start_ns - t0) / 1000.0,
                                         (ev._start_ns - t0) / 1000.0)
                ev.cpu_memory_usage = ev.self_cpu_memory_usage
                ev.device_memory_usage = ev.self_device_memory_usage
            events = sorted(events + r.memory_events, key=lambda e: e._start_ns)
        self._events = EventList(events, use_device=r.use_device,
                                 profile_memory=self.profile_memory, with_flops=self.with_flops,
                                 trace_meta={"pid": r.pid, "tid": r.tid,
                                             "base_ns": self._base_ns,
                                             "memory": [(ts - t0, *rest) for ts, *rest in
                                                        r.memory_records]})
        self._recorder = None

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev, cur):
        """Run the steps PyTorch's ``action_map`` runs between two actions (``cur`` None:
        the profiler is stopping)."""
        for step in _TRANSITIONS[(prev, cur)]:
            if step.startswith("warn:"):
                warnings.warn(step[5:])
            else:
                getattr(self, step)()

    # ------------------------------------------------------------------ public API
    def start(self):
        """Begin: take the schedule's action for the current step."""
        self._transit(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """End: close the current step and finish a cycle being recorded."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit(self.current_action, None)

    def step(self):
        """Signal that the next step starts: the schedule's action for it is taken."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def events(self) -> EventList:
        """The last finished cycle's events, in recording order.

        Raises:
            AssertionError: no cycle has finished yet.
        """
        if self._events is None:
            raise AssertionError("Profiler must be initialized before accessing events "
                                 "(no recorded cycle has finished yet)")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """``events().key_averages(...)``: one row per name (per name and input shapes with
        ``group_by_input_shape``, which needs ``record_shapes=True``)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str):
        """Write the last finished cycle as Chrome trace JSON (``.gz``: compressed)."""
        return self.events().export_chrome_trace(path)
