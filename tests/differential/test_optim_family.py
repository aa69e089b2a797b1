"""The optimizers beyond SGD/Adam against torch.optim, bit for bit, over many steps.

Identical initial parameters and grad streams (some grads None on some steps, so step counts
differ between parameters; some grads tiny) are fed to minigrad's and torch's optimizer; after
every step every parameter and every state tensor is compared bit for bit, for the for-loop
(default) and the foreach implementations, in fp16, bf16, fp32 and fp64.

fp32/fp64: torch's sqrt is MKL's (not correctly rounded, see optim/adam.py), so those runs plug
torch's own sqrt into the ``_foreach_sqrt`` kernel (``foreach_kernels.using_sqrt``) and are then
bit-exact; ``test_*_fp32_ulp_bound_with_our_sqrt`` measures the one-step difference with our
correctly rounded sqrt instead. Adamax and Rprop have no sqrt: bit-exact in fp32 as they are.
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np
import pytest
import torch

import minigrad as mg
import optim
from minigrad.ops import foreach_kernels as K

from ._optim_util import DTYPES, same, t2np, threads_like_torch  # noqa: F401
from .test_optim import Pair as _Pair
from .test_optim import torch_sqrt

pytestmark = pytest.mark.usefixtures("threads_like_torch")
SHAPES = [(5, 7), (13,), (3, 4, 2), (40,)]
NO_SQRT = {"Adamax", "Rprop", "ASGD"}


class Pair(_Pair):
    """test_optim's parameter pair and grad stream (param i gets no grad when
    (step + i) % 5 == 3, some grads are tiny); ``check`` compares every state entry torch
    has, with its dtype, the 0-dim scalars included."""

    def check(self, mo, to, where=""):
        for i, (m, t) in enumerate(zip(self.m, self.t)):
            assert same(m._data, t2np(t, self.npd)), f"param {i} differs {where}"
            ms, ts = mo.state.get(m, {}), to.state.get(t, {})
            assert set(ms) == set(ts), where
            for k, tv in ts.items():
                mv = ms[k]
                if k == "step":
                    assert mv.shape == () and mv.dtype.name == str(tv.dtype).split(".")[1]
                    assert float(mv.item()) == float(tv), where
                else:
                    assert mv.dtype.name == str(tv.dtype).split(".")[1], (k, where)
                    assert same(mv._data, t2np(tv, mv._data.dtype)), f"state {k} {where}"


def _sqrt_ctx(kind, dtype):
    if kind in NO_SQRT or dtype in ("float16", "bfloat16"):
        return contextlib.nullcontext()
    return K.using_sqrt(torch_sqrt)


def run_pair(kind, dtype, kw, steps=30, seed=0, shapes=SHAPES):
    pair = Pair(dtype, seed, shapes)
    mo = getattr(optim, kind)(pair.m, **kw)
    to = getattr(torch.optim, kind)(pair.t, **kw)
    with _sqrt_ctx(kind, dtype):
        for s in range(steps):
            pair.feed(s)
            mo.step()
            to.step()
            pair.check(mo, to, f"at step {s}")
    return pair, mo, to


# One row per setting: (optimizer, constructor kwargs). Each runs for-loop and foreach in all
# four dtypes.
CASES = [
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=1e-3, alpha=0.9, momentum=0.9, weight_decay=1e-2)),
    ("RMSprop", dict(centered=True, maximize=True, eps=1e-3)),
    ("RMSprop", dict(centered=True, momentum=0.5, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=1e-2, weight_decay=1e-2, initial_accumulator_value=0.1)),
    ("Adagrad", dict(maximize=True, eps=1e-3)),
    ("Adagrad", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=1e-2, betas=(0.8, 0.99), weight_decay=1e-2, eps=1e-3)),
    ("Adamax", dict(maximize=True)),
    ("Adamax", dict(maximize=True, weight_decay=0.1)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=1e-2, betas=(0.8, 0.99), weight_decay=1e-2, momentum_decay=1e-2)),
    ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, maximize=True, eps=1e-3)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=1e-2, betas=(0.8, 0.9), weight_decay=1e-2)),
    ("RAdam", dict(betas=(0.9, 0.6), weight_decay=0.1, decoupled_weight_decay=True,
                   maximize=True)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.8), weight_decay=0.1, maximize=True, eps=1e-3)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=1e-2)),
    ("Adadelta", dict(maximize=True, eps=1e-3)),
    ("Adadelta", dict(rho=0.95, weight_decay=0.1, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.6, t0=5, weight_decay=1e-2)),
    ("ASGD", dict(lr=0.1, t0=3, maximize=True)),
    ("ASGD", dict(lr=0.1, t0=8, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.1, etas=(0.3, 1.7), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(maximize=True)),
    ("Rprop", dict(lr=1e-3, etas=(0.45, 1.1), maximize=True)),
]


KINDS = list(dict.fromkeys(k for k, _ in CASES))


def _ids(case):
    kind, kw = case
    return kind + "-" + ",".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("dtype,foreach", [(d, f) for d in DTYPES for f in (False, True)
                                           if not (d == "float64" and f)],
                         ids=lambda v: {False: "forloop", True: "foreach"}.get(v, v))
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_bit_exact_vs_torch(case, dtype, foreach):
    """25 steps, every param and state bit compared after each (fp64 foreach runs the same
    kernels as fp32 foreach with another opmath; left out for time)."""
    kind, kw = case
    run_pair(kind, dtype, dict(kw, foreach=foreach), steps=25)


# ---------------------------------------------------------------------------- state dicts
@pytest.mark.parametrize("case", [c for i, c in enumerate(CASES) if i % 2 == 1], ids=_ids)
def test_state_dict_matches_torch_and_round_trips(case):
    kind, kw = case
    pair, mo, to = run_pair(kind, "float32", kw, steps=6)
    msd, tsd = mo.state_dict(), to.state_dict()
    assert msd["param_groups"] == [dict(g) for g in tsd["param_groups"]]
    assert list(msd["state"]) == list(tsd["state"])
    for i, ts in tsd["state"].items():
        assert list(msd["state"][i]) == list(ts)
        for k, tv in ts.items():
            assert same(msd["state"][i][k]._data, t2np(tv, np.float32)), k
    # a fresh optimizer loaded from the state dict continues exactly as torch's
    mo2 = getattr(optim, kind)(pair.m, **kw)
    mo2.load_state_dict(copy.deepcopy(msd))
    with _sqrt_ctx(kind, "float32"):
        for s in range(6, 12):
            pair.feed(s)
            mo2.step()
            to.step()
            pair.check(mo2, to, f"after load, step {s}")


@pytest.mark.parametrize("kind", ["NAdam", "ASGD", "RMSprop"])
def test_old_checkpoint_numbers_become_tensors(kind):
    """A state dict with Python-number scalars (``step``, ``mu_product``, ``eta``, ``mu``) and
    a group lacking a newer key loads as in torch: 0-dim tensors, the key defaulted."""
    kw = CASES[KINDS.index(kind) * 4 + 1][1]
    pair, mo, to = run_pair(kind, "float32", kw, steps=4)
    msd, tsd = copy.deepcopy(mo.state_dict()), copy.deepcopy(to.state_dict())
    for sd in (msd, tsd):
        for st in sd["state"].values():
            for k in ("step", "mu_product", "eta", "mu"):
                if k in st:
                    st[k] = float(st[k].item())
        del sd["param_groups"][0]["maximize"]
    mo.load_state_dict(msd)
    to.load_state_dict(tsd)
    assert mo.param_groups[0]["maximize"] is False
    with _sqrt_ctx(kind, "float32"):
        for s in range(4, 8):
            pair.feed(s)
            mo.step()
            to.step()
            pair.check(mo, to, f"after load, step {s}")


@pytest.mark.parametrize("kind", KINDS)
def test_under_an_lr_scheduler_as_torch(kind):
    """The lr a scheduler writes into the group is the one the next step uses."""
    kw = CASES[KINDS.index(kind) * 4 + 1][1]
    pair = Pair("bfloat16", 4)
    mo, to = getattr(optim, kind)(pair.m, **kw), getattr(torch.optim, kind)(pair.t, **kw)
    ms = optim.lr_scheduler.StepLR(mo, step_size=2, gamma=0.5)
    ts = torch.optim.lr_scheduler.StepLR(to, step_size=2, gamma=0.5)
    for s in range(8):
        pair.feed(s)
        mo.step()
        to.step()
        ms.step()
        ts.step()
        pair.check(mo, to, f"step {s}")
        assert ms.get_last_lr() == ts.get_last_lr()


# ---------------------------------------------------------------------------- constructors
@pytest.mark.parametrize("kind,kw", [
    ("RMSprop", dict(lr=-1)), ("RMSprop", dict(eps=-1)), ("RMSprop", dict(momentum=-1)),
    ("RMSprop", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-1)),
    ("Adagrad", dict(lr=-1)), ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(weight_decay=-1)),
    ("Adagrad", dict(initial_accumulator_value=-1)), ("Adagrad", dict(eps=-1)),
    ("Adamax", dict(lr=-1)), ("Adamax", dict(eps=-1)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-1)),
    ("NAdam", dict(lr=-1)), ("NAdam", dict(eps=-1)), ("NAdam", dict(betas=(1.0, 0.9))),
    ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(weight_decay=-1)),
    ("NAdam", dict(momentum_decay=-1)),
    ("RAdam", dict(lr=-1)), ("RAdam", dict(eps=-1)), ("RAdam", dict(betas=(-0.1, 0.9))),
    ("RAdam", dict(betas=(0.9, 1.5))), ("RAdam", dict(weight_decay=-1)),
    ("Adadelta", dict(lr=-1)), ("Adadelta", dict(rho=1.1)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1)), ("Adadelta", dict(weight_decay=-1)),
    ("ASGD", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 1.0))),
    ("Rprop", dict(etas=(0.0, 1.2))),
])
def test_constructor_errors_as_torch(kind, kw):
    with pytest.raises(ValueError) as t_err:
        getattr(torch.optim, kind)([torch.zeros(2, requires_grad=True)], **kw)
    with pytest.raises(ValueError) as m_err:
        getattr(optim, kind)([mg.zeros(2, requires_grad=True)], **kw)
    assert str(m_err.value) == str(t_err.value)


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_as_torch(kind):
    t = getattr(torch.optim, kind)([torch.zeros(2, requires_grad=True)])
    m = getattr(optim, kind)([mg.zeros(2, requires_grad=True)])
    assert m.defaults == t.defaults
    tg = {k: v for k, v in t.param_groups[0].items() if k != "params"}
    mg_ = {k: v for k, v in m.param_groups[0].items() if k != "params"}
    assert mg_ == tg


@pytest.mark.parametrize("kind", KINDS)
def test_bad_tensor_lr_and_differentiable_refused(kind):
    p = mg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        getattr(optim, kind)([p], lr=mg.ones(2))
    with pytest.raises(NotImplementedError, match="differentiable"):
        getattr(optim, kind)([p], differentiable=True)


@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case", [c for i, c in enumerate(CASES) if i % 4 in (1, 2)], ids=_ids)
def test_tensor_lr_as_torch(case, dtype, foreach):
    """A 0-dim Tensor lr: PyTorch does its scalar arithmetic on it as 0-dim tensor ops (and
    uses such tensors unrounded in the foreach ops); minigrad repeats that."""
    kind, kw = case
    kw = dict(kw, lr=kw.get("lr", 0.01), foreach=foreach)
    pair = Pair(dtype, 1)
    mo = getattr(optim, kind)(pair.m, **dict(kw, lr=mg.tensor(kw["lr"])))
    to = getattr(torch.optim, kind)(pair.t, **dict(kw, lr=torch.tensor(kw["lr"])))
    with _sqrt_ctx(kind, dtype):
        for s in range(8):
            pair.feed(s)
            mo.step()
            to.step()
            pair.check(mo, to, f"step {s}")


def test_adagrad_fused_argument_errors():
    p = mg.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        optim.Adagrad([p], fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        optim.Adagrad([p], fused=True, differentiable=True)


@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("kind", KINDS)
def test_mixed_dtypes_in_one_group(kind, foreach):
    """fp16 and fp32 parameters in one optimizer: foreach groups them by dtype, the for-loop
    steps each; both as torch."""
    p16, p32 = Pair("float16", 2, [(6,), (2, 3)]), Pair("float32", 2, [(5,), (4,)])
    kw = dict(CASES[KINDS.index(kind) * 4 + 1][1], foreach=foreach)
    mo = getattr(optim, kind)(p16.m[:1] + p32.m + p16.m[1:], **kw)
    to = getattr(torch.optim, kind)(p16.t[:1] + p32.t + p16.t[1:], **kw)
    with _sqrt_ctx(kind, "float32"):
        for s in range(12):
            p16.feed(s)
            p32.feed(s)
            mo.step()
            to.step()
            p16.check(mo, to, f"fp16, step {s}")
            p32.check(mo, to, f"fp32, step {s}")


@pytest.mark.parametrize("kind", KINDS)
def test_float64_default_dtype_scalar_state(kind):
    """Under a float64 default dtype the 0-dim state (step, mu_product, eta, mu) is float64."""
    old_m, old_t = mg.get_default_dtype(), torch.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    torch.set_default_dtype(torch.float64)
    try:
        run_pair(kind, "float32", CASES[KINDS.index(kind) * 4 + 1][1], steps=6)
    finally:
        mg.set_default_dtype(old_m)
        torch.set_default_dtype(old_t)


# ---------------------------------------------------------------------------- fp32, our sqrt
def _ulp_diff(new_m, new_t, old):
    """Per-element |new_m - new_t| in ulp of max(|old|, |new_t|, |new_t - old|) (fp32)."""
    a, b, o = (np.asarray(x, np.float64) for x in (new_m, new_t, old))
    mag = np.maximum(np.maximum(np.abs(o), np.abs(b)), np.abs(b - o))
    return np.abs(a - b) / np.spacing(mag.astype(np.float32)).astype(np.float64)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in NO_SQRT], ids=_ids)
def test_fp32_ulp_bound_with_our_sqrt(case):
    """With our correctly rounded sqrt, one step from identical state differs from torch's by
    at most 4 ulp of max(|p_old|, |p_new|, |p_new - p_old|) (re-synchronised from torch's
    parameters and state before every step), as for Adam."""
    kind, kw = case
    pair = Pair("float32", 3)
    mo = getattr(optim, kind)(pair.m, **kw)
    to = getattr(torch.optim, kind)(pair.t, **kw)
    worst = 0.0
    for s in range(15):
        pair.feed(s)
        old = [t.detach().numpy().copy() for t in pair.t]
        mo.step()
        to.step()
        for m, t, o in zip(pair.m, pair.t, old):
            worst = max(worst, float(_ulp_diff(m._data, t.detach().numpy(), o).max()))
            with mg.no_grad():
                m.copy_(mg.from_numpy(t.detach().numpy().copy()))
                for k, tv in to.state.get(t, {}).items():
                    if k != "step":
                        mo.state[m][k].copy_(mg.from_numpy(tv.numpy().copy()))
    assert worst <= 4
