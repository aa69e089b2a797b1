"""``minigrad.autograd.profiler`` (``torch.autograd.profiler``): the names PyTorch keeps here.

``record_function`` is ``minigrad.profiler.record_function`` (one class, two names, as in
PyTorch). ``profile`` is the legacy profiler's interface (``enabled``, ``use_cuda``,
``use_device``, ``use_cpu``; ``function_events``, ``table``, ``total_average``,
``self_cpu_time_total``) over ``minigrad.profiler.profile``, which records the events.
``emit_nvtx`` / ``emit_itt`` are context managers that change nothing (there is no Nsight / VTune
to emit to).
"""
import contextlib
import warnings

from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler.profiler import ProfilerActivity
from ..profiler.profiler import profile as _profile
from ..profiler.record_function import record_function

__all__ = ["record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "profile",
           "emit_nvtx", "emit_itt"]


class profile(_profile):
    """The legacy autograd profiler (``torch.autograd.profiler.profile``).

    Args:
        enabled: False makes the context manager do nothing (``function_events`` stays None).
        use_cuda: deprecated spelling of ``use_device="cuda"`` (FutureWarning, as PyTorch).
        use_device: ``"cuda"`` records the emulated device's activity too.
        use_cpu: record CPU activity (default True).
        record_shapes, profile_memory, with_stack, with_flops, with_modules: as
            ``minigrad.profiler.profile``.

    After the block: ``function_events`` (an ``EventList``), ``key_averages()``,
    ``table(sort_by=..., row_limit=...)``, ``total_average()``, ``self_cpu_time_total`` (us),
    ``export_chrome_trace(path)``.

    Raises:
        AssertionError: no activity left (``use_cpu=False`` without a device).
        RuntimeError: starting while another profiler records.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        acts = set()
        if use_cpu:
            acts.add(ProfilerActivity.CPU)
        if use_device == "cuda":
            acts.add(ProfilerActivity.CUDA)
        self.enabled = bool(enabled)
        # a disabled profiler never starts, so its activities do not matter
        super().__init__(activities=acts if acts or self.enabled else {ProfilerActivity.CPU},
                         record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stop()
        return False

    @property
    def function_events(self):
        """The recorded events (an ``EventList``), or None before the block ends / disabled."""
        return self._events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False,
              time_unit=None):
        """``key_averages().table(...)`` (``torch.autograd.profiler.profile.table``)."""
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, header=header,
                                         max_src_column_width=max_src_column_width,
                                         max_name_column_width=max_name_column_width,
                                         max_shapes_column_width=max_shapes_column_width,
                                         top_level_events_only=top_level_events_only,
                                         time_unit=time_unit)

    def total_average(self):
        """One ``FunctionEventAvg`` summing every event."""
        return self.events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds of CPU time spent in the events themselves (not their children)."""
        return self.events().self_cpu_time_total

    def __str__(self):
        return str(self.function_events) if self._events is not None else "<unfinished profile>"


@contextlib.contextmanager
def emit_nvtx(enabled=True, record_shapes=False):
    """A context manager that changes nothing: there is no Nsight here
    (``torch.autograd.profiler.emit_nvtx``)."""
    yield


@contextlib.contextmanager
def emit_itt(enabled=True, record_shapes=False):
    """A context manager that changes nothing: there is no VTune here
    (``torch.autograd.profiler.emit_itt``)."""
    yield
