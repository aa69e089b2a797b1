"""``minigrad.cuda``: the emulated CUDA device's API (mirrors ``torch.cuda``).

There is no GPU behind it. minigrad's "cuda" device is an emulation (see ``minigrad.devices``):
cuda tensors live in host memory and run the same NumPy kernels with the same round-once numerics
as cpu tensors, but they carry the device, so everything PyTorch ties to the device follows it
(``autocast("cuda")`` touches only cuda tensors, mixing devices raises, ``.numpy()`` raises). A
CUDA training script (``device = "cuda" if torch.cuda.is_available() else "cpu"``) therefore runs
unchanged and shows what CUDA AMP does, on a laptop.

Set ``MINIGRAD_EMULATE_CUDA=0`` to turn the emulation off: ``is_available()`` is then False and
the functions behave as in a CPU-only PyTorch build (``device_count() == 0``; ``current_device()``
and cuda tensors raise ``AssertionError("Torch not compiled with CUDA enabled")``), so a script
takes its CPU path, as a differential test against a CPU-only PyTorch needs.

The memory functions (``memory_allocated``, ``max_memory_allocated``, ``memory_reserved``,
``memory_stats``, ``memory_summary``, ``empty_cache``, ``mem_get_info``...) count the true bytes
of live cuda tensors through a model of PyTorch's caching allocator: see ``minigrad.cuda.memory``
and ``minigrad.cuda.allocator``. ``minigrad.cuda.amp`` (the deprecated ``torch.cuda.amp``
aliases) is imported on first access only, so ``import minigrad`` never imports ``amp_emu``.
"""
from __future__ import annotations

from ..devices import emulation_enabled
from ..legacy_tensor_types import CUDA_TYPES as _LEGACY_TYPES

__all__ = ["is_available", "device_count", "current_device", "set_device", "get_device_name",
           "get_device_capability", "get_device_properties", "synchronize", "is_initialized",
           "init", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "is_bf16_supported", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_max_memory_cached", "empty_cache", "memory_summary", "memory_stats",
           "memory_stats_as_nested_dict", "reset_accumulated_memory_stats", "mem_get_info",
           "memory_snapshot", "memory_cached", "max_memory_cached",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction",
           "Stream", "Event", "StreamContext", "current_stream", "default_stream", "set_stream",
           "stream", "device", "device_of", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "is_current_stream_capturing",
           "ipc_collect", "get_arch_list", "nvtx", "utilization"] + \
    list(_LEGACY_TYPES)

globals().update(_LEGACY_TYPES)   # torch.cuda.FloatTensor...: see minigrad.legacy_tensor_types

DEVICE_NAME = "minigrad emulated CUDA device (host memory, NumPy kernels)"
_seed = [0]     # what manual_seed recorded (for initial_seed)


def _require():
    if not emulation_enabled():
        raise AssertionError("Torch not compiled with CUDA enabled")


def is_available() -> bool:
    """True: the emulated cuda device is always there (``torch.cuda.is_available``); False only
    with ``MINIGRAD_EMULATE_CUDA=0``. No GPU is used either way (see the module docstring)."""
    return emulation_enabled()


def device_count() -> int:
    """1 (the one emulated GPU, ``cuda:0``), or 0 with the emulation off."""
    return 1 if emulation_enabled() else 0


def is_initialized() -> bool:
    """Mirrors ``torch.cuda.is_initialized``: True when the emulation is on."""
    return emulation_enabled()


def init() -> None:
    """Mirrors ``torch.cuda.init`` (nothing to initialise).

    Raises:
        AssertionError: with the emulation off, as a CPU-only PyTorch build.
    """
    _require()


def current_device() -> int:
    """The current cuda ordinal: always 0 (``torch.cuda.current_device``).

    Raises:
        AssertionError: "Torch not compiled with CUDA enabled" with the emulation off.
    """
    _require()
    return 0


def set_device(device) -> None:
    """Mirrors ``torch.cuda.set_device``; only ordinal 0 exists.

    Raises:
        AssertionError: with the emulation off. RuntimeError: another ordinal.
    """
    from ..devices import as_device, device as _device
    _require()
    as_device(_device("cuda", device) if isinstance(device, int) else device)


def get_device_name(device=None) -> str:
    """The device's name, which says it is minigrad's emulation (``torch.cuda.get_device_name``).

    Raises:
        AssertionError: with the emulation off.
    """
    _require()
    return DEVICE_NAME


def get_device_capability(device=None) -> tuple:
    """(8, 0): the emulation supports what an Ampere GPU does for AMP (bf16 and fp16), so a script
    gating bf16 on the capability takes that path (``torch.cuda.get_device_capability``).

    Raises:
        AssertionError: with the emulation off.
    """
    _require()
    return (8, 0)


class _CudaDeviceProperties:
    """The emulated device's properties (``torch.cuda.get_device_properties``'s object).

    Attributes:
        name: ``get_device_name()``'s string.
        major, minor: the compute capability, ``get_device_capability()`` (8, 0).
        total_memory: bytes; the host's physical memory, where the emulated device's tensors
            live (``os.sysconf``; 16 GiB where the platform cannot say), unless
            ``MINIGRAD_CUDA_TOTAL_MEMORY`` or ``minigrad.cuda.memory._set_total_memory`` sets
            another (``minigrad.cuda.allocator.total_memory``).
        multi_processor_count: the host's CPU count (``os.cpu_count()``).
        is_integrated, is_multi_gpu_board: False. warp_size: 32.
    """

    def __init__(self):
        import os
        from .allocator import total_memory
        mem = total_memory()
        self.name = DEVICE_NAME
        self.major, self.minor = get_device_capability()
        self.total_memory = int(mem)
        self.multi_processor_count = os.cpu_count() or 1
        self.is_integrated = False
        self.is_multi_gpu_board = False
        self.warp_size = 32

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1 << 20)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> _CudaDeviceProperties:
    """Mirrors ``torch.cuda.get_device_properties``: the emulated device's properties.

    Args:
        device: None, 0, "cuda", "cuda:0" or a ``minigrad.device`` of the emulated device.

    Raises:
        AssertionError: with the emulation off ("Torch not compiled with CUDA enabled").
        RuntimeError: a cpu device or another ordinal (as ``set_device``).
    """
    from ..devices import as_device, device as _device
    _require()
    if device is not None:
        d = as_device(_device("cuda", device) if isinstance(device, int) else device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
    return _CudaDeviceProperties()


def synchronize(device=None) -> None:
    """Wait for the device's work: a no-op, every op runs synchronously on the host
    (``torch.cuda.synchronize``).

    Raises:
        AssertionError: with the emulation off.
    """
    _require()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Mirrors ``torch.cuda.is_bf16_supported``: True with the emulation on, else False."""
    return emulation_enabled()


def manual_seed(seed: int) -> None:
    """Record ``seed`` for the cuda device (``torch.cuda.manual_seed``).

    Deliberate difference: cuda tensors draw from minigrad's one generator, which
    ``minigrad.manual_seed`` seeds; this call does not reseed it (PyTorch keeps a separate CUDA
    stream, which this seed would select), it is recorded for ``initial_seed`` only.
    """
    _seed[0] = int(seed)


def manual_seed_all(seed: int) -> None:
    """Same as ``manual_seed`` (one emulated device) (``torch.cuda.manual_seed_all``)."""
    manual_seed(seed)


def seed() -> None:
    """Mirrors ``torch.cuda.seed``: records a random seed (see ``manual_seed``)."""
    import random
    _seed[0] = random.getrandbits(63)


seed_all = seed


def initial_seed() -> int:
    """The seed last given to ``manual_seed`` / ``seed`` (``torch.cuda.initial_seed``)."""
    return _seed[0]


from .memory import (OutOfMemoryError, empty_cache, get_per_process_memory_fraction,  # noqa
                     max_memory_allocated, max_memory_cached, set_per_process_memory_fraction,
                     max_memory_reserved, mem_get_info, memory_allocated, memory_cached,
                     memory_reserved, memory_snapshot, memory_stats, memory_stats_as_nested_dict,
                     memory_summary, reset_accumulated_memory_stats, reset_max_memory_allocated,
                     reset_max_memory_cached, reset_peak_memory_stats)


from ..streams import Event, StreamContext, set_stream  # noqa: E402
from .. import streams as _streams  # noqa: E402
from . import nvtx  # noqa: E402,F401


class Stream(_streams.Stream):
    """A stream on the emulated cuda device (``torch.cuda.Stream``): see ``minigrad.streams``
    (every op is finished when it returns, so waits and synchronisation return at once)."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        _require()
        super().__init__(device, priority, _type="cuda")


def current_stream(device=None) -> Stream:
    """The current cuda stream (``torch.cuda.current_stream``)."""
    _require()
    return _streams.current_stream(device, _type="cuda")


def default_stream(device=None) -> Stream:
    """The default cuda stream (``torch.cuda.default_stream``)."""
    _require()
    return Stream(device)


def stream(stream_) -> StreamContext:
    """``with torch.cuda.stream(s):`` makes ``s`` current for the block (``torch.cuda.stream``)."""
    return StreamContext(stream_, _type="cuda")


def is_current_stream_capturing() -> bool:
    """False: there are no CUDA graphs (``torch.cuda.is_current_stream_capturing``)."""
    return False


def ipc_collect() -> None:
    """Nothing to collect (``torch.cuda.ipc_collect``)."""


def utilization(device=None) -> int:
    """The percent of the last sample period in which a kernel ran (``torch.cuda.utilization``,
    which asks NVML): 0, since the emulated device's kernels run synchronously on the host and
    nothing samples them.

    Raises:
        AssertionError: with the emulation off ("Torch not compiled with CUDA enabled").
    """
    _require()
    return 0


def get_arch_list() -> list:
    """``["sm_80"]``: the architecture ``get_device_capability`` reports (``torch.cuda.get_arch_list``)."""
    return ["sm_80"] if emulation_enabled() else []


class device:
    """``with torch.cuda.device(d):`` selects cuda device ``d`` for the block
    (``torch.cuda.device``). Only ordinal 0 exists; ``d`` may be an int, a string, a
    ``minigrad.device`` or None/-1 (no change), as PyTorch takes it.

    Raises:
        RuntimeError: another ordinal, or a non-cuda device (from ``set_device``).
    """

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        if self.idx is not None and self.idx != -1:
            from ..devices import device as _device
            d = self.idx if isinstance(self.idx, int) else _device(self.idx)
            if isinstance(d, int) or d.type == "cuda":
                set_device(d)
        return self

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``with torch.cuda.device_of(t):`` selects ``t``'s device when it is a cuda tensor
    (``torch.cuda.device_of``)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


def get_rng_state(device="cuda"):
    """The state of the generator cuda tensors draw from: the one CPU generator
    (``torch.cuda.get_rng_state``; deliberate difference, see the README: real CUDA has its own
    Philox generator per device)."""
    from ..random import get_rng_state as _cpu_state
    _require()
    return _cpu_state()


def set_rng_state(new_state, device="cuda") -> None:
    """Restore what :func:`get_rng_state` returned (``torch.cuda.set_rng_state``)."""
    from ..random import set_rng_state as _set_cpu_state
    _require()
    _set_cpu_state(new_state)


def get_rng_state_all() -> list:
    """``[get_rng_state()]``: one emulated device (``torch.cuda.get_rng_state_all``)."""
    return [get_rng_state()] if emulation_enabled() else []


def set_rng_state_all(new_states) -> None:
    """``set_rng_state`` with the first state (``torch.cuda.set_rng_state_all``)."""
    for state in list(new_states)[:1]:
        set_rng_state(state)


def __getattr__(name):
    # ``minigrad.cuda.amp`` imports amp_emu, so it is loaded on first access only
    if name == "amp":
        import importlib
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'minigrad.cuda' has no attribute {name!r}")
