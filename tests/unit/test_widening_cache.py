"""minigrad._widening: the fp32 images of fp16 arrays kept so each is widened once.

The cache must not change a bit (the same step with and without it, and PyTorch's own forward),
must not show in the emulated device's memory figures (they stay PyTorch's), must show in its
own figure (``minigrad.memory.widening_cache_stats``), must die with the graph, and must not
serve an image after an in-place write."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import amp_emu
import minigrad as mg
import minigrad.nn as nn
import optim
from minigrad import _fp16, _widening
from minigrad.memory import reset_widening_cache_peak, widening_cache_stats


def _bits(t):
    a = t.detach().cpu().numpy() if isinstance(t, mg.Tensor) else t
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


# ---------------------------------------------------------------- the rounding's by-product
@pytest.mark.parametrize("scale", [1.0, 1e-5, 1e-8, 3e4, 7e4])
def test_float32_to_float16_widened_is_astype_both_ways(scale):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(2 * _fp16.CHUNK + 999) * scale).astype(np.float32)
    x[::97] = 0.0
    x[1::97] = -0.0
    x[2::1001] = np.inf
    x[3::1003] = np.nan
    x[4::1007] = -np.float32(2.0 ** -25)          # rounds to -0: the sign must survive
    with np.errstate(all="ignore"):
        h, w = _fp16.float32_to_float16_widened(x)
        ref = x.astype(np.float16)
    np.testing.assert_array_equal(h.view(np.uint16), ref.view(np.uint16))
    np.testing.assert_array_equal(w.view(np.uint32), ref.astype(np.float32).view(np.uint32))


def test_float32_to_float16_widened_keeps_the_layout():
    x = np.random.default_rng(1).standard_normal((512, 300)).astype(np.float32).T   # F-order
    h, w = _fp16.float32_to_float16_widened(x)
    assert h.flags.f_contiguous and not h.flags.c_contiguous
    assert w.flags.f_contiguous and not w.flags.c_contiguous and w.base is None
    np.testing.assert_array_equal(w, x.astype(np.float16).astype(np.float32))
    with pytest.raises(ValueError):
        _fp16.float32_to_float16_widened(np.zeros(10, np.float32))


# ---------------------------------------------------------------- same bits as without it
def _mlp_steps(lib, dtype, device, steps=3):
    """Three fp16 autocast + GradScaler steps of a 300-256-4100 MLP (every matmul operand over
    MIN_SIZE elements); the losses, then the parameters and their gradients."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(300, 256), lib.nn.ReLU(), lib.nn.Linear(256, 4100))
    model.to(device)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = lib.amp.GradScaler(device)
    x = lib.randn(64, 300).to(device)
    y = lib.randint(0, 4100, (64,)).to(device)
    out = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        with lib.amp.autocast(device_type=device, dtype=dtype):
            loss = lib.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        out.append(loss.detach().float().cpu())
    for p in model.parameters():
        out += [p.detach(), p.grad]
    return out


class _Mg:
    nn, optim, amp = nn, optim, amp_emu
    manual_seed, randn, randint = staticmethod(mg.manual_seed), staticmethod(mg.randn), \
        staticmethod(mg.randint)


def test_fp16_autocast_steps_same_bits_with_and_without_the_cache():
    reset_widening_cache_peak()
    with _widening.disabled():
        plain = _mlp_steps(_Mg, mg.float16, "cpu")
    assert widening_cache_stats()["hits"] == 0
    cached = _mlp_steps(_Mg, mg.float16, "cpu")
    s = widening_cache_stats()
    assert s["hits"] >= 3 * 5 and s["peak"] > 0       # it served the backward's widenings
    assert [_bits(a) for a in cached] == [_bits(a) for a in plain]
    # the gradients in the same layout, owning their memory (AccumulateGrad took them over)
    layout = [(a._data.flags.c_contiguous, a._data.flags.f_contiguous, a._data.base is None)
              for a in cached[3:]]
    assert layout == [(a._data.flags.c_contiguous, a._data.flags.f_contiguous,
                       a._data.base is None) for a in plain[3:]]


# ---------------------------------------------------------------- memory: visible, not device
def test_figure_moves_and_device_stats_do_not():
    from minigrad import devices
    from minigrad.cuda import allocator as A
    from minigrad.storage_accounting import StorageRegistry

    def run():
        old = devices.state.cuda_storages
        devices.state.cuda_storages = StorageRegistry(A.CachingAllocator())
        try:
            mg.manual_seed(0)
            reset_widening_cache_peak()
            w = mg.randn(512, 784, device="cuda", requires_grad=True)
            x = mg.randn(256, 784, device="cuda")
            with amp_emu.autocast("cuda", dtype=mg.float16):
                y = x @ w.t()
            during = widening_cache_stats()["current"]
            y.float().sum().backward()
            return (during, widening_cache_stats(), mg.cuda.memory_allocated(),
                    mg.cuda.max_memory_allocated(), dict(mg.cuda.memory_stats()),
                    _bits(w.grad))
        finally:
            devices.state.cuda_storages = old
    with _widening.disabled():
        off = run()
    on = run()
    assert off[0] == 0 and off[1]["peak"] == 0 and off[1]["hits"] == 0
    # x's fp16 cast, saved for w's gradient (its image made by the rounding: 4 bytes an
    # element); w.t()'s cast is not saved (x needs no gradient), so its image went with it
    assert on[0] == 4 * 256 * 784
    assert on[1]["hits"] >= 1 and on[1]["peak"] >= on[0]
    assert on[2:] == off[2:]          # memory_allocated, the peak, memory_stats, the gradient


def test_entries_die_with_the_graph_and_live_with_retain_graph():
    gc.collect()
    base = widening_cache_stats()["current"]
    w = mg.randn(512, 784, requires_grad=True)
    x = mg.randn(256, 784)
    with amp_emu.autocast("cpu", dtype=mg.float16):
        y = x @ w.t()
    assert widening_cache_stats()["current"] > base        # the saved fp16 x and w.t()
    y.float().sum().backward(retain_graph=True)
    assert widening_cache_stats()["current"] > base        # the graph still holds them
    y.float().sum().backward()                             # frees the graph
    del y
    gc.collect()
    assert widening_cache_stats()["current"] == base


def test_nothing_left_under_no_grad_nor_kept_for_parameters():
    gc.collect()
    base = widening_cache_stats()["entries"]
    w = mg.randn(256, 128)
    x = mg.randn(64, 128)
    with mg.no_grad(), amp_emu.autocast("cpu", dtype=mg.float16):
        y = (x @ w.t()).relu() @ w              # the casts' and the relu's images: temporaries
    gc.collect()
    assert widening_cache_stats()["entries"] == base and y.dtype is mg.float16
    p16 = nn.Parameter(mg.randn(128, 128).half())          # the cast's image is dropped
    (p16 @ p16).float().sum().backward()
    l16 = mg.randn(128, 128).half().requires_grad_()        # a leaf that requires grad
    (l16 @ l16.t()).float().sum().backward()
    gc.collect()
    assert widening_cache_stats()["entries"] == base


# ---------------------------------------------------------------- invalidation
def _plain_mm(a, b):
    """``a @ b`` from fresh copies of the values, without the cache: the reference."""
    with _widening.disabled():
        return mg.tensor(a.detach().numpy().copy()) @ mg.tensor(b.detach().numpy().copy())


def test_in_place_write_invalidates_the_image():
    a = mg.randn(128, 128, requires_grad=True)
    b = mg.randn(128, 128)
    with amp_emu.autocast("cpu", dtype=mg.float16):
        b16 = b.to(mg.float16)           # its image is kept (an autocast-style cast)
        a16 = a.half()
        first = a16 @ b16
        assert _widening.lookup(b16) is not None
        with mg.no_grad():
            b16.mul_(2)                  # bumps the version: the image is stale
        assert _widening.lookup(b16) is None
        second = a16 @ b16
    assert _bits(first) == _bits(_plain_mm(a16, b.to(mg.float16)))
    assert _bits(second) == _bits(_plain_mm(a16, b16))
    assert _bits(first) != _bits(second)


def test_data_and_numpy_drop_the_image():
    a = mg.randn(128, 128, requires_grad=True)
    h = (a * 1).half()
    h @ h                                 # keeps h's image
    assert _widening.lookup(h) is not None
    h.data.mul_(0.5)                      # .data: a new version counter, PyTorch's semantics
    assert _widening.lookup(h) is None
    assert _bits(h @ h) == _bits(_plain_mm(h, h))
    assert _widening.lookup(h) is None    # a reader never keeps an image
    h2 = (a * 1).half()                   # the cast keeps one
    assert _widening.lookup(h2) is not None
    h2.detach().numpy()[...] = 0          # through numpy(): the image goes too
    assert _widening.lookup(h2) is None
    assert not (h2 @ h2).detach().numpy().any()


def test_memory_shared_with_numpy_is_never_imaged():
    """A tensor over a NumPy array (from_numpy) changes when the array is written, with no
    version bump: its matmuls read the array, never a kept image (as PyTorch's read the memory)."""
    arr = np.ones((64, 64), np.float16)
    t = mg.from_numpy(arr)
    w = mg.ones(64, 64, dtype=mg.float16)
    assert (t @ w)[0, 0].item() == 64.0
    assert _widening.lookup(t) is None
    arr[...] = 2
    assert (t @ w)[0, 0].item() == 128.0


def test_a_stolen_gradient_keeps_no_image():
    # an fp16 leaf's gradient is an fp16 mm's result (whose image the backward keeps); taken
    # over as .grad, it must not hold its image for as long as .grad lives
    gc.collect()
    base = widening_cache_stats()["entries"]
    w = mg.randn(256, 128).half().requires_grad_()
    x = mg.randn(64, 256).half()
    (x @ w).float().sum().backward()
    gc.collect()
    assert w.grad.dtype is mg.float16 and _widening.lookup(w.grad) is None
    assert _widening.lookup(x) is not None      # a kept fp16 cast keeps its image while it lives
    del x
    gc.collect()
    assert widening_cache_stats()["entries"] == base


def test_gelu_kept_tanh_is_counted_until_backward():
    """tanh-form GELU keeps its forward tanh on the node: the emulation figure shows its bytes
    until the backward takes them; the device figures do not (PyTorch keeps nothing)."""
    gc.collect()
    before = widening_cache_stats()["current"]
    x = mg.randn(64, 128, requires_grad=True)
    y = mg.nn.functional.gelu(x, approximate="tanh")
    held = widening_cache_stats()["current"] - before
    assert held == 2 * 64 * 128 * 4               # inner and tanh(inner), fp32
    y.sum().backward()
    gc.collect()
    assert widening_cache_stats()["current"] == before
    with mg.no_grad():
        mg.nn.functional.gelu(x, approximate="tanh")
    assert widening_cache_stats()["current"] == before
