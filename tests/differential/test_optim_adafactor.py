"""``optim.Adafactor`` against ``torch.optim.Adafactor`` (PyTorch 2.13), for-loop and foreach.

fp16/bf16: every parameter and state tensor bit for bit after each of 20 steps (the fp32 norms
round into 16 bits identically). fp32/fp64: the norms are reductions whose order differs from
ATen's (``linalg_vector_norm`` agrees to about an ulp), so those runs are compared with a stated
tolerance after 30 steps, and the state's shapes, dtypes and keys exactly.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import minigrad as mg
import optim

from ._optim_util import same, t2np, threads_like_torch  # noqa: F401
from .test_optim_family import Pair

pytestmark = pytest.mark.usefixtures("threads_like_torch")
SHAPES = [(5, 7), (13,), (3, 4, 2), (40,)]     # matrices, vectors, a batch of matrices
CASES = [dict(), dict(lr=0.05, weight_decay=0.1, maximize=True, d=2.0, eps=(1e-3, 1e-2)),
         dict(beta2_decay=-0.5, eps=(1e-20, 1e-3))]
TOL = {"float32": dict(rtol=2e-4, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-14)}


def _pair_run(dtype, kw, steps, check):
    pair = Pair(dtype, 0, SHAPES)
    mo, to = optim.Adafactor(pair.m, **kw), torch.optim.Adafactor(pair.t, **kw)
    for s in range(steps):
        pair.feed(s)
        mo.step()
        to.step()
        check(pair, mo, to, f"step {s}")
    return pair, mo, to


def _close(pair, mo, to, where):
    for m, t in zip(pair.m, pair.t):
        np.testing.assert_allclose(m._data, t2np(t, m._data.dtype), err_msg=where,
                                   **TOL[m.dtype.name])
        ms, ts = mo.state.get(m, {}), to.state.get(t, {})
        assert list(ms) == list(ts), where
        for k, tv in ts.items():
            assert tuple(ms[k].shape) == tuple(tv.shape), (k, where)
            assert ms[k].dtype.name == str(tv.dtype).split(".")[1], (k, where)


@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("kw", CASES, ids=range(len(CASES)))
def test_bit_exact_vs_torch_16bit(kw, dtype, foreach):
    _pair_run(dtype, dict(kw, foreach=foreach), 20, Pair.check)


@pytest.mark.parametrize("foreach", [False, True], ids=["forloop", "foreach"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CASES, ids=range(len(CASES)))
def test_close_to_torch_wide(kw, dtype, foreach):
    _pair_run(dtype, dict(kw, foreach=foreach), 30, _close)


def test_state_dict_matches_torch_and_resumes():
    kw = CASES[1]
    pair, mo, to = _pair_run("bfloat16", kw, 5, Pair.check)
    msd, tsd = mo.state_dict(), to.state_dict()
    assert msd["param_groups"] == [dict(g) for g in tsd["param_groups"]]
    for i, ts in tsd["state"].items():
        assert list(msd["state"][i]) == list(ts)
    mo2 = optim.Adafactor(pair.m, **kw)
    mo2.load_state_dict(copy.deepcopy(msd))
    for s in range(5, 10):
        pair.feed(s)
        mo2.step()
        to.step()
        pair.check(mo2, to, f"after load, step {s}")


def test_loads_torchs_state_dict():
    """A state dict saved by torch's Adafactor continues bit for bit in ours."""
    pair, mo, to = _pair_run("float16", {}, 4, Pair.check)
    mo2 = optim.Adafactor(pair.m)
    mo2.load_state_dict(copy.deepcopy(to.state_dict()))
    for s in range(4, 8):
        pair.feed(s)
        mo2.step()
        to.step()
        pair.check(mo2, to, f"after loading torch's state, step {s}")


@pytest.mark.parametrize("kw", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)),
                                dict(eps=(None, -1.0)), dict(d=0.5), dict(weight_decay=-0.1)])
def test_constructor_errors_as_torch(kw):
    with pytest.raises(ValueError) as theirs:
        torch.optim.Adafactor([torch.zeros(2, requires_grad=True)], **kw)
    with pytest.raises(ValueError) as ours:
        optim.Adafactor([mg.zeros(2, requires_grad=True)], **kw)
    assert str(ours.value) == str(theirs.value)


def test_trains_a_linear_model_like_torch():
    """A small regression with nn.Linear: the fp32 losses follow torch's to 1e-5."""
    torch.manual_seed(0)
    tl = torch.nn.Linear(8, 3)
    ml = mg.nn.Linear(8, 3)
    ml.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tl.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((16, 8)).astype(np.float32)
    y = np.random.default_rng(2).standard_normal((16, 3)).astype(np.float32)
    topt, mopt = torch.optim.Adafactor(tl.parameters()), optim.Adafactor(ml.parameters())
    for _ in range(15):
        tloss = ((tl(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        mloss = ((ml(mg.tensor(x)) - mg.tensor(y)) ** 2).mean()
        topt.zero_grad()
        mopt.zero_grad()
        tloss.backward()
        mloss.backward()
        topt.step()
        mopt.step()
        assert abs(mloss.item() - tloss.item()) <= 1e-5 * abs(tloss.item())
