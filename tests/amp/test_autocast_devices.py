"""autocast and GradScaler per device type: ``autocast("cuda")`` touches cuda tensors only and
``autocast("cpu")`` cpu tensors only (PyTorch's AutocastCUDA / AutocastCPU dispatch keys).

The cpu half is differential against PyTorch CPU (including a disabled inner cuda region, which
PyTorch CPU can enter); the cuda half checks PyTorch's documented semantics on the emulated
device (and the GPU test in ``test_autocast_ops_vs_torch`` compares dtypes with real CUDA).
"""
from __future__ import annotations

import warnings

import pytest
import torch

import amp_emu
import minigrad as mg
from amp_emu import GradScaler, autocast

_autocast_mod = __import__("amp_emu.autocast", fromlist=["_state"])


def _mm(lib, dev="cpu"):
    a = lib.ones(2, 3, device=dev)
    return (a @ lib.ones(3, 2, device=dev)).dtype


def test_cuda_region_leaves_cpu_tensors_and_casts_cuda_ones():
    with autocast("cuda"):
        assert _mm(mg) is mg.float32                      # cpu tensors: untouched
        assert _mm(mg, "cuda") is mg.float16              # cuda tensors: the cuda table
    with torch.autocast("cpu", enabled=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autocast("cuda"):                      # PyTorch CPU: cpu ops untouched too
            assert _mm(torch) is torch.float32


def test_cpu_region_leaves_cuda_tensors():
    with autocast("cpu"):
        assert _mm(mg) is mg.bfloat16 and _mm(mg, "cuda") is mg.float32


def test_inner_disabled_cuda_region_keeps_the_outer_cpu_region_like_torch():
    for lib, ac in ((mg, autocast), (torch, torch.autocast)):
        with ac("cpu", dtype=lib.bfloat16):
            with ac("cuda", enabled=False):
                assert _mm(lib) is lib.bfloat16, lib.__name__
            with ac("cpu", enabled=False):
                assert _mm(lib) is lib.float32
    with autocast("cpu"), autocast("cuda", enabled=False):
        assert _mm(mg, "cuda") is mg.float32
    with autocast("cuda", dtype=mg.bfloat16), autocast("cpu", dtype=mg.float16):
        assert _mm(mg, "cuda") is mg.bfloat16 and _mm(mg) is mg.float16
        assert amp_emu.get_autocast_dtype("cuda") is mg.bfloat16


def test_an_op_with_a_cuda_tensor_is_a_cuda_op_even_next_to_a_cpu_scalar():
    x, c = mg.ones(2, 3, device="cuda"), mg.tensor(2.0)
    dev = _autocast_mod._device_type
    assert dev((c, x), {}) == dev(([c, x],), {}) == dev((c,), {"other": x}) == "cuda"
    assert dev((c, 1.0), {}) == "cpu" and dev(((2, 3),), {"dtype": mg.float16}) is None
    with autocast("cuda"):
        assert (x * c).dtype is mg.float32                # mul is not listed: untouched
        assert mg.matmul(x, x.t() * c).dtype is mg.float16


def test_weight_cast_cache_works_for_cuda_weights():
    lin = mg.nn.Linear(4, 3, device="cuda")
    x = mg.randn(2, 4, device="cuda")
    st = _autocast_mod._state
    with autocast("cuda"):
        y1, y2 = lin(x), lin(x)
        cached = [k for k in st.cache if k[0] == id(lin.weight)]
        assert len(cached) == 1 and y1.dtype is mg.float16 and y2.device == mg.device("cuda:0")
        (y1.float().sum() + y2.float().sum()).backward()
    assert lin.weight.grad.device == mg.device("cuda:0") and lin.weight.grad.dtype is mg.float32
    assert not st.cache                                   # cleared when the last region exits


def test_custom_fwd_casts_only_inputs_on_its_device_type():
    seen = []

    class F(mg.autograd.Function):
        @staticmethod
        @amp_emu.custom_fwd(device_type="cuda", cast_inputs=mg.float16)
        def forward(ctx, a, b):
            seen.append((a.dtype, b.dtype))
            return a + b.to(a.device)

        @staticmethod
        @amp_emu.custom_bwd(device_type="cuda")
        def backward(ctx, g):
            return g, g

    with autocast("cuda"):
        F.apply(mg.ones(2, device="cuda"), mg.ones(2))
    assert seen == [(mg.float16, mg.float32)]


def test_grad_scaler_scale_lives_on_the_outputs_device():
    s = GradScaler("cuda", init_scale=4.0)
    w = mg.ones(3, device="cuda", requires_grad=True)
    s.scale((w * 2).sum()).backward()
    assert s._scale.device == mg.device("cuda:0") and w.grad.device == w.device
    opt = mg.optim.SGD([w], lr=0.1)
    s.unscale_(opt)
    assert w.grad.cpu().tolist() == [2.0, 2.0, 2.0]
    found = s._per_optimizer_states[id(opt)]["found_inf_per_device"]
    assert list(found) == [mg.device("cuda:0")]
    s.step(opt)
    s.update()
    assert s.get_scale() == 4.0 and s._scale.device == mg.device("cuda:0")
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        s.update(new_scale=mg.tensor(2.0))                 # a cpu tensor for a cuda scaler
    s.update(new_scale=mg.tensor(2.0, device="cuda"))
    assert s.get_scale() == 2.0


def test_grad_scaler_cpu_update_with_a_cpu_tensor_matches_torch():
    for lib, make in ((mg, GradScaler), (torch, torch.amp.GradScaler)):
        s = make("cpu", init_scale=8.0)
        s.scale(lib.ones(1, requires_grad=True).sum())
        s.update(new_scale=lib.tensor(3.0))
        assert s.get_scale() == 3.0


def test_emulation_off_disables_cuda_autocast_and_scaler_like_cpu_only_torch(monkeypatch):
    monkeypatch.setenv("MINIGRAD_EMULATE_CUDA", "0")
    for ac, sc in ((autocast, GradScaler), (torch.autocast, torch.amp.GradScaler)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a, s = ac("cuda"), sc("cuda")
        assert [str(x.message) for x in w] == [
            "CUDA is not available or torch_xla is imported. Disabling autocast.",
            "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."]
        assert a._enabled is False and s.is_enabled() is False


def _amp_run(device, opt_name, kw):
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(5, 7), mg.nn.ReLU(), mg.nn.Linear(7, 3)).to(device)
    make = {"sgd": lambda p: mg.optim.SGD(p, lr=0.1, momentum=0.9, **kw),
            "adam": lambda p: mg.optim.Adam(p, lr=1e-2, **kw),
            "adamw": lambda p: mg.optim.AdamW(p, lr=1e-2, amsgrad=True, **kw)}[opt_name]
    opt, scaler = make(model.parameters()), GradScaler(device, init_scale=2.0 ** 8)
    x, y = mg.randn(6, 5, device=device), mg.randint(0, 3, (6,), device=device)
    for _ in range(3):
        with autocast(device, dtype=mg.float16):
            loss = mg.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
    state = [v for s in opt.state.values() for v in s.values() if isinstance(v, mg.Tensor)]
    return list(model.parameters()), state, scaler


@pytest.mark.parametrize("opt_name", ["sgd", "adam", "adamw"])
@pytest.mark.parametrize("kw", [{"foreach": False}, {"foreach": True}, {"fused": True}],
                         ids=["for-loop", "foreach", "fused"])
def test_an_amp_step_on_cuda_is_bit_identical_to_cpu_and_stays_on_cuda(opt_name, kw):
    """Same kernels on both devices: only the device (and the policy table: the linear layers
    run in fp16 on both, cross_entropy in fp32) differs."""
    pc, sc, _ = _amp_run("cpu", opt_name, kw)
    pg, sg, scaler = _amp_run("cuda", opt_name, kw)
    assert all(p.device == mg.device("cuda:0") for p in pg)
    assert scaler._scale.device == mg.device("cuda:0")
    for a, b in zip(pc + sc, pg + sg):
        if b.ndim:                      # PyTorch keeps non-fused Adam step counters on the cpu
            assert b.device == mg.device("cuda:0")
        assert a.tolist() == b.tolist()
