"""bench/run.py's NumPy floors are correct implementations, not strawmen: on one tiny step of each
workload they compute minigrad's loss and gradients (the expected values come from minigrad's
general path, started from the floor's own weights), and the runner's --quick smoke works.
No timings are asserted."""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import amp_emu
import minigrad
import optim

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
sys.path.append(BENCH)  # after everything else: its module names never shadow the suite's
import fw_floor  # noqa: E402
import fw_numpylike  # noqa: E402
from fw_torchlike import Torchlike  # noqa: E402

SIZES, BATCH = (6, 8, 5, 3), 4


def _mg_mlp(params):
    layers = []
    for i, (W, b) in enumerate(params):
        lin = minigrad.nn.Linear(W.shape[1], W.shape[0])
        with minigrad.no_grad():
            lin.weight.copy_(minigrad.tensor(W))
            lin.bias.copy_(minigrad.tensor(b))
        layers += [lin, minigrad.nn.ReLU()] if i < len(params) - 1 else [lin]
    return minigrad.nn.Sequential(*layers)


def _grads(model):
    return [(lin.weight.grad.numpy(), lin.bias.grad.numpy())
            for lin in model if isinstance(lin, minigrad.nn.Linear)]


def test_tape_chain_matches_minigrad():
    floor = fw_floor.Floor()
    out = floor.builders["chain_fwd"]("chain_fwd", n=5)()()
    grad = floor.builders["chain_fwd_bwd"]("chain_fwd_bwd", n=5)()()
    rng = np.random.default_rng(0)  # the floor's inputs
    a0, b0 = (rng.standard_normal((4, 4), dtype=np.float32) for _ in range(2))
    a = minigrad.tensor(a0, requires_grad=True)
    b = minigrad.tensor(b0, requires_grad=True)
    x = a
    for _ in range(5):
        x = x + b
    x.sum().backward()
    np.testing.assert_array_equal(out.value, x.detach().numpy())
    np.testing.assert_array_equal(grad, a.grad.numpy())
    with fw_floor.no_grad():
        fw_floor.Var(a0) + fw_floor.Var(b0)
    assert not fw_floor._TAPE


@pytest.mark.parametrize("precision", ["fp32", "bf16", "fp16"])
def test_mlp_floor_matches_minigrad(precision):
    params, x, y = fw_floor.mlp_init(SIZES, BATCH)
    model = _mg_mlp(params)
    low = {"fp32": None, "bf16": ml_dtypes.bfloat16, "fp16": np.float16}[precision]
    scale = 2.0 ** 16 if precision == "fp16" else 1.0
    loss, grads = fw_floor.mlp_forward_backward(params, x, y, low, scale)
    crit = minigrad.nn.CrossEntropyLoss()
    if low is None:
        mg_loss = crit(model(minigrad.tensor(x)), minigrad.tensor(y))
    else:
        dtype = minigrad.bfloat16 if precision == "bf16" else minigrad.float16
        with amp_emu.autocast(device_type="cpu", dtype=dtype):
            mg_loss = crit(model(minigrad.tensor(x)), minigrad.tensor(y))
    (mg_loss * scale).backward()  # GradScaler's scale(loss) is this multiply
    # summation orders differ by a few fp32 ulp (measured: the fp32 gradients 1.2e-7 of their
    # largest apart, the bf16 loss 1 ulp, the 16-bit gradients equal); a 16-bit rounding that
    # flipped would show as ~4e-3 (bf16) / 5e-4 (fp16) and fail
    tol = 1e-5
    assert abs(float(loss) - mg_loss.item()) <= tol * abs(mg_loss.item())
    for (gw, gb), (mw, mb) in zip(grads, _grads(model)):
        np.testing.assert_allclose(gw, mw, rtol=tol, atol=tol * np.abs(mw).max())
        np.testing.assert_allclose(gb, mb, rtol=tol, atol=tol * np.abs(mb).max())


def test_sgd_momentum_matches_optim_over_two_steps():
    params, x, y = fw_floor.mlp_init(SIZES, BATCH)
    model = _mg_mlp(params)
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    params = [list(p) for p in params]
    bufs = []
    for _ in range(2):
        _, grads = fw_floor.mlp_forward_backward(params, x, y)
        fw_floor.sgd_momentum_(params, grads, bufs)
        opt.zero_grad()
        minigrad.nn.CrossEntropyLoss()(model(minigrad.tensor(x)), minigrad.tensor(y)).backward()
        opt.step()
    lins = [m for m in model if isinstance(m, minigrad.nn.Linear)]
    for (W, b), lin in zip(params, lins):
        np.testing.assert_allclose(W, lin.weight.detach().numpy(), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(b, lin.bias.detach().numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("fused", [False, True])
def test_block_floor_matches_minigrad(fused):
    p, x = fw_floor.block_init(2, 5, 8)
    loss, grads = fw_floor.block_forward_backward(p, x, heads=2)
    tp = {k: minigrad.tensor(v, requires_grad=True) for k, v in p.items()}
    mg_loss = Torchlike("minigrad").block_loss(tp, minigrad.tensor(x), 2, fused)
    mg_loss.backward()
    assert abs(float(loss) - mg_loss.item()) <= 1e-5 * mg_loss.item()
    for k, t in tp.items():
        np.testing.assert_allclose(grads[k], t.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=k)


def test_numpylike_models_match_the_floor():
    """The MyGrad / HIPS autograd versions compute the floor's loss (same weights)."""
    p, x = fw_floor.block_init(2, 5, 8)
    mask = np.triu(np.full((5, 5), -np.inf, np.float32), 1)
    want = float(fw_floor.block_forward_backward(p, x, heads=2)[0])
    params, xm, ym = fw_floor.mlp_init(SIZES, BATCH)
    want_mlp = float(fw_floor.mlp_forward_backward(params, xm, ym)[0])
    assert abs(float(fw_numpylike.block_loss(np, p, x, 2, mask)) - want) <= 1e-5 * want
    assert abs(float(fw_numpylike.mlp_loss(np, params, xm, ym)) - want_mlp) <= 1e-5 * want_mlp


def test_runner_quick_smoke():
    """The runner's parent/worker path on the two cheapest rows, minigrad and the floor only:
    every table line and target is printed and the numerics check passes (exit 0)."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(BENCH))
    out = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--quick",
                          "--only", "perop,small_mlp", "--frameworks", "minigrad,floor"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    for label in ("forward+backward", "no_grad forward", "NumPy's add alone", "fp32 step",
                  "minigrad / NumPy floor", "target"):
        assert label in out.stdout, out.stdout
    assert "NUMERICS" not in out.stdout and "note:" not in out.stdout, out.stdout
