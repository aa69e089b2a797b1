"""The emulated cuda device running out of memory: its total memory (configurable), the
per-process fraction, the caching allocator's release-and-retry, ``OutOfMemoryError`` with
PyTorch's message, and the counters (``num_alloc_retries``, ``num_ooms``), with small limits and
hand-computed figures (PyTorch's segment sizes: 2 MiB for small requests, 20 MiB for 1-10 MiB,
else rounded to 2 MiB)."""
from unittest import mock

import pytest
import torch

import minigrad as mg
from minigrad.cuda import allocator as A
from minigrad.cuda import memory as M

MiB = 1 << 20
_TAIL = (" If reserved but unallocated memory is large try setting "
         "PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
         "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html"
         "#environment-variables)")


@pytest.fixture
def device():
    """A fresh cuda allocator and a total memory of 40 MiB for the test, both restored after."""
    from minigrad import devices
    from minigrad.storage_accounting import StorageRegistry
    old = devices.state.cuda_storages
    devices.state.cuda_storages = StorageRegistry(A.CachingAllocator())
    M._set_total_memory(40 * MiB)
    try:
        yield mg.cuda
    finally:
        M._set_total_memory(None)
        devices.state.cuda_storages = old


def _floats(nbytes):
    return mg.zeros(nbytes // 4, device="cuda")


def test_total_memory_is_configurable_and_consistent(device, monkeypatch):
    assert device.get_device_properties().total_memory == 40 * MiB
    assert device.mem_get_info() == (40 * MiB, 40 * MiB)
    x = _floats(4096)                                  # a 2 MiB small segment
    assert device.mem_get_info() == (38 * MiB, 40 * MiB)
    M._set_total_memory(None)
    monkeypatch.setenv("MINIGRAD_CUDA_TOTAL_MEMORY", "64MiB")
    assert device.get_device_properties().total_memory == 64 * MiB
    assert device.mem_get_info() == (62 * MiB, 64 * MiB)
    monkeypatch.setenv("MINIGRAD_CUDA_TOTAL_MEMORY", "3221225472")
    assert device.mem_get_info()[1] == 3 << 30
    monkeypatch.setenv("MINIGRAD_CUDA_TOTAL_MEMORY", "lots")
    with pytest.raises(ValueError, match="MINIGRAD_CUDA_TOTAL_MEMORY"):
        device.mem_get_info()
    monkeypatch.delenv("MINIGRAD_CUDA_TOTAL_MEMORY")
    with pytest.raises(ValueError):
        M._set_total_memory(0)
    with pytest.raises(TypeError):
        M._set_total_memory(1.5)
    del x


def test_a_small_tensor_needs_a_whole_small_segment():
    """40 bytes need a 2 MiB segment: on a 1 MiB device that is out of memory, as on a GPU."""
    from minigrad import devices
    from minigrad.storage_accounting import StorageRegistry
    old = devices.state.cuda_storages
    devices.state.cuda_storages = StorageRegistry(A.CachingAllocator())
    M._set_total_memory(1 * MiB)
    try:
        with pytest.raises(mg.OutOfMemoryError) as e:
            mg.zeros(10, device="cuda")
        assert str(e.value) == (
            "CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
            "1024.00 KiB of which 1024.00 KiB is free. Of the allocated memory 0 bytes is "
            "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated." + _TAIL)
        s = mg.cuda.memory_stats()
        assert (s["num_ooms"], s["num_alloc_retries"], s["num_sync_all_streams"]) == (1, 1, 1)
        assert s["allocated_bytes.all.current"] == s["reserved_bytes.all.current"] == 0
    finally:
        M._set_total_memory(None)
        devices.state.cuda_storages = old


def test_cached_segments_are_released_and_the_allocation_retried(device):
    a = _floats(12 * MiB)                # >= 10 MiB: its own 12 MiB segment
    del a                                # cached: still reserved
    assert device.memory_allocated() == 0 and device.memory_reserved() == 12 * MiB
    b = _floats(30 * MiB)                # 12 + 30 > 40: release the cache, retry: fits
    s = device.memory_stats()
    assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
    assert s["num_device_alloc"] == 2 and s["num_device_free"] == 1
    assert s["num_sync_all_streams"] == 1
    assert device.memory_reserved() == device.memory_allocated() == 30 * MiB
    with pytest.raises(mg.OutOfMemoryError) as e:     # an op's output: 30 more MiB
        b * 2
    assert str(e.value) == (
        "CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of "
        "40.00 MiB of which 10.00 MiB is free. Of the allocated memory 30.00 MiB is allocated by "
        "PyTorch, and 0 bytes is reserved by PyTorch but unallocated." + _TAIL)
    s = device.memory_stats()
    assert s["num_alloc_retries"] == 2 and s["num_ooms"] == 1
    assert device.memory_allocated() == 30 * MiB      # the failed output left nothing behind
    head = device.memory_summary().splitlines()[3]
    assert "CUDA OOMs: 1 " in head and "cudaMalloc retries: 2 " in head
    del e, b      # (the traceback's frames hold b, as a caught exception does in PyTorch)
    c = _floats(30 * MiB)                 # fits again once b is gone (its segment is reused)
    assert device.memory_stats()["num_ooms"] == 1
    del c


def test_per_process_fraction_limits_reserved_bytes(device):
    assert device.get_per_process_memory_fraction() == 1.0
    device.set_per_process_memory_fraction(0.5)      # 20 MiB of 40
    assert device.get_per_process_memory_fraction() == 0.5
    a = _floats(12 * MiB)                            # a 12 MiB segment
    small = _floats(1024)                            # a 2 MiB small segment: 14 MiB reserved
    with pytest.raises(mg.cuda.OutOfMemoryError) as e:
        _floats(8 * MiB)                             # 1-10 MiB: a 20 MiB segment; 34 > 20
    assert str(e.value) == (
        "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
        "40.00 MiB of which 26.00 MiB is free. 20.00 MiB allowed; Of the allocated memory "
        "12.00 MiB is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but "
        "unallocated." + _TAIL)
    assert device.mem_get_info() == (26 * MiB, 40 * MiB)   # the fraction is not the device's
    s = device.memory_stats()
    assert (s["num_ooms"], s["num_alloc_retries"]) == (1, 1)
    del small                 # its segment is cached (14 MiB reserved) until a retry frees it
    with pytest.raises(mg.OutOfMemoryError, match="of which 28.00 MiB is free. 20.00 MiB "
                       "allowed; Of the allocated memory 12.00 MiB is allocated by PyTorch, "
                       "and 0 bytes is reserved"):
        _floats(4 * MiB)      # 12 + 20 > 20 even with the small segment released
    s = device.memory_stats()
    assert (s["num_ooms"], s["num_alloc_retries"], s["num_device_free"]) == (2, 2, 1)
    assert device.memory_reserved() == 12 * MiB
    del a
    b = _floats(6 * MiB)      # served from a's cached 12 MiB block (split): no new segment
    assert device.memory_reserved() == 12 * MiB and device.memory_allocated() == 6 * MiB
    assert device.memory_stats()["num_alloc_retries"] == 2
    del b


def test_fraction_errors_as_torch(device):
    def torch_error(fraction):
        with mock.patch.object(torch.cuda.memory, "_lazy_init", lambda: None), \
                mock.patch("torch.cuda.current_device", return_value=0):
            try:
                torch.cuda.set_per_process_memory_fraction(fraction)
            except (TypeError, ValueError) as e:
                return type(e), str(e)

    def ours(fraction):
        try:
            device.set_per_process_memory_fraction(fraction)
        except (TypeError, ValueError) as e:
            return type(e), str(e)
    for bad in (1, 1.5, -0.1, "0.5"):
        assert ours(bad) == torch_error(bad) is not None
    assert device.get_per_process_memory_fraction() == 1.0


def test_out_of_memory_error_class_as_torch():
    assert mg.OutOfMemoryError is mg.cuda.OutOfMemoryError is M.OutOfMemoryError
    assert torch.OutOfMemoryError is torch.cuda.OutOfMemoryError
    assert [c.__name__ for c in mg.OutOfMemoryError.__mro__] == \
        [c.__name__ for c in torch.OutOfMemoryError.__mro__]
    assert mg.OutOfMemoryError.__module__ == "minigrad" and \
        torch.OutOfMemoryError.__module__ == "torch"
    # exported as torch's: in torch.__all__; an attribute of torch.cuda, not in its __all__
    assert ("OutOfMemoryError" in mg.__all__) == ("OutOfMemoryError" in torch.__all__)
    assert ("OutOfMemoryError" in mg.cuda.__all__) == ("OutOfMemoryError" in torch.cuda.__all__)
    for name in ("set_per_process_memory_fraction", "get_per_process_memory_fraction"):
        assert (name in mg.cuda.__all__) == (name in torch.cuda.__all__)


def test_format_size_as_pytorch():
    cases = {0: "0 bytes", 512: "512 bytes", 1024: "1024 bytes", 1025: "1.00 KiB",
             1536: "1.50 KiB", MiB: "1024.00 KiB", MiB + 1: "1.00 MiB", 20 * MiB: "20.00 MiB",
             1 << 30: "1024.00 MiB", (8 << 30) - (70 << 20): "7.93 GiB"}
    assert {n: A.format_size(n) for n in cases} == cases
