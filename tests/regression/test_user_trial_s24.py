"""Found by session 24's new-user trial; each against torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def test_unbind_of_a_vector_gives_views_that_write_through():
    for lib in (torch, mg):
        a = lib.zeros(4)
        u = a.unbind()
        u[1].fill_(3)
        b = lib.zeros(3)
        v = b.unbind()
        b.fill_(5)
        if lib is torch:
            want = (a.tolist(), v[0].item())
        else:
            got = (a.tolist(), v[0].item())
    assert got == want == ([0.0, 3.0, 0.0, 0.0], 5.0)


@pytest.mark.parametrize("make", [
    lambda L, t: L.tensor([1, 2], dtype=t), lambda L, t: L.zeros(2, dtype=t),
    lambda L, t: L.arange(3, dtype=t), lambda L, t: L.ones(2).to(t),
    lambda L, t: L.ones(2).to("cpu", t), lambda L, t: L.ones(2).to(dtype=t),
    lambda L, t: L.ones(2).sum(dtype=t), lambda L, t: L.ones(2).new_zeros(2, dtype=t)])
@pytest.mark.parametrize("pytype", [float, int, bool])
def test_python_types_as_dtypes(make, pytype):
    """float is float64 (whatever the default dtype), int int64, bool bool, as in torch."""
    try:
        want = str(make(torch, pytype).dtype).replace("torch.", "")
    except (TypeError, RuntimeError) as e:
        with pytest.raises(type(e)):
            make(mg, pytype)
        return
    assert make(mg, pytype).dtype.name == want


def test_python_float_is_float64_under_a_float64_default_too():
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.zeros(1, dtype=float).dtype is mg.float64
    finally:
        mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("how", ["grad", "backward", "autograd.backward"])
def test_autograd_takes_generators_of_inputs(how):
    """autograd.grad(loss, model.parameters()), backward(inputs=model.parameters())."""
    res = {}
    for lib in (torch, mg):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
            m.bias.fill_(0.25)
        loss = (m(lib.ones(1, 3)) ** 2).sum()
        if how == "grad":
            gs = lib.autograd.grad((x for x in [loss]), m.parameters())
        elif how == "backward":
            loss.backward(inputs=m.parameters())
            gs = (m.weight.grad, m.bias.grad)
        else:
            lib.autograd.backward(loss, inputs=m.parameters())
            gs = (m.weight.grad, m.bias.grad)
        res[lib.__name__] = [g.tolist() for g in gs]
    assert res["minigrad"] == res["torch"]


@pytest.mark.parametrize("call", [
    lambda L, x: L.max(x, dim=L.tensor(1)), lambda L, x: x.max(dim=L.tensor(1)),
    lambda L, x: x.min(dim=L.tensor(0), keepdim=True), lambda L, x: L.max(x, dim=np.int64(1)),
    lambda L, x: L.min(x, np.int64(1)), lambda L, x: x.cumsum(L.tensor(1)),
    lambda L, x: x.mean(dim=L.tensor(0)), lambda L, x: x.max(L.tensor(2.0)),
    lambda L, x: L.max(x, other=x + 1), lambda L, x: x.max(1, True)])
def test_dims_given_as_index_objects(call):
    """A 0-dim integer tensor or a NumPy int as ``dim`` is an int (PyTorch's parser); a Tensor
    given positionally to max/min is ``other``."""
    xt, xm = torch.arange(6.0).view(2, 3), mg.arange(6.0).view(2, 3)
    want, got = call(torch, xt), call(mg, xm)
    if isinstance(want, tuple):
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
    else:
        assert got.tolist() == want.tolist()


def test_float_dim_tensor_refused():
    with pytest.raises(TypeError):
        torch.arange(6.0).view(2, 3).max(dim=torch.tensor(1.0))
    with pytest.raises(TypeError):
        mg.arange(6.0).view(2, 3).max(dim=mg.tensor(1.0))


def test_run_gives_the_script_an_absolute_file(tmp_path, monkeypatch):
    script = tmp_path / "f.py"
    out = tmp_path / "out.txt"
    script.write_text(f"open({str(out)!r}, 'w').write(__file__)\n")
    monkeypatch.chdir(tmp_path)
    import sys
    from minigrad.run import run_script
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    run_script("f.py")
    assert out.read_text() == str(script)


def test_grad_scaler_silent_on_skips_without_a_monitor(monkeypatch):
    """torch's GradScaler never warns about skipped steps; ours only inside a NumericsMonitor."""
    import warnings
    from amp_emu import GradScaler
    monkeypatch.setattr(GradScaler, "skip_warning_steps", 2)
    p = mg.nn.Parameter(mg.ones(2))
    opt = mg.optim.SGD([p], lr=0.1)
    scaler = GradScaler("cpu")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(4):
            opt.zero_grad()
            scaler.scale((p * float("inf")).sum()).backward()
            scaler.step(opt)
            scaler.update()
    assert scaler.get_scale() == 65536.0 * 0.5 ** 4
    assert not [m for m in w if "consecutive" in str(m.message)]


def test_fp16_cumsum_clean_under_warnings_as_errors():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mg.full((5000,), 0.1, dtype=mg.float16).cumsum(0)
    want = torch.full((5000,), 0.1, dtype=torch.float16).cumsum(0)
    assert np.array_equal(got.float().numpy(), want.float().numpy())


def test_create_graph_backward_warns_once_about_the_cycle(monkeypatch):
    import sys
    import warnings
    monkeypatch.setattr(sys.modules["minigrad.autograd.engine"], "_CYCLE_WARNED", [False])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        p = mg.zeros(2, requires_grad=True)
        (p * 2).sum().backward(create_graph=True)
        (p * 2).sum().backward(create_graph=True)
        mg.autograd.grad((p * 3).sum(), p, create_graph=True)
    msgs = [str(m.message) for m in w if "reference cycle" in str(m.message)]
    assert len(msgs) == 1 and msgs[0].startswith("Using backward() with create_graph=True")


def test_cosine_similarity_gradient_through_a_norm_below_eps():
    """PyTorch clamps clones of the norms in place under no_grad: a norm below eps still passes
    its gradient (catalogue draw: x2 = 2.66e-9, grad 7.34e7 where a clamp node gave 1e8)."""
    got = []
    for L in (torch, mg):
        a = L.tensor([1.0], requires_grad=True)
        b = L.tensor([2.65982369e-09], requires_grad=True)
        y = L.nn.functional.cosine_similarity(a, b, dim=0)
        y.backward()
        got.append((y.item(), a.grad.item(), b.grad.item(), type(y.grad_fn).__name__))
    assert got[0] == got[1]


def test_ema_averaged_model_with_buffers_and_batch_norm():
    """get_ema_multi_avg_fn + use_buffers=True: the int64 num_batches_tracked gets its own
    (device, dtype) group, as torch's update_parameters groups them (it crashed)."""
    import optim
    out = []
    for L, SW in ((torch, torch.optim.swa_utils), (mg, optim.swa_utils)):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))
        m(L.randn(4, 2))
        ema = SW.AveragedModel(m, multi_avg_fn=SW.get_ema_multi_avg_fn(0.9), use_buffers=True)
        for _ in range(3):
            m(L.randn(4, 2))
            ema.update_parameters(m)
        bufs = list(ema.module.buffers())
        out.append((bufs[2].item(), bufs[2].dtype == L.int64,
                    [round(v, 5) for v in bufs[0].tolist()]))
    assert out[0] == out[1]


def test_legacy_torch_checkpoint_refused_not_misread():
    """PyTorch's pre-1.6 format starts with a magic number; it used to load as that integer."""
    import io
    buf = io.BytesIO()
    torch.save({"a": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        buf.seek(0)
        with pytest.raises(RuntimeError, match="legacy"):
            mg.load(buf, weights_only=weights_only)


def test_diff_contract_scales_with_the_inner_dimension():
    """An fp32 matmul's rounding grows with its K terms per output: a 300x300 @ 300x300 result
    that differs from torch's by summation order is within the contract (it was flagged)."""
    import subprocess
    import sys
    import tempfile
    import os
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "mm.py")
        with open(script, "w") as f:
            f.write("import torch\ntorch.manual_seed(0)\nx = torch.randn(300, 300)\n"
                    "print(float((x @ x).sum()))\n")
        r = subprocess.run([sys.executable, "-m", "minigrad.diff", script], capture_output=True,
                           text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "no divergence" in r.stdout


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "complex64"])
def test_checkpoint_with_a_dtype_minigrad_lacks_names_it(dtype):
    import io
    buf = io.BytesIO()
    torch.save({"a": torch.ones(2, dtype=getattr(torch, dtype))}, buf)
    for weights_only in (True, False):
        buf.seek(0)
        with pytest.raises(RuntimeError, match="minigrad has no such dtype"):
            mg.load(buf, weights_only=weights_only)


def test_map_location_torch_device_and_bad_values_as_torch():
    import io
    buf = io.BytesIO()
    torch.save({"h": torch.ones(2)}, buf)
    buf.seek(0)
    assert mg.load(buf, map_location=torch.device("cuda"))["h"].device.type == "cuda"
    buf.seek(0)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        mg.load(buf, map_location=123)
    buf.seek(0)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        torch.load(buf, map_location=123)
