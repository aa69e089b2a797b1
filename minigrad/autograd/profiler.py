"""``minigrad.autograd.profiler`` (``torch.autograd.profiler``): the names PyTorch keeps here.

``record_function`` is ``minigrad.profiler.record_function`` (one class, two names, as in
PyTorch); the profiler itself is ``minigrad.profiler.profile``.
"""
from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler.record_function import record_function

__all__ = ["record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]
