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

The memory functions come with the memory-accounting issue (issue 8) and raise
``NotImplementedError`` until then. ``minigrad.cuda.amp`` (the deprecated ``torch.cuda.amp``
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
           "reset_max_memory_cached", "empty_cache", "memory_summary", "memory_stats"
           ] + list(_LEGACY_TYPES)

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
            live (``os.sysconf``; 16 GiB where the platform cannot say).
        multi_processor_count: the host's CPU count (``os.cpu_count()``).
        is_integrated, is_multi_gpu_board: False. warp_size: 32.
    """

    def __init__(self):
        import os
        try:
            mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            mem = 16 << 30
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


def _memory_not_yet(name):
    def f(*args, **kwargs):
        raise NotImplementedError(
            f"minigrad.cuda.{name}: per-device memory accounting (live and peak bytes, with the "
            "CUDA caching allocator's 512-byte block rounding) comes with issue 8, memory "
            "accounting; it is not implemented yet")
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = (f"Mirrors ``torch.cuda.{name}``; not implemented until issue 8 (memory "
                 "accounting).\n\n    Raises:\n        NotImplementedError: always, naming "
                 "issue 8.\n    ")
    return f


memory_allocated = _memory_not_yet("memory_allocated")
max_memory_allocated = _memory_not_yet("max_memory_allocated")
memory_reserved = _memory_not_yet("memory_reserved")
max_memory_reserved = _memory_not_yet("max_memory_reserved")
reset_peak_memory_stats = _memory_not_yet("reset_peak_memory_stats")


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
    """Mirrors ``torch.cuda.empty_cache``: release cached, unused blocks to the device.

    The emulated device has no caching allocator yet (it comes with issue 8, memory accounting),
    so there is nothing to release and this returns at once, as PyTorch's call does when its
    cache is empty.
    """

memory_summary = _memory_not_yet("memory_summary")
memory_stats = _memory_not_yet("memory_stats")


def __getattr__(name):
    # ``minigrad.cuda.amp`` imports amp_emu, so it is loaded on first access only
    if name == "amp":
        import importlib
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'minigrad.cuda' has no attribute {name!r}")
