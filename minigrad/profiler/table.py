"""The profiler's summary table, laid out as PyTorch's (``profiler_util._build_table``).

Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, then CPU Mem and Self
CPU Mem (with ``profile_memory``; CUDA Mem and Self CUDA Mem when cuda tensors allocated), # of
Calls, Input Shapes (when the events carry shapes: ``key_averages(group_by_input_shape=True)``),
Source Location (with stacks) and Total FLOPs (``with_flops``). Percentages are shares of the sum
of all rows' self CPU time, which the footer prints ("Self CPU time total: ..."). Names longer
than the column are cut with "...". There are no CUDA time columns: the emulated device has no
device time.
"""
from __future__ import annotations

import math

from .events import _format_memory, _format_time, _format_time_share

__all__ = ["build_table"]

_WIDTH = 12
_SPACING = 2
_FLOP_UNITS = ("FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs")


def _time(us, default, unit):
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return default


def _sort_key(name):
    attr = name.replace("cuda", "device").replace("xpu", "device")
    return lambda ev: getattr(ev, attr)


def build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                profile_memory=False, top_level_events_only=False, time_unit=None):
    """The table of ``events`` (FunctionEvent or FunctionEventAvg) as one string; see the
    module docstring. ``""`` for no events.

    Raises:
        AttributeError: ``sort_by`` names no attribute of the events.
    """
    if len(events) == 0:
        return ""
    events = list(events)
    if sort_by is not None:
        events.sort(key=_sort_key(sort_by), reverse=True)
    use_device = events[0].use_device
    dev = use_device.upper() if use_device else "None"
    has_shapes = any(ev.input_shapes for ev in events)
    has_device_mem = any(ev.self_device_memory_usage != 0 for ev in events)
    stacks = [ev.stack for ev in events if ev.stack]
    name_w = min(max(len(ev.key) for ev in events) + 4, max_name_column_width or 10 ** 9)
    shapes_w = min(max(len(str(ev.input_shapes)) for ev in events) + 4,
                   max_shapes_column_width or 10 ** 9)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_mem:
            headers += [f"{dev} Mem", f"Self {dev} Mem"]
    headers.append("# of Calls")
    widths = [name_w] + [_WIDTH] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
        aligns.append(">")
    if stacks:
        src_w = max(len(s) for st in stacks for s in st) + 4
        src_w = min(src_w, max_src_column_width or 10 ** 9)
        headers.append("Source Location")
        widths.append(src_w)
        aligns.append("<")
    flop_scale = None
    if with_flops:
        raw = [ev.flops for ev in events if ev.flops > 0]
        if raw:
            level = max(0, min(int(math.log10(min(raw)) / 3), len(_FLOP_UNITS) - 1))
            flop_scale = 10.0 ** (-3 * level)
            headers.append(f"Total {_FLOP_UNITS[level]}")
            widths.append(_WIDTH)
            aligns.append(">")

    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING for a, w in zip(aligns, widths))
    sep = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(w + _SPACING for w in widths) - _SPACING
    total_self = sum(ev.self_cpu_time_total for ev in events)

    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [sep, row_format.format(*headers), sep]
    shown = 0
    for ev in events:
        if shown == row_limit:
            break
        if top_level_events_only and ev.cpu_parent is not None:
            continue
        shown += 1
        name = ev.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name,
               _format_time_share(ev.self_cpu_time_total, total_self),
               _time(ev.self_cpu_time_total, ev.self_cpu_time_total_str, time_unit),
               _format_time_share(ev.cpu_time_total, total_self),
               _time(ev.cpu_time_total, ev.cpu_time_total_str, time_unit),
               _time(ev.cpu_time, ev.cpu_time_str, time_unit)]
        if profile_memory:
            row += [_format_memory(ev.cpu_memory_usage), _format_memory(ev.self_cpu_memory_usage)]
            if use_device and has_device_mem:
                row += [_format_memory(ev.device_memory_usage),
                        _format_memory(ev.self_device_memory_usage)]
        row.append(ev.count)
        if has_shapes:
            row.append(str(ev.input_shapes)[:shapes_w])
        if stacks:
            st = ev.stack or [""]
            row.append(_trim_path(st[0], src_w))
        if flop_scale is not None:
            row.append(f"{ev.flops * flop_scale:8.3f}" if ev.flops > 0 else "--")
        lines.append(row_format.format(*row))
        if stacks:      # the rest of the stack below, then an empty row (PyTorch's layout)
            src_col = headers.index("Source Location")
            for entry in (ev.stack or [])[1:]:
                extra = [""] * len(headers)
                extra[src_col] = _trim_path(entry, src_w)
                lines.append(row_format.format(*extra))
            lines.append(row_format.format(*([""] * len(headers))))
    lines += [sep, f"Self CPU time total: {_time(total_self, _format_time(total_self), time_unit)}"]
    return "\n".join(lines) + "\n"


def _trim_path(path, width):
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path
