"""A model of PyTorch's CUDA caching allocator: blocks, pools, segments and their statistics.

PyTorch never gives GPU memory back to the driver when a tensor dies: its caching allocator
(``c10/cuda/CUDACachingAllocator.cpp``) keeps the freed *block* in a pool and hands it to the next
request that fits. ``torch.cuda.memory_allocated()`` counts the blocks in use,
``memory_reserved()`` the *segments* obtained from ``cudaMalloc``. This module replays that
bookkeeping for the emulated cuda device, with PyTorch's constants and rules (the default
configuration: no ``max_split_size_mb``, no ``roundup_power2_divisions``, one stream):

- a request of ``n`` bytes is rounded up to a multiple of 512 (at least 512): the *block size*;
  ``n`` itself is the *requested* size (``requested_bytes.*``);
- blocks of at most 1 MiB come from the *small pool*, larger ones from the *large pool*;
- a request is served from the pool's smallest free block that fits (best fit, lowest address
  among equals); a larger block is split when the rest is at least 512 bytes (small pool) or
  more than 1 MiB (large pool);
- with no free block, a segment is allocated (``cudaMalloc``): 2 MiB for a small request, 20
  MiB for a large one under 10 MiB, else the request rounded up to a multiple of 2 MiB;
- a freed block merges with free neighbours of its segment and goes back to its pool;
  ``empty_cache()`` releases the segments that are wholly free.

Addresses are virtual (segments laid end to end from ``BASE_ADDRESS``): they exist so that
``memory_snapshot()`` reads as PyTorch's.

Out of memory, as PyTorch's allocator: the device has a total memory (``total_memory()``: set by
``minigrad.cuda.memory._set_total_memory``, else the ``MINIGRAD_CUDA_TOTAL_MEMORY`` environment
variable, else the host's physical memory), and optionally a per-process limit
(``set_fraction``: ``torch.cuda.set_per_process_memory_fraction``). A new segment that would
take the reserved bytes past the limit, or past the total (the ``cudaMalloc`` of a device with
no other user), fails; the allocator then releases every wholly free cached segment (counting
``num_sync_all_streams``, as ``empty_cache`` does), retries once (``num_alloc_retries``) and, if
that fails too, counts ``num_ooms`` and raises ``OutOfMemoryError`` with PyTorch's message. The
host arrays themselves are not limited: only the device's bookkeeping runs out.
"""
from __future__ import annotations

import bisect
import os

__all__ = ["CachingAllocator", "Block", "OutOfMemoryError", "round_size", "allocation_size",
           "format_size", "total_memory", "set_total_memory", "STAT_NAMES",
           "K_MIN_BLOCK_SIZE", "K_SMALL_SIZE", "K_SMALL_BUFFER", "K_LARGE_BUFFER",
           "K_MIN_LARGE_ALLOC", "K_ROUND_LARGE"]

K_MIN_BLOCK_SIZE = 512              # every block is a multiple of this
K_SMALL_SIZE = 1 << 20              # largest request served by the small pool (1 MiB)
K_SMALL_BUFFER = 2 << 20            # segment size of the small pool (2 MiB)
K_LARGE_BUFFER = 20 << 20           # segment size for large requests under 10 MiB
K_MIN_LARGE_ALLOC = 10 << 20        # from here segments are the request rounded to 2 MiB
K_ROUND_LARGE = 2 << 20
BASE_ADDRESS = 0x7f0000000000       # where the virtual addresses of segments start

# the statistics kept per pool ("all", "small_pool", "large_pool"), PyTorch's names
STAT_NAMES = ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
              "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")
_POOLS = ("all", "small_pool", "large_pool")


TOTAL_MEMORY_ENV = "MINIGRAD_CUDA_TOTAL_MEMORY"
_total_override = [None]       # set_total_memory's value (None: the environment or the host)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20,
          "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}


class OutOfMemoryError(RuntimeError):
    """The emulated cuda device is out of memory (``torch.OutOfMemoryError``, which is also
    ``torch.cuda.OutOfMemoryError``; a subclass of RuntimeError). Raised by an allocation that
    fits neither the device's free memory nor the per-process limit, after the cached blocks were
    released, with PyTorch's message ("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0
    has a total capacity of ...")."""


OutOfMemoryError.__module__ = "minigrad"


def _parse_bytes(text: str) -> int:
    t = text.strip().lower().replace(" ", "")
    num = t.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = t[len(num):]
    if not num or unit not in _UNITS:
        raise ValueError(f"{TOTAL_MEMORY_ENV}: expected a number of bytes with an optional unit "
                         f"(K, M, G, T, KiB, MiB, GiB...), got {text!r}")
    return int(float(num) * _UNITS[unit])


def _host_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 16 << 30


def total_memory() -> int:
    """The emulated device's total memory in bytes: ``set_total_memory``'s value, else
    ``MINIGRAD_CUDA_TOTAL_MEMORY`` (bytes, or with a unit: ``"8GiB"``, ``"512M"``), else the host's
    physical memory (where the device's tensors live; 16 GiB where the platform cannot say).

    Raises:
        ValueError: an environment value that is not a size.
    """
    if _total_override[0] is not None:
        return _total_override[0]
    env = os.environ.get(TOTAL_MEMORY_ENV, "").strip()
    if env:
        return _parse_bytes(env)
    return _host_memory()


def set_total_memory(nbytes) -> None:
    """Set the emulated device's total memory (``nbytes`` bytes, an int > 0, or a size string as
    the environment variable takes); None goes back to the environment / the host's memory.

    Raises:
        ValueError: a size that is not positive. TypeError: another type.
    """
    if nbytes is None:
        _total_override[0] = None
        return
    if isinstance(nbytes, str):
        nbytes = _parse_bytes(nbytes)
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TypeError(f"total memory must be an int number of bytes, got "
                        f"{type(nbytes).__name__}")
    if nbytes <= 0:
        raise ValueError(f"total memory must be positive, got {nbytes}")
    _total_override[0] = nbytes


def format_size(nbytes: int) -> str:
    """PyTorch's allocator size printer: "512 bytes" up to 1 KiB, then "1.50 KiB", "20.00 MiB",
    "7.93 GiB" (two decimals; a unit is used up to and including its next power of 1024)."""
    if nbytes <= 1024:
        return f"{nbytes} bytes"
    if nbytes <= 1 << 20:
        return f"{nbytes / 1024.0:.2f} KiB"
    if nbytes <= 1 << 30:
        return f"{nbytes / 1048576.0:.2f} MiB"
    return f"{nbytes / 1073741824.0:.2f} GiB"


def round_size(nbytes: int) -> int:
    """The block size for a request of ``nbytes`` (PyTorch's ``round_size``): a multiple of
    512, at least 512."""
    if nbytes < K_MIN_BLOCK_SIZE:
        return K_MIN_BLOCK_SIZE
    return K_MIN_BLOCK_SIZE * ((nbytes + K_MIN_BLOCK_SIZE - 1) // K_MIN_BLOCK_SIZE)


def allocation_size(size: int) -> int:
    """The segment size ``cudaMalloc`` is asked for when no cached block fits a block of
    ``size`` bytes (PyTorch's ``get_allocation_size``)."""
    if size <= K_SMALL_SIZE:
        return K_SMALL_BUFFER
    if size < K_MIN_LARGE_ALLOC:
        return K_LARGE_BUFFER
    return K_ROUND_LARGE * ((size + K_ROUND_LARGE - 1) // K_ROUND_LARGE)


class _Stat:
    """PyTorch's ``Stat``: current, peak, and the accumulated increases and decreases."""

    __slots__ = ("current", "peak", "allocated", "freed")

    def __init__(self):
        self.current = self.peak = self.allocated = self.freed = 0

    def update(self, amount):
        if amount > 0:
            self.current += amount
            self.allocated += amount
            if self.current > self.peak:
                self.peak = self.current
        elif amount < 0:
            self.current += amount
            self.freed -= amount


class Block:
    """A piece of a segment: allocated (``allocated``) or cached (free).

    Attributes:
        size: bytes of the block (a multiple of 512). requested: bytes asked for (0 when free).
        address: its virtual address. segment: the ``_Segment`` it lies in.
        prev, next: its neighbours in the segment (None at the ends).
    """

    __slots__ = ("size", "requested", "address", "segment", "prev", "next", "allocated")

    def __init__(self, size, address, segment):
        self.size, self.address, self.segment = size, address, segment
        self.requested = 0
        self.prev = self.next = None
        self.allocated = False

    @property
    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def key(self):
        return (self.size, self.address)


class _Segment:
    __slots__ = ("address", "size", "small", "first")

    def __init__(self, address, size, small):
        self.address, self.size, self.small = address, size, small
        self.first = None

    def blocks(self):
        b = self.first
        while b is not None:
            yield b
            b = b.next


class CachingAllocator:
    """The caching allocator of one device (see the module docstring).

    Args:
        device: the device index reported in ``memory_snapshot()``.
        caching: False models an allocator without a cache and without rounding (the cpu's):
            each request is its own segment of exactly the requested size, released when the
            block is freed; the statistics keep the same names.
    """

    def __init__(self, device: int = 0, caching: bool = True):
        self.device = device
        self.caching = caching
        self.stats = {name: {p: _Stat() for p in _POOLS} for name in STAT_NAMES}
        self.counters = {"num_alloc_retries": 0, "num_ooms": 0, "num_sync_all_streams": 0,
                         "num_device_alloc": 0, "num_device_free": 0}
        self._free = {True: [], False: []}      # small? -> sorted [(size, address, block)]
        self._segments = []
        self._next_address = BASE_ADDRESS
        self.allowed_max = None      # set_fraction's limit on reserved bytes (None: no limit)

    # ------------------------------------------------------------------ limits
    def set_fraction(self, fraction: float) -> None:
        """Limit the reserved bytes to ``fraction`` of ``total_memory()`` as it is now
        (PyTorch's ``setMemoryFraction``)."""
        self.allowed_max = int(fraction * total_memory())

    def fraction(self) -> float:
        """The limit as a fraction of ``total_memory()``; 1.0 when none is set."""
        return 1.0 if self.allowed_max is None else self.allowed_max / total_memory()

    def mem_info(self) -> tuple:
        """``(free, total)``: the device's total memory less what the allocator reserves (the
        device has no other user), and the total."""
        total = total_memory()
        return max(total - self.stats["reserved_bytes"]["all"].current, 0), total

    # ------------------------------------------------------------------ statistics
    def _update(self, name, small, amount):
        s = self.stats[name]
        s["all"].update(amount)
        s["small_pool" if small else "large_pool"].update(amount)

    def reset_peak(self):
        """``reset_peak_memory_stats``: every peak becomes the current value."""
        for per_pool in self.stats.values():
            for s in per_pool.values():
                s.peak = s.current

    def reset_accumulated(self):
        """``reset_accumulated_memory_stats``: the accumulated increases/decreases and the event
        counters become 0."""
        for per_pool in self.stats.values():
            for s in per_pool.values():
                s.allocated = s.freed = 0
        for k in self.counters:
            self.counters[k] = 0

    def nested_stats(self) -> dict:
        """The statistics as PyTorch's ``memory_stats_as_nested_dict`` gives them."""
        out = {name: {p: {"current": s.current, "peak": s.peak, "allocated": s.allocated,
                          "freed": s.freed} for p, s in per_pool.items()}
               for name, per_pool in self.stats.items()}
        zero = {"current": 0, "peak": 0, "allocated": 0, "freed": 0}
        out["oversize_allocations"] = dict(zero)       # no max_split_size: never oversize
        out["oversize_segments"] = dict(zero)
        out["max_split_size"] = -1                     # PyTorch's "unlimited" (SIZE_MAX)
        out["num_oom_rejections"] = 0
        out.update(self.counters)
        return out

    # ------------------------------------------------------------------ malloc / free
    def malloc(self, nbytes: int) -> Block:
        """Allocate a block for a request of ``nbytes`` (> 0) bytes and return it."""
        size = round_size(nbytes) if self.caching else nbytes
        small = size <= K_SMALL_SIZE
        block = self._take_free(size, small) if self.caching else None
        if block is None and not self.caching:
            block = self._new_segment(size, small)
        elif block is None:
            alloc = allocation_size(size)
            block = self._alloc_segment(alloc, small, False)
            if block is None:
                # PyTorch's last resort: free every wholly free cached segment, retry once
                self.empty_cache()
                block = self._alloc_segment(alloc, small, True)
            if block is None:
                self.counters["num_ooms"] += 1
                raise OutOfMemoryError(self._oom_message(alloc))
        else:
            self._update("inactive_split", small, -(1 if block.is_split else 0))
            self._update("inactive_split_bytes", small, -(block.size if block.is_split else 0))
        if self.caching and self._should_split(block, size, small):
            rest = Block(block.size - size, block.address + size, block.segment)
            rest.prev, rest.next = block, block.next
            if block.next is not None:
                block.next.prev = rest
            block.next = rest
            block.size = size
            self._insert_free(rest, small)
            self._update("inactive_split", small, 1)
            self._update("inactive_split_bytes", small, rest.size)
        block.allocated = True
        block.requested = nbytes
        self._update("allocation", small, 1)
        self._update("allocated_bytes", small, block.size)
        self._update("active", small, 1)
        self._update("active_bytes", small, block.size)
        self._update("requested_bytes", small, nbytes)
        return block

    def free(self, block: Block) -> None:
        """Return ``block`` to its pool (merged with free neighbours); nothing is released to
        the device (``empty_cache`` does that), except without ``caching``."""
        small = block.segment.small
        self._update("allocation", small, -1)
        self._update("allocated_bytes", small, -block.size)
        self._update("active", small, -1)
        self._update("active_bytes", small, -block.size)
        self._update("requested_bytes", small, -block.requested)
        block.allocated = False
        block.requested = 0
        if not self.caching:
            self._release(block.segment)
            return
        for nb in (block.prev, block.next):
            if nb is not None and not nb.allocated:
                self._remove_free(nb, small)
                self._update("inactive_split", small, -1)
                self._update("inactive_split_bytes", small, -nb.size)
                if nb is block.prev:
                    block.address, block.prev = nb.address, nb.prev
                    if nb.prev is not None:
                        nb.prev.next = block
                    else:
                        block.segment.first = block
                else:
                    block.next = nb.next
                    if nb.next is not None:
                        nb.next.prev = block
                block.size += nb.size
        if block.is_split:
            self._update("inactive_split", small, 1)
            self._update("inactive_split_bytes", small, block.size)
        self._insert_free(block, small)

    def empty_cache(self) -> None:
        """Release every segment with no allocated block (``torch.cuda.empty_cache``; as
        PyTorch's ``release_cached_blocks`` it first synchronizes the streams:
        ``num_sync_all_streams`` counts it)."""
        if self.caching:
            self.counters["num_sync_all_streams"] += 1
        for seg in list(self._segments):
            b = seg.first
            if b is not None and not b.allocated and b.next is None:
                self._remove_free(b, seg.small)
                self._release(seg)

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _should_split(block, size, small):
        rest = block.size - size
        return rest >= K_MIN_BLOCK_SIZE if small else rest > K_SMALL_SIZE

    def _take_free(self, size, small):
        pool = self._free[small]
        i = bisect.bisect_left(pool, (size, -1))
        if i == len(pool):
            return None
        return pool.pop(i)[2]

    def _insert_free(self, block, small):
        bisect.insort(self._free[small], (block.size, block.address, block))

    def _remove_free(self, block, small):
        pool = self._free[small]
        i = bisect.bisect_left(pool, (block.size, block.address))
        del pool[i]

    def _alloc_segment(self, size, small, retry):
        """PyTorch's ``alloc_block``: a new segment, or None when it exceeds the per-process
        limit or the device's free memory."""
        if retry:
            self.counters["num_alloc_retries"] += 1
        reserved = self.stats["reserved_bytes"]["all"].current
        if self.allowed_max is not None and reserved + size > self.allowed_max:
            return None
        if reserved + size > total_memory():
            return None
        return self._new_segment(size, small)

    def _oom_message(self, alloc):
        free, total = self.mem_info()
        allowed = "" if self.allowed_max is None else f"{format_size(self.allowed_max)} allowed; "
        allocated = self.stats["allocated_bytes"]["all"].current
        reserved = self.stats["reserved_bytes"]["all"].current
        return (f"CUDA out of memory. Tried to allocate {format_size(alloc)}. GPU {self.device} "
                f"has a total capacity of {format_size(total)} of which {format_size(free)} is "
                f"free. {allowed}Of the allocated memory {format_size(allocated)} is allocated "
                f"by PyTorch, and {format_size(reserved - allocated)} is reserved by PyTorch but "
                "unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                "documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

    def _new_segment(self, size, small):
        seg = _Segment(self._next_address, size, small)
        self._next_address += size
        seg.first = Block(size, seg.address, seg)
        self._segments.append(seg)
        self.counters["num_device_alloc"] += 1
        self._update("segment", small, 1)
        self._update("reserved_bytes", small, size)
        return seg.first

    def _release(self, seg):
        self._segments.remove(seg)
        self.counters["num_device_free"] += 1
        self._update("segment", seg.small, -1)
        self._update("reserved_bytes", seg.small, -seg.size)

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> list:
        """The segments and their blocks, as ``torch.cuda.memory_snapshot()`` lists them."""
        out = []
        for seg in self._segments:
            blocks = [{"address": b.address, "size": b.size, "requested_size": b.requested,
                       "state": "active_allocated" if b.allocated else "inactive"}
                      for b in seg.blocks()]
            alloc = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            out.append({"device": self.device, "address": seg.address, "total_size": seg.size,
                        "allocated_size": alloc, "active_size": alloc,
                        "requested_size": sum(b["requested_size"] for b in blocks),
                        "stream": 0, "segment_type": "small" if seg.small else "large",
                        "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                        "blocks": blocks})
        return out
