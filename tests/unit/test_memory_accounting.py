"""minigrad.memory: cpu figures under tracking, the split by category (parameters, gradients,
optimizer state, saved for backward, other) against hand-computed and PyTorch-computed bytes,
and save_on_cpu lowering the emulated cuda device's figures."""
import contextlib
import gc

import pytest
import torch

import minigrad as mg
import optim
from minigrad import nn
from minigrad.autograd.graph import save_on_cpu
from minigrad.cuda.allocator import round_size


def _mlp(device):
    mg.manual_seed(0)
    return nn.Sequential(nn.Linear(20, 30), nn.ReLU(), nn.Linear(30, 10)).to(device)


def _torch_adam_state_bytes(device):
    """Bytes of Adam's state after one step, as PyTorch keeps it for the same parameters on
    ``device``: for cuda parameters (not fused or capturable) ``step`` is a cpu tensor."""
    tm = torch.nn.Sequential(torch.nn.Linear(20, 30), torch.nn.ReLU(), torch.nn.Linear(30, 10))
    opt = torch.optim.Adam(tm.parameters())
    tm(torch.randn(4, 20)).sum().backward()
    opt.step()
    return [v.nbytes for st in opt.state.values() for k, v in st.items()
            if torch.is_tensor(v) and (device == "cpu" or k != "step")]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_mlp_step_categories_are_exact(device):
    gc.collect()
    model = _mlp(device)
    opt = optim.Adam(model.parameters(), lr=1e-3)
    x = mg.randn(8, 20, device=device)
    y = mg.randint(0, 10, (8,), device=device)
    rnd = (lambda n: n) if device == "cpu" else round_size
    param_bytes = sum(rnd(p.numel() * 4) for p in model.parameters())
    with mg.memory.track(device) as m:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    now = m.by_category("now")
    assert now["parameters"] == param_bytes
    assert now["gradients"] == param_bytes
    assert now["optimizer_state"] == sum(rnd(n) for n in _torch_adam_state_bytes(device))
    assert now["saved_for_backward"] == 0           # released by the backward
    # what else is alive: x (8x20 fp32), y (8 int64) and the 0-dim loss
    assert now["other"] == rnd(8 * 20 * 4) + rnd(8 * 8) + rnd(4)
    assert sum(now.values()) == mg.memory.memory_allocated(device) == m.current
    assert m.peak >= sum(now.values()) and m.peak == sum(m.by_category("peak").values())
    assert "saved_for_backward" in m.report()


def test_saved_for_backward_bytes_of_a_small_graph():
    w = mg.randn(16, 16, requires_grad=True)
    x = mg.randn(4, 16)
    with mg.memory.track("cpu") as m:
        h = mg.tanh(x @ w)            # mm saves x and w (w a parameter), tanh its result
        loss = (h * h).sum()          # mul saves h twice: counted once
        during = m.by_category("now")
        assert during["parameters"] == 16 * 16 * 4
        assert during["saved_for_backward"] == 4 * 16 * 4 * 2      # x and h
        assert m.max_saved == 4 * 16 * 4 * 2
        loss.backward()
        after = m.by_category("now")
    assert after["saved_for_backward"] == 0
    assert after["gradients"] == 16 * 16 * 4
    del h, loss


def test_cpu_figures_count_views_once_free_on_del_and_reset_peak():
    gc.collect()
    with mg.memory.track("cpu"):
        start = mg.memory.memory_allocated("cpu")
        a = mg.zeros(100, dtype=mg.float16)           # 200 bytes, unrounded on the cpu
        v, d = a[10:], a.detach()
        assert mg.memory.memory_allocated("cpu") - start == 200
        b = a.to(mg.bfloat16) * 2                     # a bf16 copy and its product
        assert mg.memory.memory_allocated("cpu") - start == 400
        del a, v, d
        assert mg.memory.memory_allocated("cpu") - start == 200
        assert mg.memory.max_memory_allocated("cpu") - start >= 600
        mg.memory.reset_peak_memory_stats("cpu")
        assert mg.memory.max_memory_allocated("cpu") == mg.memory.memory_allocated("cpu")
        assert mg.memory.memory_reserved("cpu") == mg.memory.memory_allocated("cpu")
        assert mg.memory.memory_stats("cpu")["requested_bytes.all.current"] == \
            mg.memory.memory_allocated("cpu")
        del b
    assert not mg.memory.cpu_accounting_enabled()


def test_memory_figures_of_cuda_match_minigrad_cuda():
    keep = mg.ones(7, device="cuda")
    assert mg.memory.memory_allocated("cuda") == mg.cuda.memory_allocated()
    assert mg.memory.memory_stats("cuda") == mg.cuda.memory_stats()
    with pytest.raises(ValueError):
        mg.memory.track("meta")
    with pytest.raises(ValueError):
        mg.memory.track("cpu").by_category("later")
    del keep


def _activation_heavy_step(offload):
    """A deep, narrow MLP on a large batch (activations dominate); returns the tracker."""
    mg.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(16, 16), nn.ReLU())]).cuda()
    x = mg.randn(2048, 16, device="cuda")
    with mg.memory.track("cuda") as m:
        with save_on_cpu() if offload else contextlib.nullcontext():
            loss = model(x).sum()
        after_forward = mg.cuda.memory_allocated()
        loss.backward()
    return m, after_forward


def test_save_on_cpu_lowers_peak_cuda_memory():
    gc.collect()
    plain, fwd_plain = _activation_heavy_step(False)
    off, fwd_off = _activation_heavy_step(True)
    act = round_size(2048 * 16 * 4)                   # one saved activation
    # x and the 4 relu outputs (each also the next linear's saved input): 5 storages
    assert plain.max_saved == 5 * act
    assert off.max_saved == 0                         # they went to the cpu device
    assert fwd_plain - fwd_off == 4 * act             # x stays (the test holds it)
    assert off.peak < plain.peak


def test_checkpoint_inputs_and_recomputed_tensors_count_as_saved():
    """What a non-reentrant checkpoint keeps is saved for backward: its frame's saved input in
    the forward, and in backward the rerun's saved tensors until they are used."""
    from minigrad.utils.checkpoint import checkpoint
    w = mg.randn(16, 16, requires_grad=True)
    x = mg.randn(4, 16)
    row = 4 * 16 * 4                   # one 4x16 fp32 activation: 256 bytes

    def f(a):
        return mg.tanh(a @ w)          # mm saves a (and the parameter w), tanh its output

    with mg.memory.track("cpu") as m:
        h = x + 1                      # add saves nothing: h is kept by the checkpoint only
        out = checkpoint(f, h, use_reentrant=False)
        loss = out.sum()               # sum saves nothing
        fwd = m.by_category("now")
        assert fwd["saved_for_backward"] == row          # h, not a or tanh's output
        assert fwd["parameters"] == 16 * 16 * 4
        assert m.max_saved == row
        loss.backward()
        after = m.by_category("now")
    # the rerun: h (a is h) and tanh's recomputed output, at once
    assert m.max_saved == 2 * row
    assert after["saved_for_backward"] == 0
    assert after["gradients"] == 16 * 16 * 4
    del h, out, loss


def test_checkpoint_sequential_saved_bytes_on_cuda():
    """checkpoint_sequential on the emulated cuda device: the segment inputs are saved (512-byte
    blocks), the last segment's activations as without checkpointing."""
    from minigrad.utils.checkpoint import checkpoint_sequential
    gc.collect()
    mg.manual_seed(0)
    layers = [m for _ in range(4) for m in (nn.Linear(32, 32), nn.ReLU())]
    model = nn.Sequential(*layers).cuda()
    x = mg.randn(64, 32, device="cuda")
    act = round_size(64 * 32 * 4)                     # 8 KiB per activation
    with mg.memory.track("cuda") as m:
        loss = checkpoint_sequential(model, 2, x, use_reentrant=False).sum()
        # segment 1 (layers 0-3, checkpointed) keeps its input x; segment 2 runs plainly:
        # linear 4 saves its input (segment 1's output), relu 5 its output (linear 6's input),
        # relu 7 its output
        assert m.by_category("now")["saved_for_backward"] == 4 * act
        loss.backward()
    # the forward's 4 is the most: segment 1's rerun keeps x, relu 1's and relu 3's outputs (3),
    # segment 2's tensors being released by then
    assert m.max_saved == 4 * act
    assert m.by_category("now")["saved_for_backward"] == 0
    del loss
