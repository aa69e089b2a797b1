"""optim against torch.optim: identical initial params and grad streams fed to both, compared
bit for bit after every step (params and state), over a grid of hyper-parameters and dtypes.

Numerics claims tested here (see minigrad/ops/foreach_kernels.py and optim/adam.py; the per-kernel recipes are
tested in test_optim_kernels.py, the schedules in test_lr_scheduler.py):
- SGD: bit-exact in fp32, fp64, fp16 and bf16;
- Adam/AdamW: bit-exact in fp16/bf16; in fp32/fp64 bit-exact when torch's (MKL, not correctly
  rounded) sqrt is plugged in, and within 4 ulp per step with our correctly rounded sqrt.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
import optim
from minigrad.ops import foreach_kernels as K
from optim import adam as adam_mod

from ._optim_util import DTYPES, np2t, same, t2np, threads_like_torch  # noqa: F401

pytestmark = pytest.mark.usefixtures("threads_like_torch")
SHAPES = [(5, 7), (13,), (3, 4, 2), (40,)]


def torch_sqrt(a):
    """torch's own sqrt on a NumPy array (for fp32/fp64: MKL's rounding), ours otherwise."""
    if a.dtype in (np.float32, np.float64):
        return torch.from_numpy(np.ascontiguousarray(a)).sqrt().numpy()
    return K.sqrt(a)


class Pair:
    """The same parameters in minigrad and torch, plus a seeded grad stream."""

    def __init__(self, dtype, seed, shapes=SHAPES):
        self.tdt, self.npd = DTYPES[dtype]
        self.rng = np.random.default_rng(seed)
        self.shapes = shapes
        init = [self._rand(s) for s in shapes]
        self.m = [mg.from_numpy(a.copy()).requires_grad_() for a in init]
        self.t = [np2t(a, self.tdt).requires_grad_() for a in init]

    def _rand(self, shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32).astype(self.npd)

    def feed(self, step):
        """Set identical grads; some params get None on some steps; some grads are tiny."""
        for i, (m, t) in enumerate(zip(self.m, self.t)):
            if (step + i) % 5 == 3:
                m.grad = t.grad = None
                continue
            g = self._rand(self.shapes[i], 1e-2 if (step + i) % 3 == 1 else 1.0)
            m.grad = mg.from_numpy(g.copy())
            t.grad = np2t(g, self.tdt)

    def check(self, mo, to, keys):
        for m, t in zip(self.m, self.t):
            assert same(m._data, t2np(t, self.npd)), "param differs"
            ms, ts = mo.state.get(m, {}), to.state.get(t, {})
            assert set(ms) == set(ts)
            for k in keys:
                if k in ts:
                    assert same(ms[k]._data, t2np(ts[k], self.npd)), f"state {k} differs"
            if "step" in ts:
                assert ms["step"].dtype is mg.float32 and ms["step"].shape == ()
                assert float(ms["step"].item()) == float(ts["step"])


def run_pair(kind, dtype, kw, steps=20, seed=0):
    pair = Pair(dtype, seed)
    mo = getattr(optim, kind)(pair.m, **kw)
    to = getattr(torch.optim, kind)(pair.t, **kw)
    keys = ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    for s in range(steps):
        pair.feed(s)
        mo.step()
        to.step()
        pair.check(mo, to, keys)
    return pair, mo, to


# ---------------------------------------------------------------------------- SGD
@settings(deadline=None)
@given(dtype=st.sampled_from(list(DTYPES)),
       momentum=st.sampled_from([0.0, 0.5, 0.9]),
       dampening=st.sampled_from([0.0, 0.3]),
       nesterov=st.booleans(),
       weight_decay=st.sampled_from([0.0, 1e-2, 0.1]),
       maximize=st.booleans(),
       lr=st.sampled_from([1e-3, 0.1, 0.37]),
       seed=st.integers(0, 3))
def test_sgd_bit_exact(dtype, momentum, dampening, nesterov, weight_decay, maximize, lr, seed):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False
    kw = dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
              weight_decay=weight_decay, maximize=maximize)
    pair, mo, to = run_pair("SGD", dtype, kw, seed=seed)
    for m, t in zip(pair.m, pair.t):
        assert (m in mo.state) == (t in to.state)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sgd_16bit_large_tensor_thread_chunks(dtype):
    """Above ATen's grain size the tails of each thread's chunk round twice, as in torch."""
    pair = Pair(dtype, 5, shapes=[(32800,), (33,)])
    kw = dict(lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)
    mo, to = optim.SGD(pair.m, **kw), torch.optim.SGD(pair.t, **kw)
    for s in range(4):
        pair.feed(s)
        mo.step()
        to.step()
        pair.check(mo, to, ("momentum_buffer",))


def test_sgd_param_groups_and_add_param_group():
    pair = Pair("float32", 2)
    groups = lambda ps: [{"params": ps[:2], "lr": 0.05, "momentum": 0.9},  # noqa: E731
                         {"params": ps[2:3], "weight_decay": 0.1}]
    mo = optim.SGD(groups(pair.m), lr=0.2)
    to = torch.optim.SGD(groups(pair.t), lr=0.2)
    for s in range(12):
        if s == 5:
            mo.add_param_group({"params": [pair.m[3]], "nesterov": True, "momentum": 0.5})
            to.add_param_group({"params": [pair.t[3]], "nesterov": True, "momentum": 0.5})
        pair.feed(s)
        if s < 5:
            pair.m[3].grad = pair.t[3].grad = None
        mo.step()
        to.step()
        pair.check(mo, to, ("momentum_buffer",))
    assert [{k: v for k, v in g.items() if k != "params"} for g in mo.param_groups] == \
        [{k: v for k, v in g.items() if k != "params"} for g in to.param_groups]


# ---------------------------------------------------------------------------- Adam / AdamW
adam_grid = dict(kind=st.sampled_from(["Adam", "AdamW"]),
                 amsgrad=st.booleans(), maximize=st.booleans(),
                 weight_decay=st.sampled_from([0.0, 1e-2, 0.3]),
                 eps=st.sampled_from([1e-8, 1e-3]),
                 betas=st.sampled_from([(0.9, 0.999), (0.5, 0.8)]),
                 lr=st.sampled_from([1e-3, 0.05]),
                 seed=st.integers(0, 3))


@settings(deadline=None)
@given(dtype=st.sampled_from(["float16", "bfloat16"]), **adam_grid)
def test_adam_16bit_bit_exact(dtype, kind, amsgrad, maximize, weight_decay, eps, betas, lr, seed):
    kw = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
              maximize=maximize)
    run_pair(kind, dtype, kw, seed=seed)


@settings(deadline=None)
@given(dtype=st.sampled_from(["float32", "float64"]), **adam_grid)
def test_adam_bit_exact_given_torch_sqrt(dtype, kind, amsgrad, maximize, weight_decay, eps,
                                         betas, lr, seed):
    kw = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
              maximize=maximize)
    old = adam_mod._sqrt
    adam_mod._sqrt = torch_sqrt
    try:
        run_pair(kind, dtype, kw, seed=seed)
    finally:
        adam_mod._sqrt = old


@pytest.mark.parametrize("kind,kw", [
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.1, weight_decay=0.5)),
    ("AdamW", dict(lr=0.1, amsgrad=True, weight_decay=0.5)),
    ("Adam", dict(lr=1e-3, eps=1e-3, betas=(0.5, 0.6), maximize=True))])
def test_adam_fp32_within_4_ulp_per_step(kind, kw):
    """With our correctly rounded sqrt, each step from torch's exact state is within 4 ulp of
    max(|p_old|, |p_new|, |p_new - p_old|); the moments are exact."""
    rng = np.random.default_rng(0)
    t = torch.tensor(rng.standard_normal((48, 48)).astype(np.float32), requires_grad=True)
    to = getattr(torch.optim, kind)([t], **kw)
    for s in range(15):
        g = (rng.standard_normal((48, 48)) * (0.01 if s % 2 else 1)).astype(np.float32)
        m = mg.from_numpy(t.detach().numpy().copy()).requires_grad_()
        mo = getattr(optim, kind)([m], **kw)
        if s:
            sd = to.state_dict()
            mo.load_state_dict({"state": {k: {n: mg.from_numpy(v.numpy().copy())
                                              for n, v in d.items()}
                                          for k, d in sd["state"].items()},
                                "param_groups": sd["param_groups"]})
        p_old = t.detach().numpy().astype(np.float64)
        m.grad = mg.from_numpy(g.copy())
        t.grad = torch.from_numpy(g.copy())
        mo.step()
        to.step()
        got, want = m._data.astype(np.float64), t.detach().numpy().astype(np.float64)
        scale = np.maximum.reduce([np.abs(p_old), np.abs(want), np.abs(want - p_old)])
        ulp = np.spacing(scale.astype(np.float32)).astype(np.float64)
        assert (np.abs(got - want) <= 4 * ulp).all()
        if kw.get("weight_decay", 0) == 0 or kind == "AdamW":
            assert same(mo.state[m]["exp_avg"]._data, to.state[t]["exp_avg"].numpy())
            assert same(mo.state[m]["exp_avg_sq"]._data, to.state[t]["exp_avg_sq"].numpy())


def test_defaults_and_state_layout():
    p = mg.zeros(3, requires_grad=True)
    tp = torch.zeros(3, requires_grad=True)
    for kind in ("SGD", "Adam", "AdamW"):
        mo, to = getattr(optim, kind)([p]), getattr(torch.optim, kind)([tp])
        assert mo.defaults == to.defaults
        assert repr(mo) == repr(to)
        sd, tsd = mo.state_dict(), to.state_dict()
        assert sd == tsd
    mo, to = optim.AdamW([p], amsgrad=True), torch.optim.AdamW([tp], amsgrad=True)
    p.grad, tp.grad = mg.ones(3), torch.ones(3)
    mo.step()
    to.step()
    assert list(mo.state[p]) == list(to.state[tp])
    assert mo.state[p]["step"].dtype is mg.float32 and mo.state[p]["step"].item() == 1.0


# ---------------------------------------------------------------------------- state_dict
def _to_torch_sd(sd, tdt):
    out = {"state": {}, "param_groups": sd["param_groups"]}
    for k, d in sd["state"].items():
        out["state"][k] = {n: (np2t(v._data, torch.float32 if n == "step" else tdt)
                               if isinstance(v, mg.Tensor) else v) for n, v in d.items()}
    return out


def _to_mg_sd(sd, npd):
    out = {"state": {}, "param_groups": sd["param_groups"]}
    for k, d in sd["state"].items():
        out["state"][k] = {n: mg.from_numpy(t2np(v, np.float32 if n == "step" else npd))
                           for n, v in d.items()}
    return out


@pytest.mark.parametrize("kind,kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("Adam", dict(lr=0.01, amsgrad=True)),
                                     ("AdamW", dict(lr=0.01, weight_decay=0.1))])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_state_dict_round_trip_with_torch(kind, kw, dtype):
    """Our state_dict loads into torch, torch's loads into ours; both continue identically."""
    pair = Pair(dtype, 3)
    mo = getattr(optim, kind)(pair.m, **kw)
    to = getattr(torch.optim, kind)(pair.t, **kw)
    for s in range(6):
        pair.feed(s)
        mo.step()
        to.step()
    sd, tsd = mo.state_dict(), to.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert set(sd["state"]) == set(tsd["state"])
    # fresh optimizers on the same params, loaded crosswise
    mo2 = getattr(optim, kind)(pair.m, **kw)
    to2 = getattr(torch.optim, kind)(pair.t, **kw)
    mo2.load_state_dict(_to_mg_sd(tsd, pair.npd))
    to2.load_state_dict(_to_torch_sd(sd, pair.tdt))
    keys = ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    for s in range(6, 14):
        pair.feed(s)
        mo2.step()
        to2.step()
        pair.check(mo2, to2, keys)
    # pickling round trip keeps everything
    mo3 = pickle.loads(pickle.dumps(mo2))
    assert mo3.state_dict()["param_groups"] == mo2.state_dict()["param_groups"]


def test_load_state_dict_casts_to_param_dtype_but_not_step():
    p32 = [mg.zeros(4, requires_grad=True)]
    o32 = optim.Adam(p32)
    p32[0].grad = mg.ones(4)
    o32.step()
    p16 = [mg.zeros(4, dtype=mg.float16, requires_grad=True)]
    o16 = optim.Adam(p16)
    o16.load_state_dict(o32.state_dict())
    st16 = o16.state[p16[0]]
    assert st16["exp_avg"].dtype is mg.float16 and st16["step"].dtype is mg.float32
    tp = [torch.zeros(4, requires_grad=True)]
    to = torch.optim.Adam(tp)
    tp[0].grad = torch.ones(4)
    to.step()
    t16 = [torch.zeros(4, dtype=torch.float16, requires_grad=True)]
    to16 = torch.optim.Adam(t16)
    to16.load_state_dict(to.state_dict())
    assert same(st16["exp_avg"]._data, t2np(to16.state[t16[0]]["exp_avg"], np.float16))
    assert to16.state[t16[0]]["step"].dtype == torch.float32


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e), str(e)
    return None


def test_load_state_dict_errors_match_torch():
    ps, tps = [mg.zeros(2, requires_grad=True)], [torch.zeros(2, requires_grad=True)]
    two = [mg.zeros(2, requires_grad=True), mg.zeros(1, requires_grad=True)]
    ttwo = [torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)]
    cases = [(lambda o: o.load_state_dict({"state": {}, "param_groups": []}), ps, tps),
             (lambda o: o.load_state_dict(
                 {"state": {}, "param_groups": [dict(o.state_dict()["param_groups"][0],
                                                     params=[0, 1])]}), ps, tps),
             (lambda o: o.load_state_dict(
                 {"state": {}, "param_groups": [dict(o.state_dict()["param_groups"][0],
                                                     params=[0])]}), two, ttwo)]
    for fn, a, b in cases:
        got, want = _err(lambda: fn(optim.SGD(a))), _err(lambda: fn(torch.optim.SGD(b)))
        assert want is not None and got == want


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kind,kw", [
    ("SGD", dict(lr=-1)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1.0)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-1)),
    ("Adam", dict(betas=(0, 0.99))), ("AdamW", dict(lr=-0.5))])
def test_constructor_errors_match_torch(kind, kw):
    got = _err(lambda: getattr(optim, kind)([mg.zeros(2, requires_grad=True)], **kw))
    want = _err(lambda: getattr(torch.optim, kind)([torch.zeros(2, requires_grad=True)], **kw))
    assert want is not None and got == want


def test_param_errors_match_torch():
    p, tp = mg.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    pairs = [(lambda: optim.SGD([]), lambda: torch.optim.SGD([])),
             (lambda: optim.SGD([p, 3]), lambda: torch.optim.SGD([tp, 3])),
             (lambda: optim.SGD([{"params": {p}}]), lambda: torch.optim.SGD([{"params": {tp}}])),
             (lambda: optim.SGD([{"params": [p]}, {"params": [p]}]),
              lambda: torch.optim.SGD([{"params": [tp]}, {"params": [tp]}])),
             (lambda: optim.SGD([p * 2]), lambda: torch.optim.SGD([tp * 2]))]
    for ours, theirs in pairs:
        got, want = _err(ours), _err(theirs)
        assert want is not None and got == want
    got = _err(lambda: optim.SGD(p))
    assert got == (TypeError, "params argument given to the optimizer should be an iterable of "
                              "Tensors or dicts, but got minigrad.FloatTensor")


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("bad", ["shape", "dtype"])
def test_failed_step_leaves_params_and_state_untouched(kind, bad):
    a = mg.from_numpy(np.arange(6, dtype=np.float32)).requires_grad_()
    b = mg.from_numpy(np.ones((2, 3), np.float32)).requires_grad_()
    o = getattr(optim, kind)([a, b], lr=0.1, **({"momentum": 0.9} if kind == "SGD" else {}))
    a.grad, b.grad = mg.ones(6), mg.ones((2, 3))
    o.step()
    before = [x._data.copy() for x in (a, b)]
    state_before = {id(k): {n: v._data.copy() for n, v in d.items()} for k, d in o.state.items()}
    versions = [a._version, b._version]
    wrong = mg.ones((3, 2)) if bad == "shape" else mg.ones((2, 3), dtype=mg.float64)
    with pytest.raises((RuntimeError, TypeError)):      # torch refuses the assignment itself
        b.grad = wrong
    b._grad = wrong      # bypass it, to check the optimizer's own guard
    with pytest.raises(RuntimeError, match=r"\[3, 2\]|float64"):
        o.step()
    assert [a._version, b._version] == versions
    assert all(same(x._data, y) for x, y in zip((a, b), before))
    for k, d in o.state.items():
        for n, v in d.items():
            assert same(v._data, state_before[id(k)][n])


def test_zero_grad_and_closure_and_hooks():
    p = mg.ones(3, requires_grad=True)
    o = optim.SGD([p], lr=0.5)
    p.grad = mg.ones(3)
    arr = p.grad._data
    o.zero_grad(set_to_none=False)
    assert p.grad._data is arr and same(arr, np.zeros(3))
    o.zero_grad()
    assert p.grad is None
    calls = []
    o.register_step_pre_hook(lambda opt, a, k: calls.append("pre"))
    h = o.register_step_post_hook(lambda opt, a, k: calls.append("post"))

    def closure():
        assert mg.is_grad_enabled()
        calls.append("closure")
        p.grad = mg.ones(3)
        return 7.0

    with mg.no_grad():
        assert o.step(closure) == 7.0
    assert calls == ["pre", "closure", "post"] and same(p._data, np.full(3, 0.5))
    h.remove()
    o.step()
    assert calls[-1] == "pre"


def test_skipped_params_get_no_state():
    a, b = mg.ones(2, requires_grad=True), mg.ones(2, requires_grad=True)
    o = optim.Adam([a, b], weight_decay=0.1)
    a.grad = mg.ones(2)
    o.step()
    assert a in o.state and b not in o.state and same(b._data, np.ones(2))


def test_load_state_dict_from_a_real_torch_optimizer_then_step_as_torch():
    """Resuming from a checkpoint saved with PyTorch: its torch.Tensor state values are taken
    bit for bit, and the next step equals PyTorch's (found by a user trial: step() raised)."""
    import numpy as np
    import minigrad
    import optim
    import torch
    w0 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    tw = torch.nn.Parameter(torch.tensor(w0))
    topt = torch.optim.Adam([tw], lr=0.1)
    for _ in range(2):
        (tw ** 2).sum().backward()
        topt.step()
        topt.zero_grad()
    mw = minigrad.nn.Parameter(minigrad.tensor(tw.detach().numpy().copy()))
    mopt = optim.Adam([mw], lr=0.1)
    mopt.load_state_dict(topt.state_dict())
    assert isinstance(mopt.state[mw]["exp_avg"], minigrad.Tensor)
    for opt, w in ((topt, tw), (mopt, mw)):
        (w ** 2).sum().backward()
        opt.step()
    assert np.array_equal(mw.detach().numpy(), tw.detach().numpy())
