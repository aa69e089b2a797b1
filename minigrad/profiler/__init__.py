"""``minigrad.profiler`` (``torch.profiler``): where a step's time and bytes go, per op.

The profiler is a mode on the dispatcher (``recorder``): every dispatched op, forward and
backward, becomes an event named as PyTorch's (``aten::linear``, ``aten::addmm``,
``autograd::engine::evaluate_function: AddmmBackward0``...), nested as the calls are. Modules:

- ``profiler``: ``profile``, ``schedule``, ``ProfilerAction``, ``ProfilerActivity``,
  ``tensorboard_trace_handler``;
- ``record_function``: named user ranges;
- ``recorder``: the dispatch mode and the engine hook that open and close events;
- ``events``: ``FunctionEvent``, ``EventList`` (``key_averages``, ``total_average``);
  ``table``: the summary table; ``trace``: Chrome trace JSON.
"""
from .events import EventList, FunctionEvent, FunctionEventAvg
from .profiler import (ProfilerAction, ProfilerActivity, profile, schedule, supported_activities,
                       tensorboard_trace_handler)
from .record_function import record_function

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "record_function", "EventList",
           "FunctionEvent", "FunctionEventAvg"]
