"""``amp_emu.fp8``: float8 gemms with per-tensor delayed scaling (TE's ``DelayedScaling``).

Expected values come from the recipe's definition (recomputed here in NumPy, independently of
the kernel) and from ``torch._scaled_mm`` on the same float8 operands and scales."""
from __future__ import annotations

import numpy as np
from tests.torch_platform import TORCH_ONEDNN_FP8
import pytest

import minigrad as mg
from amp_emu import autocast
from amp_emu.fp8 import DelayedScaling, Format, fp8_autocast, is_fp8_enabled
from minigrad.dispatch import DispatchMode, dispatch

F32 = np.float32


def _amax(x):
    return F32(np.max(np.abs(np.asarray(x, F32))))


class _Reference:
    """The recipe's definition for one tensor role: the history of past amaxes, the window of
    the last ``L`` of them, ``scale = float32(fp8_max * 2**-margin) / amax``; an amax of 0
    leaves everything as it was; a non-finite or zero chosen amax keeps the scale."""

    def __init__(self, length, margin, algo, fp8_max=448.0):
        self.L, self.algo = length, algo
        self.scaled_max = F32(fp8_max) * F32(2.0 ** -margin)
        self.past = []          # amaxes of the steps that updated, oldest first
        self.scale = F32(1.0)

    def step(self, amax):
        if amax == 0:
            return
        window = (self.past + [amax])[-self.L:]
        chosen = amax if self.algo == "most_recent" else F32(max(window))
        self.past.append(amax)
        if np.isfinite(chosen) and chosen > 0:
            self.scale = F32(self.scaled_max / chosen)

    def history(self):
        """The history as TE lays it out after the update: a 0 (the next step's slot), then the
        last ``L - 1`` amaxes, oldest first (zeros where there were fewer steps)."""
        kept = self.past[-(self.L - 1):] if self.L > 1 else []
        return [0.0] + [0.0] * (self.L - 1 - len(kept)) + [float(a) for a in kept]


@pytest.mark.parametrize("algo,length,margin", [("max", 3, 1), ("most_recent", 2, 0),
                                                ("max", 1, 2)])
def test_scales_and_histories_follow_the_definition(algo, length, margin):
    mg.manual_seed(0)
    lin = mg.nn.Linear(6, 3)
    recipe = DelayedScaling(margin=margin, amax_history_len=length, amax_compute_algo=algo)
    ref_x = _Reference(length, margin, algo)
    ref_w = _Reference(length, margin, algo)
    ref_g = _Reference(length, margin, algo, fp8_max=57344.0)
    rng = np.random.default_rng(1)
    for factor in (1.0, 8.0, 0.25, 0.5, 3.0):
        x = (rng.standard_normal((4, 6)) * factor).astype(F32)
        with fp8_autocast(fp8_recipe=recipe):
            y = lin(mg.tensor(x))
        ref_x.step(_amax(x))
        ref_w.step(_amax(lin.weight.detach().numpy()))
        meta = recipe.fp8_meta[0]
        for m, ref in ((meta.input, ref_x), (meta.weight, ref_w)):
            assert m.scale.item() == ref.scale
            assert m.scale_inv.item() == F32(1) / ref.scale
            assert m.amax_history.tolist() == ref.history()
        g = (rng.standard_normal((4, 3)) * factor * 100).astype(F32)
        y.backward(mg.tensor(g))
        assert meta.grad_output.amax_history.tolist()[0] == _amax(g)   # recorded in backward
        with fp8_autocast(fp8_recipe=recipe):   # the gradient's scale moves at the next entry
            pass
        ref_g.step(_amax(g))
        assert meta.grad_output.scale.item() == ref_g.scale
        assert meta.grad_output.amax_history.tolist() == ref_g.history()
    assert len(recipe.fp8_meta) == 1 and meta.op == "linear"


def _cast(torch, x, scale, dtype, fp8_max):
    """TE's cast: float32(x) * scale, saturated to the format's range, then to float8."""
    return (x.float() * scale).clamp(-fp8_max, fp8_max).to(dtype)


def test_forward_and_backward_equal_torch_scaled_mm_on_the_same_operands():
    torch = pytest.importorskip("torch")
    mg.manual_seed(2)
    lin = mg.nn.Linear(16, 8)
    recipe = DelayedScaling(amax_history_len=4)
    x1, x2 = mg.randn(5, 16), mg.randn(5, 16) * 3
    with fp8_autocast(fp8_recipe=recipe):
        lin(x1).sum().backward()                  # one step: the scales move from 1
    meta = recipe.fp8_meta[0]
    for out_dtype, tdt in ((None, torch.float32), (mg.bfloat16, torch.bfloat16)):
        sx = torch.tensor(meta.input.scale.item())      # the scales this region casts with
        sw = torch.tensor(meta.weight.scale.item())
        # autocast outside: the gemm casts the float32 operands, its output is autocast's dtype
        with autocast("cpu", dtype=out_dtype or mg.bfloat16, enabled=out_dtype is not None):
            with fp8_autocast(fp8_recipe=recipe, enabled=True):
                y = lin(x2)
        tx, tw, tb = (torch.from_numpy(t.detach().numpy()) for t in (x2, lin.weight, lin.bias))
        x8 = _cast(torch, tx, sx, torch.float8_e4m3fn, 448)
        w8 = _cast(torch, tw, sw, torch.float8_e4m3fn, 448)
        want = torch._scaled_mm(x8, w8.t(), 1 / sx, 1 / sw, bias=tb, out_dtype=tdt)
        assert y.dtype is (out_dtype or mg.float32)
        got, want = y.detach().float().numpy(), want.float().numpy()
        if TORCH_ONEDNN_FP8:        # oneDNN's float8 gemm: reproduced bit for bit
            assert np.array_equal(got, want)
        else:       # ATen's emulated path: an fp32 mm, whose summation order may differ
            rtol = 2.0 ** -7 if out_dtype is not None else 1e-6     # (one bf16 ulp)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * abs(want).max())
    # backward of the float32 step: the gradient cast to e5m2 with its own scale
    with fp8_autocast(fp8_recipe=recipe):
        sx = torch.tensor(meta.input.scale.item())
        sw = torch.tensor(meta.weight.scale.item())
        xr = x2.detach().requires_grad_()
        y = lin(xr)
    g = mg.randn(5, 8) * 0.01
    sg = torch.tensor(meta.grad_output.scale.item())
    lin.weight.grad = lin.bias.grad = None
    y.backward(g)
    tg = torch.from_numpy(g.numpy())
    g8 = _cast(torch, tg, sg, torch.float8_e5m2, 57344)
    x8 = _cast(torch, torch.from_numpy(x2.numpy()), sx, torch.float8_e4m3fn, 448)
    w8 = _cast(torch, torch.from_numpy(lin.weight.detach().numpy()), sw, torch.float8_e4m3fn,
               448)
    dx = torch._scaled_mm(g8, w8, 1 / sg, 1 / sw, out_dtype=torch.float32)
    dw = torch._scaled_mm(g8.t(), x8, 1 / sg, 1 / sx, out_dtype=torch.float32)
    # the mixed-format product is ATen's fp32 mm: summation order may differ in the last bit
    for got, want in ((xr.grad, dx), (lin.weight.grad, dw), (lin.bias.grad, tg.sum(0))):
        want = want.numpy()
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6 * abs(want).max())


@pytest.mark.parametrize("op", ["mm", "matmul", "addmm", "matmul3d"])
def test_every_gemm_op_takes_the_fp8_path(op):
    torch = pytest.importorskip("torch")
    mg.manual_seed(3)
    a, b, bias = mg.randn(4, 8), mg.randn(8, 3), mg.randn(3)
    recipe = DelayedScaling()
    with fp8_autocast(fp8_recipe=recipe):
        y = {"mm": lambda: mg.mm(a, b), "matmul": lambda: a @ b,
             "addmm": lambda: mg.addmm(bias, a, b),
             "matmul3d": lambda: mg.matmul(a.reshape(2, 2, 8), b)}[op]()
    assert recipe.fp8_meta[0].op == op.replace("3d", "")
    one = torch.tensor(1.0)             # first step: every scale is 1
    ta, tb = torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy())
    want = torch._scaled_mm(_cast(torch, ta, one, torch.float8_e4m3fn, 448),
                            _cast(torch, tb, one, torch.float8_e4m3fn, 448), one, one,
                            bias=torch.from_numpy(bias.numpy()) if op == "addmm" else None,
                            out_dtype=torch.float32)
    assert np.array_equal(y.numpy().reshape(4, 3), want.numpy())


def _mlp():
    return mg.nn.Sequential(mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Linear(16, 1))


def test_a_tiny_mlp_learns_under_fp8_and_its_scales_follow_the_histories():
    mg.manual_seed(4)
    model = _mlp()
    opt = mg.optim.SGD(model.parameters(), lr=0.05)
    x = mg.randn(32, 4)
    target = (x[:, :1] * 2 - x[:, 1:2]).detach()
    recipe = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=64)
    losses = []
    for _ in range(30):
        with fp8_autocast(fp8_recipe=recipe):
            loss = mg.nn.functional.mse_loss(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        for site in recipe.fp8_meta:      # scale = 448 / max(history): nothing left the window
            for m in (site.input, site.weight):
                assert m.scale.item() == F32(F32(448) / F32(max(m.amax_history.tolist())))
    assert losses[-1] < 0.25 * losses[0]
    assert len(recipe.fp8_meta) == 2
    w_hist = recipe.fp8_meta[0].weight.amax_history.tolist()
    assert len(set(w_hist[-29:])) > 1         # the weights' amax moved as SGD changed them
    g = recipe.fp8_meta[1].grad_output
    assert g.fp8_dtype is mg.float8_e5m2 and g.scale.item() != 1.0


def test_update_kernel_amax_zero_inf_nan_and_tiny():
    def run(hist, scale=2.0, algo="max", margin=0, fp8_max=448.0):
        h, s, si = mg.tensor(hist), mg.tensor([scale]), mg.tensor([1 / scale])
        dispatch("_fp8_amax_and_scale_update_", h, s, si, fp8_max, margin, algo)
        return h.tolist(), s.item(), si.item()

    # amax 0 this step: nothing rolls, the scale stays
    assert run([0.0, 3.0, 5.0]) == ([0.0, 3.0, 5.0], 2.0, 0.5)
    # a normal step: roll, max over the window
    assert run([4.0, 3.0, 7.0]) == ([0.0, 7.0, 4.0], float(F32(448) / F32(7)),
                                    float(F32(1) / (F32(448) / F32(7))))
    assert run([4.0, 3.0, 7.0], algo="most_recent")[1] == 112.0
    # inf: the chosen amax is not finite, the scale stays (the history keeps the inf)
    assert run([np.inf, 1.0]) == ([0.0, np.inf], 2.0, 0.5)
    # NaN: ignored by "max" (fmax), keeps the scale under "most_recent"
    h, s, _ = run([np.nan, 2.0, 4.0])
    assert s == 112.0 and h[0] == 0 and np.isnan(h[2])
    assert run([np.nan, 2.0], algo="most_recent")[1] == 2.0
    # a tiny amax whose scale overflows float32: float32's max
    assert run([1e-38])[1] == float(np.finfo(F32).max)
    # margin: two binades of headroom; history of length 1
    assert run([7.0], margin=2) == ([0.0], 16.0, 0.0625)
    with pytest.raises(RuntimeError, match=r"Unsupported amax compute algorithm \(mean\)"):
        run([1.0], algo="mean")
    with pytest.raises(RuntimeError, match="1-D float32"):
        dispatch("_fp8_amax_and_scale_update_", mg.zeros(2, dtype=mg.float64), mg.ones(1),
                 mg.ones(1), 448.0, 0, "max")


def test_zero_input_keeps_the_scale_and_overflow_saturates():
    recipe = DelayedScaling(amax_history_len=8)
    w = mg.randn(3, 4)
    with fp8_autocast(fp8_recipe=recipe):
        mg.nn.functional.linear(mg.ones(2, 4), w)
    meta = recipe.fp8_meta[0]
    assert meta.input.scale.item() == 448.0
    with fp8_autocast(fp8_recipe=recipe):
        y0 = mg.nn.functional.linear(mg.zeros(2, 4), w)
    assert meta.input.scale.item() == 448.0 and y0.tolist() == [[0.0] * 3] * 2
    assert meta.input.amax_history.tolist() == [0.0] * 7 + [1.0]     # no roll for amax 0
    si, swi, sw = meta.input.scale_inv, meta.weight.scale_inv.clone(), meta.weight.scale.item()
    assert si.item() == F32(1) / F32(448)
    with fp8_autocast(fp8_recipe=recipe):   # 1000x the history's amax: saturates at 448
        y = mg.nn.functional.linear(mg.full((2, 4), 1000.0), w)
    # every input element became 448 (dequantized: 1.0, not 1000): finite, never NaN
    x8 = mg.full((2, 4), 448.0).to(mg.float8_e4m3fn)
    w8 = (w * sw).clamp(-448, 448).to(mg.float8_e4m3fn)
    want = mg._scaled_mm(x8, w8.t(), mg.tensor(F32(1) / F32(448)), swi, out_dtype=mg.float32)
    assert y.tolist() == want.tolist() and np.isfinite(y.numpy()).all()
    assert meta.input.scale.item() == F32(F32(448) / F32(1000))


def test_an_empty_batch_runs_and_records_no_amax():
    # a batch of 0 rows: F.linear's (0, 3) result and zero gradients, as PyTorch's; no amax to
    # record for the input and the gradient (like an amax of 0: their
    # histories and scales stay)
    import torch
    recipe = DelayedScaling(amax_history_len=4)
    w = mg.randn(3, 4, requires_grad=True)
    x = mg.zeros(0, 4, requires_grad=True)
    with fp8_autocast(fp8_recipe=recipe):
        y = mg.nn.functional.linear(x, w)
    y.sum().backward()
    tw = torch.zeros(3, 4, requires_grad=True)
    ty = torch.nn.functional.linear(torch.zeros(0, 4), tw)
    ty.sum().backward()
    assert tuple(y.shape) == tuple(ty.shape) and w.grad.tolist() == tw.grad.tolist()
    with fp8_autocast(fp8_recipe=recipe):
        pass
    meta = recipe.fp8_meta[0]
    for m in (meta.input, meta.grad_output):        # the weight's amax is recorded
        assert m.amax_history.tolist() == [0.0] * 4 and m.scale.item() == 1.0


def test_modes_see_the_casts_and_the_scaled_gemms():
    seen = []

    class Record(DispatchMode):
        def __minigrad_dispatch__(self, op, args, kwargs, call_next):
            seen.append(op)
            return call_next(args, kwargs)

    lin = mg.nn.Linear(4, 2)
    x = mg.randn(3, 4, requires_grad=True)
    recipe = DelayedScaling()
    with Record():
        with fp8_autocast(fp8_recipe=recipe):
            assert is_fp8_enabled()
            y = lin(x)
        y.sum().backward()
    assert not is_fp8_enabled()
    assert "linear" not in seen and "_fp8_gemm" in seen
    assert seen.count("_scaled_mm") == 3                  # forward, grad_input, grad_weight
    assert seen.count("_fp8_amax_and_scale_update_") == 2  # input and weight, at the exit
    assert "clamp" in seen and "amax" in seen and "_to_copy" in seen


def test_inference_and_disabled_regions():
    mg.manual_seed(5)
    lin = mg.nn.Linear(4, 2)
    x = mg.randn(3, 4)
    recipe = DelayedScaling(amax_history_len=4)
    with mg.no_grad(), fp8_autocast(fp8_recipe=recipe):
        y = lin(x)
    meta = recipe.fp8_meta[0]
    assert meta.input.amax_history.tolist() == [0.0] * 4 and meta.input.scale.item() == 1.0
    assert y.grad_fn is None
    with fp8_autocast(enabled=False, fp8_recipe=recipe):
        z = lin(x)
    assert z.tolist() == lin(x).tolist() and len(recipe.fp8_meta) == 1
    recipe.reset()
    assert recipe.fp8_meta == []


def test_recipe_errors():
    with pytest.raises(ValueError, match="Pure E5M2 training is not supported."):
        DelayedScaling(fp8_format=Format.E5M2)
    with pytest.raises(TypeError, match="Format"):
        DelayedScaling(fp8_format="HYBRID")
    with pytest.raises(ValueError, match="at least 1"):
        DelayedScaling(amax_history_len=0)
    with pytest.raises(TypeError, match="amax_history_len must be an int"):
        DelayedScaling(amax_history_len=2.0)
    with pytest.raises(ValueError, match="'max' or 'most_recent'"):
        DelayedScaling(amax_compute_algo="mean")
    with pytest.raises(ValueError, match="callable"):
        DelayedScaling(amax_compute_algo=lambda h: h.max())
    with pytest.raises(ValueError, match="scaling_factor_compute_algo"):
        DelayedScaling(scaling_factor_compute_algo=lambda *a: a[1])
    with pytest.raises(ValueError, match="finite"):
        DelayedScaling(margin=float("inf"))
    with pytest.raises(TypeError, match="fp8_recipe must be"):
        fp8_autocast(fp8_recipe="hybrid")
    assert Format.HYBRID.fwd_dtype is mg.float8_e4m3fn
    assert Format.HYBRID.bwd_dtype is mg.float8_e5m2 and Format.E4M3.bwd_dtype is \
        mg.float8_e4m3fn
    r = DelayedScaling()
    assert (r.margin, r.fp8_format, r.amax_history_len, r.amax_compute_algo) == \
        (0, Format.HYBRID, 1024, "max")


def test_the_state_never_joins_a_graph():
    lin = mg.nn.Linear(4, 2)
    x = mg.randn(3, 4, requires_grad=True)
    recipe = DelayedScaling(amax_history_len=2)
    with fp8_autocast(fp8_recipe=recipe):
        y = lin(x)
    (gx,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    meta = recipe.fp8_meta[0]
    assert gx.shape == x.shape and meta.grad_output.amax_history.tolist() == [1.0, 0.0]
    for m in (meta.input, meta.weight, meta.grad_output):
        assert not any(t.requires_grad for t in (m.amax_history, m.scale, m.scale_inv))


def test_nested_regions_number_call_sites_per_recipe():
    a, b = DelayedScaling(amax_history_len=2), DelayedScaling(amax_history_len=2)
    w = mg.randn(3, 4)
    with fp8_autocast(fp8_recipe=a):
        mg.nn.functional.linear(mg.randn(2, 4), w)
        with fp8_autocast(fp8_recipe=b):
            mg.nn.functional.linear(mg.randn(2, 4), w)
            with fp8_autocast(enabled=False, fp8_recipe=a):
                plain = mg.nn.functional.linear(mg.ones(2, 4), w)
        mg.nn.functional.linear(mg.randn(2, 4), w)
    assert len(a.fp8_meta) == 2 and len(b.fp8_meta) == 1
    assert plain.grad_fn is None or plain.grad_fn.name() != "Fp8GemmBackward"
    for site in a.fp8_meta + b.fp8_meta:        # every site's forward scales moved at the exit
        assert site.input.scale.item() != 1.0 and site.weight.scale.item() != 1.0


def test_e4m3_format_casts_gradients_to_e4m3fn_too():
    torch = pytest.importorskip("torch")
    mg.manual_seed(6)
    lin = mg.nn.Linear(8, 4, bias=False)
    recipe = DelayedScaling(fp8_format=Format.E4M3)
    x = mg.randn(6, 8, requires_grad=True)
    with fp8_autocast(fp8_recipe=recipe):
        y = lin(x)
    g = mg.randn(6, 4)
    y.backward(g)
    meta = recipe.fp8_meta[0]
    assert meta.grad_output.fp8_dtype is mg.float8_e4m3fn
    one = torch.tensor(1.0)
    g8 = _cast(torch, torch.from_numpy(g.numpy()), one, torch.float8_e4m3fn, 448)
    w8 = _cast(torch, torch.from_numpy(lin.weight.detach().numpy()), one,
               torch.float8_e4m3fn, 448)
    x8 = _cast(torch, torch.from_numpy(x.detach().numpy()), one, torch.float8_e4m3fn, 448)
    # one float8 dtype: oneDNN's path, reproduced bit for bit by minigrad's _scaled_mm
    dx = torch._scaled_mm(g8, w8, one, one, out_dtype=torch.float32)
    dw = torch._scaled_mm(g8.t(), x8, one, one, out_dtype=torch.float32)
    assert np.array_equal(x.grad.numpy(), dx.numpy())
    assert np.array_equal(lin.weight.grad.numpy(), dw.numpy())


def test_fp8_as_an_autocast_target_in_a_user_policy():
    """``autocast(..., policy=Fp8Policy(...))`` runs the same steps as autocast around
    fp8_autocast by hand: the same outputs, gradients and scale histories."""
    from amp_emu.fp8 import Fp8Policy

    def run(by_policy):
        mg.manual_seed(0)
        lin = mg.nn.Linear(8, 4)
        x = mg.randn(6, 8)
        recipe = DelayedScaling(amax_history_len=4)
        outs = []
        for _ in range(3):
            if by_policy:
                with autocast("cpu", dtype=mg.bfloat16, policy=Fp8Policy("cpu", recipe)):
                    assert is_fp8_enabled()
                    y = lin(x)
            else:
                with autocast("cpu", dtype=mg.bfloat16), fp8_autocast(fp8_recipe=recipe):
                    y = lin(x)
            assert not is_fp8_enabled()
            y.float().sum().backward()
            outs.append((y.detach().float().numpy().copy(), lin.weight.grad.numpy().copy()))
            lin.weight.grad = None
        return outs, recipe.fp8_meta[0].weight.amax_history.numpy().copy(), y.dtype

    (a, ha, da), (b, hb, db) = run(True), run(False)
    assert da is db is mg.bfloat16
    assert np.array_equal(ha, hb) and ha[1:].min() > 0    # three steps recorded (rolled)
    for (ya, ga), (yb, gb) in zip(a, b):
        assert np.array_equal(ya, yb) and np.array_equal(ga, gb)
    p = Fp8Policy("cpu")
    assert p.copy().fp8_recipe is p.fp8_recipe and type(p.copy()) is Fp8Policy
    with pytest.raises(TypeError, match="DelayedScaling"):
        Fp8Policy("cpu", fp8_recipe="hybrid")
    with autocast("cpu", dtype=mg.bfloat16, policy=p, enabled=False):
        assert not is_fp8_enabled()       # a disabled region enters no fp8 region either
