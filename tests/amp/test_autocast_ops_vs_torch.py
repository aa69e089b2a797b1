"""Output dtypes, values and fp32-leaf gradients of minigrad ops under amp_emu.autocast("cpu")
against torch.autocast("cpu"), for fp32 / bf16 / fp16 / fp64 / int / mixed inputs."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from amp_emu import autocast

F = mg.nn.functional
T2M = {torch.float32: mg.float32, torch.float16: mg.float16, torch.bfloat16: mg.bfloat16,
       torch.float64: mg.float64, torch.int64: mg.int64, torch.bool: mg.bool_}
M2T = {v: k for k, v in T2M.items()}
COMBOS = {"f32": None, "bf16": torch.bfloat16, "fp16": torch.float16, "f64": torch.float64,
          "i64": torch.int64, "mixed": "mixed"}

# name -> (minigrad fn, torch fn, shapes, int-only extra args builder, combos)
_FLOAT = ("f32", "bf16", "fp16", "f64", "mixed")
CATALOGUE = {
    "mm": (lambda a, b: mg.mm(a, b), torch.mm, [(3, 4), (4, 5)], _FLOAT + ("i64",)),
    "matmul": (lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4, 5)], _FLOAT),
    "linear": (lambda x, w, b: F.linear(x, w, b), TF.linear, [(3, 4), (5, 4), (5,)], _FLOAT),
    "addmm": (lambda c, a, b: mg.addmm(c, a, b), torch.addmm, [(3, 5), (3, 4), (4, 5)], _FLOAT),
    "bmm": (lambda a, b: mg.bmm(a, b), torch.bmm,
            [(2, 3, 4), (2, 4, 5)], _FLOAT),
    "softmax": (lambda x: mg.softmax(x, -1), lambda x: torch.softmax(x, -1), [(3, 5)], _FLOAT),
    "log_softmax": (lambda x: mg.log_softmax(x, -1), lambda x: torch.log_softmax(x, -1),
                    [(3, 5)], _FLOAT),
    "cross_entropy": (lambda x: F.cross_entropy(x, mg.tensor([0, 3, 1, 4])),
                      lambda x: TF.cross_entropy(x, torch.tensor([0, 3, 1, 4])), [(4, 5)],
                      _FLOAT),
    "nll_loss": (lambda x: F.nll_loss(x, mg.tensor([0, 3, 1, 4])),
                 lambda x: TF.nll_loss(x, torch.tensor([0, 3, 1, 4])), [(4, 5)], _FLOAT),
    "mse_loss": (lambda a, b: F.mse_loss(a, b), TF.mse_loss, [(3, 4), (3, 4)], _FLOAT),
    "add": (lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (3, 4)], _FLOAT + ("i64",)),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, [(3, 4), (3, 4)], _FLOAT),
    "add_scalar": (lambda a: a + 1.5, lambda a: a + 1.5, [(3, 4)], _FLOAT),
    "sum": (lambda a: a.sum(), lambda a: a.sum(), [(3, 4)], _FLOAT + ("i64",)),
    "cat": (lambda a, b: mg.cat([a, b]), lambda a, b: torch.cat([a, b]), [(3, 4), (2, 4)],
            _FLOAT + ("i64",)),
    "stack": (lambda a, b: mg.stack([a, b]), lambda a, b: torch.stack([a, b]), [(3, 4), (3, 4)],
              _FLOAT),
    "relu": (lambda a: F.relu(a), TF.relu, [(3, 4)], _FLOAT),
    "tanh": (lambda a: mg.tanh(a), torch.tanh, [(3, 4)], _FLOAT),
    "sigmoid": (lambda a: mg.sigmoid(a), torch.sigmoid, [(3, 4)], _FLOAT),
    "exp": (lambda a: mg.exp(a), torch.exp, [(3, 4)], _FLOAT),
    "dot": (lambda a, b: mg.dispatch.dispatch("dot", a, b), torch.dot, [(5,), (5,)], _FLOAT),
    "mv": (lambda a, b: mg.dispatch.dispatch("mv", a, b), torch.mv, [(3, 4), (4,)], _FLOAT),
}


def _inputs(shapes, combo, seed):
    rng = np.random.default_rng(seed)
    outs = []
    for i, s in enumerate(shapes):
        if combo == "i64":
            arr = rng.integers(-3, 4, size=s)
            outs.append(torch.tensor(arr, dtype=torch.int64))
            continue
        arr = rng.standard_normal(s).astype(np.float32)
        dt = COMBOS[combo]
        if dt == "mixed":
            dt = "LOW" if i == 0 else torch.float32
        outs.append((arr, dt))
    return outs


def _build(inputs, low_t):
    ts, ms = [], []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            ts.append(x)
            ms.append(mg.tensor(x.numpy()))
            continue
        arr, dt = x
        dt = torch.float32 if dt is None else (low_t if dt == "LOW" else dt)
        t = torch.tensor(arr).to(dt).requires_grad_(True)
        m = mg.tensor(torch.tensor(arr).to(dt).double().numpy(), dtype=T2M[dt]) \
            .requires_grad_(True)
        ts.append(t)
        ms.append(m)
    return ms, ts


def _close(m, t, dt):
    a = np.asarray(m.detach().numpy(), dtype=np.float64)
    b = t.detach().double().numpy()
    tol = {mg.bfloat16: 2 ** -6, mg.float16: 2 ** -8, mg.float32: 1e-5, mg.float64: 1e-12}
    r = tol.get(dt, 0)
    np.testing.assert_allclose(a, b, rtol=r, atol=r)


CASES = [(op, combo, low) for op, e in CATALOGUE.items() for combo in e[3]
         for low in ("bf16", "fp16")]


@pytest.mark.parametrize("op,combo,low", CASES)
def test_dtype_value_grad_vs_torch(op, combo, low):
    mfn, tfn, shapes, _ = CATALOGUE[op]
    low_t = torch.bfloat16 if low == "bf16" else torch.float16
    low_m = T2M[low_t]
    ms, ts = _build(_inputs(shapes, combo, hash((op, combo)) % 2 ** 16), low_t)
    t_err = m_err = None
    try:
        with torch.autocast("cpu", dtype=low_t):
            t_out = tfn(*ts)
    except RuntimeError as e:
        t_err = e
    try:
        with autocast("cpu", dtype=low_m):
            m_out = mfn(*ms)
    except RuntimeError as e:
        m_err = e
    if t_err is not None:
        assert m_err is not None, f"torch raised {t_err!r}; minigrad gave {m_out.dtype}"
        return
    assert m_err is None, f"minigrad raised {m_err!r}; torch gave {t_out.dtype}"
    assert m_out.dtype is T2M[t_out.dtype], (m_out.dtype, t_out.dtype)
    _close(m_out, t_out, m_out.dtype)
    if not t_out.dtype.is_floating_point or not t_out.requires_grad:
        return
    t_out.float().sum().backward()
    m_out.float().sum().backward()
    for m, t in zip(ms, ts):
        if t.grad is None:
            continue
        assert m.grad is not None and m.grad.dtype is m.dtype        # fp32 leaves get fp32
        _close(m.grad, t.grad, low_m if m_out.dtype is low_m else m.dtype)


def test_nn_linear_and_at_operator_give_low_precision():
    lin = mg.nn.Linear(4, 3)
    x = mg.randn(2, 4)
    with autocast("cpu"):
        assert lin(x).dtype is mg.bfloat16
        assert (x @ mg.randn(4, 2)).dtype is mg.bfloat16


CUDA_CASES = [(op, combo, low) for op, e in CATALOGUE.items() for combo in e[3]
              for low in ("fp16", "bf16")]


@pytest.mark.skipif(not torch.cuda.is_available(),
                    reason="needs a CUDA GPU to run torch.autocast('cuda') (never in CI)")
@pytest.mark.parametrize("op,combo,low", CUDA_CASES)
def test_cuda_profile_dtypes_vs_torch_autocast_cuda(op, combo, low):
    """Our autocast("cuda") on (emulated) cuda tensors gives the output dtype, or the error,
    that torch.autocast("cuda") gives on a real GPU."""
    mfn, tfn, shapes, _ = CATALOGUE[op]
    low_t = torch.bfloat16 if low == "bf16" else torch.float16
    ms, ts = _build(_inputs(shapes, combo, hash((op, combo)) % 2 ** 16), low_t)
    ts = [t.detach().cuda().requires_grad_(t.requires_grad) for t in ts]
    ms = [m.detach().cuda().requires_grad_(m.requires_grad) for m in ms]
    t_err = m_err = None
    try:
        with torch.autocast("cuda", dtype=low_t):
            t_out = _cuda_loss(op, ts[0]) if op in ("cross_entropy", "nll_loss") else tfn(*ts)
    except RuntimeError as e:
        t_err = e
    try:
        with autocast("cuda", dtype=T2M[low_t]):
            m_out = _cuda_loss_mg(op, ms[0]) if op in ("cross_entropy", "nll_loss") else mfn(*ms)
    except RuntimeError as e:
        m_err = e
    if t_err is not None:
        assert m_err is not None, f"torch raised {t_err!r}; minigrad gave {m_out.dtype}"
        return
    assert m_err is None, f"minigrad raised {m_err!r}; torch gave {t_out.dtype}"
    assert m_out.dtype is T2M[t_out.dtype], (m_out.dtype, t_out.dtype)


def _cuda_loss_mg(op, x):
    target = mg.tensor([0, 3, 1, 4], device="cuda")
    return F.cross_entropy(x, target) if op == "cross_entropy" else F.nll_loss(x, target)


def _cuda_loss(op, x):
    target = torch.tensor([0, 3, 1, 4], device="cuda")
    return TF.cross_entropy(x, target) if op == "cross_entropy" else TF.nll_loss(x, target)
