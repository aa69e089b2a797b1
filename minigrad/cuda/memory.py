"""``minigrad.cuda``'s memory functions: the emulated device's allocator statistics
(``torch.cuda.memory``).

The figures are true bytes: every live cuda tensor's storage (its root NumPy buffer, counted
once however many views, detached tensors or aliases share it; see
``minigrad.storage_accounting``) is a block of the device's caching allocator
(``minigrad.cuda.allocator``), rounded as PyTorch's allocator rounds (512-byte multiples; small
pool up to 1 MiB in 2 MiB segments, large pool in 20 MiB or 2 MiB-rounded segments). A float16
or bfloat16 element is 2 bytes, a float8 element 1. A storage is freed when its root array is
deallocated, i.e. when the last tensor (or saved-for-backward holder) using it goes.
``requested_bytes.*`` gives the unrounded bytes.

The device has a total memory (``get_device_properties().total_memory``, ``mem_get_info()[1]``):
the host's physical memory unless ``MINIGRAD_CUDA_TOTAL_MEMORY`` (bytes, or ``"8GiB"``, ``"512M"``)
or ``_set_total_memory(nbytes)`` says otherwise, and ``set_per_process_memory_fraction`` limits
this process to a share of it. An allocation that fits neither, after the cached segments are
released and the allocation retried (``num_alloc_retries``), raises ``OutOfMemoryError``
(``torch.OutOfMemoryError``) with PyTorch's message and counts ``num_ooms``; see
``minigrad.cuda.allocator``.

Every function takes ``device`` (None, 0, "cuda", "cuda:0" or a ``minigrad.device``) and raises
``AssertionError("Torch not compiled with CUDA enabled")`` with the emulation off, as a
CPU-only PyTorch build does for the calls that need a device.
"""
from __future__ import annotations

import collections

from .. import devices as _devices
from .allocator import OutOfMemoryError, set_total_memory, total_memory

__all__ = ["set_per_process_memory_fraction", "get_per_process_memory_fraction",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_accumulated_memory_stats", "memory_stats",
           "memory_stats_as_nested_dict", "memory_summary", "empty_cache", "mem_get_info",
           "memory_snapshot", "reset_max_memory_allocated", "reset_max_memory_cached",
           "memory_cached", "max_memory_cached"]


def _allocator(device):
    """The caching allocator of ``device`` (only ``cuda:0`` exists)."""
    from . import _require
    _require()
    if device is not None:
        d = _devices.device("cuda", device) if isinstance(device, int) and \
            not isinstance(device, bool) else _devices.device(device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        if d.index not in (None, 0):
            raise RuntimeError("CUDA error: invalid device ordinal")
    return _devices.cuda_storages().allocator


def memory_stats_as_nested_dict(device=None) -> dict:
    """The allocator statistics as a nested dict (``torch.cuda.memory_stats_as_nested_dict``)."""
    return _allocator(device).nested_stats()


def memory_stats(device=None) -> "collections.OrderedDict[str, int]":
    """The allocator statistics, flattened and sorted by key (``torch.cuda.memory_stats``).

    Keys, as PyTorch's: ``"{stat}.{all,large_pool,small_pool}.{current,peak,allocated,freed}"``
    for ``allocation``, ``segment``, ``active``, ``inactive_split`` (counts) and
    ``allocated_bytes``, ``reserved_bytes``, ``active_bytes``, ``inactive_split_bytes``,
    ``requested_bytes`` (bytes; ``requested`` is unrounded), ``oversize_allocations.*`` and
    ``oversize_segments.*`` (always 0: no ``max_split_size``), ``max_split_size`` (-1),
    ``num_alloc_retries`` (allocations retried after releasing the cache), ``num_ooms``
    (``OutOfMemoryError`` raised), ``num_oom_rejections`` (0), ``num_sync_all_streams`` (cache
    releases: ``empty_cache`` and the retries), ``num_device_alloc`` / ``num_device_free``
    (segments obtained / released).

    Raises:
        AssertionError: with the emulation off. RuntimeError: an ordinal other than 0.
    """
    return flatten_stats(memory_stats_as_nested_dict(device))


def flatten_stats(nested: dict) -> "collections.OrderedDict[str, int]":
    """PyTorch's flattening of nested statistics: keys joined by ".", sorted."""
    result = []

    def add(prefix, obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                add(f"{prefix}.{k}" if prefix else str(k), v)
        else:
            result.append((prefix, obj))

    add("", nested)
    result.sort()
    return collections.OrderedDict(result)


def _stat(device, name, pool="all", field="current"):
    return _allocator(device).stats[name][pool].__getattribute__(field)


def memory_allocated(device=None) -> int:
    """Bytes of the blocks held by live cuda tensors, rounded as the caching allocator rounds
    (``torch.cuda.memory_allocated``)."""
    return _stat(device, "allocated_bytes")


def max_memory_allocated(device=None) -> int:
    """The peak of ``memory_allocated`` since the start or the last ``reset_peak_memory_stats``
    (``torch.cuda.max_memory_allocated``)."""
    return _stat(device, "allocated_bytes", field="peak")


def memory_reserved(device=None) -> int:
    """Bytes of the segments the caching allocator holds (``torch.cuda.memory_reserved``)."""
    return _stat(device, "reserved_bytes")


def max_memory_reserved(device=None) -> int:
    """The peak of ``memory_reserved`` (``torch.cuda.max_memory_reserved``)."""
    return _stat(device, "reserved_bytes", field="peak")


def memory_cached(device=None) -> int:
    """Deprecated name of ``memory_reserved`` (``torch.cuda.memory_cached``).

    Warns:
        FutureWarning: PyTorch's text.
    """
    import warnings
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated name of ``max_memory_reserved`` (``torch.cuda.max_memory_cached``).

    Warns:
        FutureWarning: PyTorch's text.
    """
    import warnings
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    """Set every ``peak`` statistic to its current value (``torch.cuda.reset_peak_memory_stats``)."""
    _allocator(device).reset_peak()


def reset_accumulated_memory_stats(device=None) -> None:
    """Set the ``allocated`` / ``freed`` totals and the event counters (``num_alloc_retries``,
    ``num_ooms``...) to 0 (``torch.cuda.reset_accumulated_memory_stats``)."""
    _allocator(device).reset_accumulated()


def _deprecated_peak_reset(name):
    """``torch.cuda.<name>``: a deprecated alias of ``reset_peak_memory_stats`` that warns."""
    def f(device=None):
        import warnings
        warnings.warn(f"torch.cuda.{name} now calls torch.cuda.reset_peak_memory_stats, which "
                      "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
        return reset_peak_memory_stats(device)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Deprecated alias of ``reset_peak_memory_stats`` (``torch.cuda.{name}``).\n\n"
                 "    Warns:\n        FutureWarning: PyTorch's text (it resets all peak "
                 "statistics).\n    ")
    return f


reset_max_memory_allocated = _deprecated_peak_reset("reset_max_memory_allocated")
reset_max_memory_cached = _deprecated_peak_reset("reset_max_memory_cached")


def empty_cache() -> None:
    """Release the cached segments that hold no live block (``torch.cuda.empty_cache``):
    ``memory_reserved`` drops, ``memory_allocated`` does not change. A no-op with the emulation
    off, as PyTorch's call before CUDA is initialised."""
    if _devices.emulation_enabled():
        _devices.cuda_storages().allocator.empty_cache()


def mem_get_info(device=None) -> tuple:
    """``(free, total)`` bytes of the device (``torch.cuda.mem_get_info``).

    ``total`` is the emulated device's memory (``get_device_properties().total_memory``: the
    host's physical memory, or what ``MINIGRAD_CUDA_TOTAL_MEMORY`` / ``_set_total_memory`` set).
    ``free`` is ``total`` minus what the caching allocator reserves (as the driver sees a GPU:
    cached blocks are not free); the device has no other user. The per-process fraction does not
    change either figure, as on a GPU.
    """
    return _allocator(device).mem_info()


def _set_total_memory(nbytes) -> None:
    """Set the emulated device's total memory to ``nbytes`` bytes (an int, or a size string
    such as ``"8GiB"``); None goes back to ``MINIGRAD_CUDA_TOTAL_MEMORY`` or the host's memory.
    minigrad's own (PyTorch has no such call: a GPU's memory is what it is). Allocations
    already made stay; later ones that do not fit raise ``OutOfMemoryError``. A fraction set
    earlier keeps its byte limit, as PyTorch computes it when it is set.

    Raises:
        TypeError: not an int, a string or None. ValueError: not positive, or not a size.
    """
    set_total_memory(nbytes)


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Limit this process's caching allocator to ``fraction`` of the device's total memory
    (``torch.cuda.set_per_process_memory_fraction``): a segment that would take the reserved
    bytes past ``int(fraction * total_memory)`` fails, and the allocation raises
    ``OutOfMemoryError`` if releasing the cache and retrying does not help.

    Args:
        fraction: a float in [0, 1].
        device: None, 0, "cuda", "cuda:0" or a ``minigrad.device``.

    Raises:
        TypeError: ``fraction`` is not a float ("Invalid type for fraction argument, must be
            `float`"). ValueError: outside [0, 1] (PyTorch's messages).
        AssertionError: with the emulation off. RuntimeError: an ordinal other than 0.
    """
    alloc = _allocator(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    alloc.set_fraction(fraction)


def get_per_process_memory_fraction(device=None) -> float:
    """The per-process limit as a fraction of the device's total memory, 1.0 when none was set
    (``torch.cuda.get_per_process_memory_fraction``).

    Raises:
        AssertionError: with the emulation off. RuntimeError: an ordinal other than 0.
    """
    return _allocator(device).fraction()


def memory_snapshot(mempool_id=None, include_traces=True) -> list:
    """The allocator's segments, each with its blocks (``torch.cuda.memory_snapshot``): dicts
    with PyTorch's keys ``device``, ``address``, ``total_size``, ``allocated_size``,
    ``active_size``, ``requested_size``, ``stream``, ``segment_type`` ("small"/"large") and
    ``blocks`` (``address``, ``size``, ``requested_size``, ``state``: "active_allocated" or
    "inactive"). Addresses are virtual; no stack traces are kept (``frames`` is empty)."""
    return _allocator(None).snapshot()


def _scaled(value, pref, prefixes, limit, base):
    """PyTorch's summary units: divide ``value`` by ``base`` while the column's reference value
    ``pref`` (the "all" row's) is at least ``limit``; returns (value, unit)."""
    unit = prefixes[0]
    for new in prefixes[1:]:
        if pref < limit:
            break
        unit, value, pref = new, value // base, pref / base
    return value, unit


def _format_size(sz, pref_sz):
    sz, unit = _scaled(sz, pref_sz, ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"], 768 * 1024, 1024)
    return f"{sz:6d} {unit}"


def _format_count(cnt, pref_cnt):
    cnt, unit = _scaled(cnt, pref_cnt, [" ", "K", "M"], 750 * 1000, 1000)
    return f"{cnt:7d} {unit} "


_METRICS = [("allocated_bytes", "Allocated memory", _format_size),
            ("active_bytes", "Active memory", _format_size),
            ("requested_bytes", "Requested memory", _format_size),
            ("reserved_bytes", "GPU reserved memory", _format_size),
            ("inactive_split_bytes", "Non-releasable memory", _format_size),
            ("allocation", "Allocations", _format_count),
            ("active", "Active allocs", _format_count),
            ("segment", "GPU reserved segments", _format_count),
            ("inactive_split", "Non-releasable allocs", _format_count)]


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """PyTorch's table of the allocator statistics (``torch.cuda.memory_summary``): one row per
    metric (and per pool unless ``abbreviated``), columns Cur Usage, Peak Usage, Tot Alloc, Tot
    Freed, with PyTorch's layout and unit rules."""
    stats = memory_stats(device)
    rule, eq = "-" * 75, "=" * 75
    lines = [eq, f" {'':16} PyTorch CUDA memory summary, device ID {0:<17d} ", rule,
             f"  {'':9} CUDA OOMs: {stats['num_ooms']:<12d} | {'':6} cudaMalloc retries: "
             f"{stats['num_alloc_retries']:<8d}  ", eq,
             "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  "]
    for key, name, fmt in _METRICS:
        lines.append(rule)
        subs = [("all", name)]
        if not abbreviated:
            subs += [("large_pool", "      from large pool"), ("small_pool",
                                                             "      from small pool")]
        pref = None
        for sub, sub_name in subs:
            vals = [stats[f"{key}.{sub}.{f}"] for f in ("current", "peak", "allocated", "freed")]
            pref = vals if pref is None else pref
            lines.append(f" {sub_name:<21} | " + " | ".join(fmt(v, p) for v, p in
                                                            zip(vals, pref)) + " ")
    for key, name in (("oversize_allocations", "Oversize allocations"),
                      ("oversize_segments", "Oversize GPU segments")):
        lines.append(rule)
        vals = [stats[f"{key}.{f}"] for f in ("current", "peak", "allocated", "freed")]
        lines.append(f" {name:<21} | " + " | ".join(_format_count(v, v) for v in vals) + " ")
    lines.append(eq)
    return "|" + "|\n|".join(lines) + "|\n"
