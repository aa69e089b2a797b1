"""minigrad.cuda's memory figures: true bytes of live cuda tensors through the caching allocator
model, against hand-computed byte counts and PyTorch's documented rules and table layout."""
from unittest import mock

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.cuda import allocator as A

KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture
def fresh():
    """Start each test from an empty cuda allocator state: a fresh allocator replaces the
    process's one for the test (earlier tensors stay counted, and freed, in the old one)."""
    from minigrad import devices
    from minigrad.storage_accounting import StorageRegistry
    old = devices.state.cuda_storages
    devices.state.cuda_storages = StorageRegistry(A.CachingAllocator())
    try:
        yield mg.cuda
    finally:
        devices.state.cuda_storages = old


def test_fp16_tensor_is_30_bytes_requested_512_allocated_2MiB_reserved(fresh):
    x = mg.zeros(3, 5, dtype=mg.float16, device="cuda")
    s = fresh.memory_stats()
    assert s["requested_bytes.all.current"] == 30
    assert fresh.memory_allocated() == s["allocated_bytes.small_pool.current"] == 512
    assert fresh.memory_reserved() == 2 * MiB and s["segment.all.current"] == 1
    y = mg.zeros(300, dtype=mg.bfloat16, device="cuda")       # 600 bytes -> 1024
    assert fresh.memory_allocated() == 512 + 1024
    assert fresh.memory_stats()["requested_bytes.all.current"] == 630
    assert fresh.memory_reserved() == 2 * MiB         # carved from the same small segment
    del x, y


def test_views_detach_aliases_count_once_and_free_with_the_last_holder(fresh):
    x = mg.ones(4, 64, device="cuda")              # 1024 bytes
    base = fresh.memory_allocated()
    assert base == 1024
    held = [x[1:], x.detach(), x.t(), x.view(-1), x.data, x.reshape(64, 4)]
    assert fresh.memory_allocated() == base
    del x
    assert fresh.memory_allocated() == base          # the views keep the storage
    del held
    assert fresh.memory_allocated() == 0
    assert fresh.max_memory_allocated() == 1024
    assert fresh.memory_reserved() == 2 * MiB        # cached, not released


def test_op_outputs_moves_and_copies_count_their_own_storage(fresh):
    a = mg.randn(10, 10)                          # cpu: not counted
    assert fresh.memory_allocated() == 0
    b = a.to("cuda")                              # 400 bytes -> 512
    c = b * 2 + 1                                 # one temporary freed, the result kept
    d = b.clone()
    assert fresh.memory_allocated() == 3 * 512
    e = c.cpu()                                   # a host copy: nothing on the device
    assert fresh.memory_allocated() == 3 * 512
    del b, c, d, e
    assert fresh.memory_allocated() == 0


def test_peak_and_resets(fresh):
    x = mg.zeros(1024, device="cuda")           # 4 KiB
    y = mg.zeros(1024, device="cuda")
    del y
    assert fresh.memory_allocated() == 4 * KiB and fresh.max_memory_allocated() == 8 * KiB
    fresh.reset_peak_memory_stats()
    assert fresh.max_memory_allocated() == 4 * KiB
    s = fresh.memory_stats()
    assert s["allocated_bytes.all.allocated"] == 8 * KiB and s["allocated_bytes.all.freed"] == 4 * KiB
    assert s["allocation.all.allocated"] == 2 and s["num_device_alloc"] == 1
    fresh.reset_accumulated_memory_stats()
    s = fresh.memory_stats()
    assert s["allocated_bytes.all.allocated"] == 0 and s["num_device_alloc"] == 0
    assert s["allocated_bytes.all.current"] == 4 * KiB
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        fresh.reset_max_memory_allocated()
    with pytest.warns(FutureWarning, match="renamed"):
        assert fresh.memory_cached() == fresh.memory_reserved()
    del x


def test_large_pool_segments_reuse_split_and_empty_cache(fresh):
    # 1.5 MiB > 1 MiB: large pool, a 20 MiB segment (requests under 10 MiB)
    x = mg.zeros(3 * MiB // 8, device="cuda")
    assert fresh.memory_allocated() == 3 * MiB // 2
    assert fresh.memory_reserved() == 20 * MiB
    assert fresh.memory_stats()["reserved_bytes.large_pool.current"] == 20 * MiB
    y = mg.zeros(3 * MiB // 8, device="cuda")     # the rest of the segment was split off
    assert fresh.memory_reserved() == 20 * MiB
    mid = mg.zeros(3 * MiB, device="cuda")        # 12 MiB: fits the 17 MiB left (best fit)
    assert fresh.memory_reserved() == 20 * MiB
    big = mg.zeros(5 * MiB, device="cuda")        # 20 MiB >= 10 MiB: its own 20 MiB segment
    assert fresh.memory_reserved() == 40 * MiB
    del big, mid
    assert fresh.memory_reserved() == 40 * MiB    # cached
    fresh.empty_cache()
    assert fresh.memory_reserved() == 20 * MiB    # the wholly free segment is released
    del x, y
    fresh.empty_cache()
    assert fresh.memory_reserved() == 0 and fresh.memory_allocated() == 0
    assert fresh.memory_stats()["num_device_free"] == 2


def test_freed_blocks_merge_and_best_fit_reuses_them(fresh):
    al = A.CachingAllocator()
    b1, b2, b3 = al.malloc(512), al.malloc(1000), al.malloc(512)
    assert [b.size for b in (b1, b2, b3)] == [512, 1024, 512]
    assert b2.address == b1.address + 512 and b3.address == b2.address + 1024
    al.free(b1)
    al.free(b2)                                   # merges with b1: one 1536-byte free block
    b4 = al.malloc(1536)
    assert b4.address == b1.address and b4.size == 1536
    st = al.nested_stats()
    assert st["segment"]["all"]["current"] == 1 and st["allocated_bytes"]["all"]["current"] == 2048
    assert A.round_size(1) == 512 and A.round_size(513) == 1024
    assert A.allocation_size(MiB) == 2 * MiB and A.allocation_size(MiB + 512) == 20 * MiB
    assert A.allocation_size(11 * MiB) == 12 * MiB


def test_memory_stats_keys_are_pytorchs_and_sorted(fresh):
    keep = mg.zeros(2, device="cuda")
    s = fresh.memory_stats()
    assert list(s) == sorted(s)
    for stat in ("allocated_bytes", "reserved_bytes", "active_bytes", "requested_bytes",
                 "inactive_split_bytes", "allocation", "segment", "active", "inactive_split"):
        for pool in ("all", "large_pool", "small_pool"):
            for f in ("current", "peak", "allocated", "freed"):
                assert f"{stat}.{pool}.{f}" in s
    for k in ("num_alloc_retries", "num_ooms", "max_split_size", "oversize_allocations.current",
              "oversize_segments.peak", "num_device_alloc", "num_device_free"):
        assert k in s
    assert s["num_alloc_retries"] == s["num_ooms"] == 0
    del keep


def test_memory_summary_is_pytorchs_table_of_the_same_stats(fresh):
    keep = [mg.zeros(1000, device="cuda"), mg.zeros(MiB, device="cuda")]
    stats = fresh.memory_stats()
    with mock.patch.object(torch.cuda.memory, "memory_stats", lambda device=None: stats):
        for abbreviated in (False, True):
            expect = torch.cuda.memory.memory_summary(device=0, abbreviated=abbreviated)
            assert fresh.memory_summary(abbreviated=abbreviated) == expect
    del keep


def test_mem_get_info_snapshot_and_errors(fresh):
    keep = mg.zeros(100, device="cuda")
    free, total = fresh.mem_get_info()
    assert total == fresh.get_device_properties().total_memory
    assert free == total - fresh.memory_reserved()
    (seg,) = fresh.memory_snapshot()
    assert seg["total_size"] == 2 * MiB and seg["segment_type"] == "small"
    assert seg["blocks"][0] == {"address": seg["address"], "size": 512, "requested_size": 400,
                                "state": "active_allocated"}
    assert seg["blocks"][1]["state"] == "inactive"
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        fresh.memory_allocated(1)
    with pytest.raises(ValueError):
        fresh.memory_allocated("cpu")
    assert fresh.memory_allocated("cuda:0") == fresh.memory_allocated(0) == 512
    del keep


def test_training_step_frees_saved_tensors_after_backward(fresh):
    lin = mg.nn.Linear(64, 64).to("cuda")
    x = mg.randn(32, 64, device="cuda")
    before = fresh.memory_allocated()
    loss = mg.relu(lin(x)).sum()
    during = fresh.memory_allocated()
    assert during > before                        # the activations saved for backward
    loss.backward()
    del loss
    # what is left beside the inputs: the two gradients (64x64 and 64 floats)
    assert fresh.memory_allocated() == before + A.round_size(64 * 64 * 4) + 512
    assert lin.weight.grad is not None and np.isfinite(lin.weight.grad.cpu().numpy()).all()
