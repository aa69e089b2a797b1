"""Chrome trace export: the events as a JSON file that Perfetto and chrome://tracing load.

The file has PyTorch's shape (``torch.profiler``'s Kineto traces): a dict with ``"traceEvents"``,
``"schemaVersion"``, ``"displayTimeUnit"`` and ``"baseTimeNanoseconds"``; process and thread
names as ``"ph": "M"`` metadata events, then one complete event (``"ph": "X"``) per recorded op
or range, with ``"ts"`` and ``"dur"`` in microseconds, so that a child lies within its parent's
``[ts, ts + dur]`` (``ts`` counts from the start of the profile, whose wall-clock time is
``"baseTimeNanoseconds"``); ``"cat"`` is ``"cpu_op"`` for ops and engine ranges and
``"user_annotation"`` for ``record_function`` ranges; ``"args"`` hold ``"External id"`` and,
with ``record_shapes``, ``"Input Dims"`` and ``"Input type"``.
"""
from __future__ import annotations

import gzip
import json

__all__ = ["write_chrome_trace", "chrome_trace"]


def chrome_trace(events) -> dict:
    """The Chrome trace of an ``EventList`` as a dict (what ``write_chrome_trace`` writes)."""
    meta = events._trace_meta
    pid = meta.get("pid", 0)
    base_us = 0.0       # ts are from the start of the profile; its wall-clock time is
    # ``baseTimeNanoseconds`` (absolute microseconds as doubles would blur nesting)
    out = [{"ph": "M", "name": "process_name", "ts": base_us, "pid": pid, "tid": 0,
            "args": {"name": "python"}},
           {"ph": "M", "name": "process_labels", "ts": base_us, "pid": pid, "tid": 0,
            "args": {"labels": "CPU"}}]
    for tid in sorted({ev.thread for ev in events}):
        out.append({"ph": "M", "name": "thread_name", "ts": base_us, "pid": pid, "tid": tid,
                    "args": {"name": f"thread {tid} (python)"}})
    for ev in events:
        args = {"External id": ev.id + 1}
        if ev.sequence_nr >= 0:
            args["Sequence number"] = ev.sequence_nr
        if ev.input_shapes:
            args["Input Dims"] = ev.input_shapes
            args["Input type"] = ev.input_dtypes
        if ev.stack:
            args["Call stack"] = ";".join(ev.stack)
        out.append({"ph": "X", "cat": "user_annotation" if ev.is_user_annotation else "cpu_op",
                    "name": getattr(ev, "trace_name", ev.name), "pid": pid, "tid": ev.thread,
                    "ts": ev.time_range.start, "dur": ev.time_range.elapsed_us(),
                    "args": args})
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
            "baseTimeNanoseconds": meta.get("base_ns", 0), "traceEvents": out,
            "traceName": meta.get("path", "")}


def write_chrome_trace(events, path) -> None:
    """Write ``chrome_trace(events)`` to ``path`` (gzip-compressed when it ends in ``.gz``)."""
    meta = dict(events._trace_meta, path=str(path))
    saved, events._trace_meta = events._trace_meta, meta
    try:
        data = json.dumps(chrome_trace(events))
    finally:
        events._trace_meta = saved
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(data)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)
