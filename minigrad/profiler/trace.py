"""Chrome trace export: the events as a JSON file that Perfetto and chrome://tracing load.

The file has PyTorch's shape (``torch.profiler``'s Kineto traces): a dict with ``"traceEvents"``,
``"schemaVersion"``, ``"displayTimeUnit"`` and ``"baseTimeNanoseconds"``; process and thread
names as ``"ph": "M"`` metadata events, then one complete event (``"ph": "X"``) per recorded op
or range, with ``"ts"`` and ``"dur"`` in microseconds, so that a child lies within its parent's
``[ts, ts + dur]`` (``ts`` counts from the start of the profile, whose wall-clock time is
``"baseTimeNanoseconds"``); ``"cat"`` is ``"cpu_op"`` for ops and engine ranges and
``"user_annotation"`` for ``record_function`` ranges; ``"args"`` hold ``"External id"`` and,
with ``record_shapes``, ``"Input Dims"`` and ``"Input type"``. With ``profile_memory`` every
allocation and free is an instant event (``"ph": "i"``, ``"cat": "cpu_instant_event"``) named
``[memory]`` with PyTorch's args: ``"Total Reserved"``, ``"Total Allocated"`` (the device's
bytes after it; the cpu reports no reserved bytes, as PyTorch's CPU allocator), ``"Bytes"``
(negative for a free), ``"Device Id"`` (-1 cpu, 0 cuda), ``"Device Type"`` (0 cpu, 1 cuda),
``"Addr"`` (the block's virtual address), ``"finished"`` and ``"Ev Idx"``. The top-level
``[memory]`` events of ``events()`` are not written as ranges (PyTorch gives them no trace
name).
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
    n = 0
    for ev in events:
        name = getattr(ev, "trace_name", ev.name)
        if name is None:                   # a top-level [memory] event: an instant below
            continue
        n += 1
        args = {"External id": ev.id + 1}
        if ev.sequence_nr >= 0:
            args["Sequence number"] = ev.sequence_nr
        if ev.input_shapes:
            args["Input Dims"] = ev.input_shapes
            args["Input type"] = ev.input_dtypes
        if ev.stack:
            args["Call stack"] = ";".join(ev.stack)
        out.append({"ph": "X", "cat": "user_annotation" if ev.is_user_annotation else "cpu_op",
                    "name": name, "pid": pid, "tid": ev.thread,
                    "ts": ev.time_range.start, "dur": ev.time_range.elapsed_us(),
                    "args": args})
    tid = meta.get("tid", 0)
    for i, (ts_ns, nbytes, addr, alloc, reserved, cuda) in enumerate(meta.get("memory", ()), n):
        out.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                    "pid": pid, "tid": tid, "ts": ts_ns / 1000.0,
                    "args": {"Total Reserved": reserved, "Total Allocated": alloc,
                             "Bytes": nbytes, "Device Id": 0 if cuda else -1,
                             "Device Type": 1 if cuda else 0, "Addr": addr,
                             "finished": False, "Ev Idx": i}})
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
