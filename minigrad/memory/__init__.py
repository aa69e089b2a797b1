"""``minigrad.memory``: live and peak bytes per device, and what they are made of.

The cuda device's figures are always kept (``minigrad.cuda.memory_allocated``...). The cpu's are
kept only while cpu accounting is on, so that cpu tensors carry no bookkeeping otherwise (the
per-op hot path stays as it is): inside ``track("cpu")``, or between ``enable_cpu_accounting()``
and ``disable_cpu_accounting()``. Switching it on finds the cpu tensors alive at that moment (one
scan of the garbage collector's objects); from then on a mode on the dispatcher counts the
storage of every tensor an op takes or makes. The cpu has no caching allocator: its figures are
the unrounded bytes, and "reserved" equals "allocated" (PyTorch's CPU allocator caches nothing).

``track(device)`` splits the device's live bytes into five categories, from what the graph and
the dispatcher show, not from guesses (a storage is counted once, in the first that applies):

- ``parameters``: leaf tensors that require grad (``nn.Parameter`` or not) seen by an op in the
  region or alive when it starts;
- ``gradients``: the ``.grad`` of those leaves;
- ``optimizer_state``: storages made inside ``Optimizer.step`` that are still alive (Adam's
  ``exp_avg``, ``exp_avg_sq``, ``step``; while a step runs, also its temporaries), and the state
  tensors of optimizers alive when the region starts;
- ``saved_for_backward``: storages held by the saved-tensor holders (``SavedTensor``) of graph
  nodes that have not been released by a backward (activations kept for the backward pass; what
  a pack hook such as ``save_on_cpu`` put elsewhere counts on that device), and what a
  non-reentrant checkpoint's frame keeps: its inputs while any node of the region lives, and
  during backward the recomputed tensors until their node unpacks them;
- ``other``: everything else (inputs, outputs, temporaries alive at the moment).

Example::

    with minigrad.memory.track("cuda") as m:
        loss = model(x).sum(); loss.backward(); opt.step()
    m.peak                       # peak allocated bytes of the device in the region
    m.by_category("peak")        # the split at that peak; m.by_category("now") at the end
    m.max_saved                  # the most bytes saved for backward at once
    print(m.report())

``widening_cache_stats()`` is apart from all of these: the host-side bytes of the fp16 widening
cache (``minigrad._widening``, emulation state that no device figure counts).

Mirrors nothing in PyTorch directly: its figures are ``torch.cuda.memory_stats``'s (for the cpu
too), its categories those of ``torch.profiler._memory_profiler``'s categories.
"""
from __future__ import annotations

from .figures import (cpu_accounting_enabled, disable_cpu_accounting, enable_cpu_accounting,
                      max_memory_allocated, max_memory_reserved, memory_allocated,
                      memory_reserved, memory_stats, reset_peak_memory_stats,
                      reset_widening_cache_peak, widening_cache_stats)
from .tracker import CATEGORIES, MemoryTracker, track

__all__ = ["track", "MemoryTracker", "CATEGORIES", "enable_cpu_accounting",
           "disable_cpu_accounting", "cpu_accounting_enabled", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "widening_cache_stats", "reset_widening_cache_peak"]
