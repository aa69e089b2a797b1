"""amp_emu.GradScaler against torch.amp.GradScaler("cpu"): trajectories, skips, params, errors."""
from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minigrad as mg
import optim
from amp_emu import GradScaler, OptState

TORCH_DT = {np.float32: torch.float32, ml_dtypes.bfloat16: torch.bfloat16,
            np.float16: torch.float16}
MG_DT = {np.float32: mg.float32, ml_dtypes.bfloat16: mg.bfloat16, np.float16: mg.float16}


def _pair(arr, npdt, requires_grad=True):
    a = np.asarray(arr, dtype=np.float32).astype(npdt)
    m = mg.tensor(a.astype(np.float32), dtype=MG_DT[npdt], requires_grad=requires_grad)
    t = torch.tensor(a.astype(np.float32), dtype=TORCH_DT[npdt], requires_grad=requires_grad)
    return m, t


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().float().numpy()
    return np.asarray(t.detach().numpy(), dtype=np.float32)


def _set_grad(m, t, arr, npdt):
    a = np.asarray(arr, dtype=np.float32).astype(npdt)
    m.grad = mg.tensor(a.astype(np.float32), dtype=MG_DT[npdt])
    t.grad = torch.tensor(a.astype(np.float32), dtype=TORCH_DT[npdt])


# ---------------------------------------------------------------- the facts' trajectory table
def test_trajectory_from_facts_table():
    p = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.0)
    s = GradScaler("cpu", init_scale=4.0, growth_interval=2)
    scales_used, skipped = [], []
    for kind in ["fin", "fin", "inf", "fin", "fin", "fin"]:
        scales_used.append(s.get_scale())
        loss = (p * 1.0).sum()
        s.scale(loss).backward()
        if kind == "inf":
            p.grad = mg.tensor([1.0 * s.get_scale(), float("inf"), 3.0 * s.get_scale()])
        s.unscale_(opt)
        if kind == "inf":
            assert p.grad.tolist()[0] == 1.0 and np.isinf(p.grad.tolist()[1])
        before = s.skipped_steps
        s.step(opt)
        skipped.append(s.skipped_steps > before)
        s.update()
        opt.zero_grad()
    assert scales_used == [4, 4, 8, 4, 4, 8]
    assert s.scale_history == [4, 8, 4, 4, 8, 8]
    assert skipped == [False, False, True, False, False, False]
    assert s.skipped_steps == 1
    assert s.found_inf_history == [False, False, True, False, False, False]
    assert s._get_growth_tracker() == 1


# ---------------------------------------------------------------- hypothesis streams vs torch
_kind = st.sampled_from(["fin", "fin", "fin", "inf", "-inf", "nan"])


@st.composite
def _setup(draw):
    init_scale = draw(st.one_of(st.sampled_from([1.0, 4.0, 2.0 ** 16, 2.0 ** 24, 3.0]),
                                st.floats(1e-3, 1e6, allow_nan=False)))
    growth = draw(st.floats(1.01, 8.0))
    backoff = draw(st.floats(0.01, 0.99))
    interval = draw(st.integers(1, 4))
    n_opt = draw(st.integers(1, 2))
    kinds = draw(st.lists(st.sampled_from(["sgd", "sgdm", "adam", "adamw"]), min_size=n_opt,
                          max_size=n_opt))
    dtypes = draw(st.lists(st.sampled_from([np.float32, np.float32, ml_dtypes.bfloat16]),
                           min_size=n_opt, max_size=n_opt))
    steps = draw(st.lists(st.tuples(st.lists(_kind, min_size=n_opt, max_size=n_opt),
                                    st.booleans(), st.sampled_from([None, None, None, 0.5, 1024.0])),
                          min_size=1, max_size=8))
    seed = draw(st.integers(0, 2 ** 16))
    return init_scale, growth, backoff, interval, kinds, dtypes, steps, seed


def _make_opt(kind, params, lib):
    if kind == "sgd":
        return lib.SGD(params, lr=0.1)
    if kind == "sgdm":
        return lib.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01)
    if kind == "adam":
        return lib.Adam(params, lr=0.01)
    return lib.AdamW(params, lr=0.01)


@settings(deadline=None)
@given(_setup())
def test_matches_torch_on_gradient_streams(setup):
    init_scale, growth, backoff, interval, kinds, dtypes, steps, seed = setup
    rng = np.random.default_rng(seed)
    ms = GradScaler("cpu", init_scale=init_scale, growth_factor=growth, backoff_factor=backoff,
                    growth_interval=interval)
    ts = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_factor=growth,
                              backoff_factor=backoff, growth_interval=interval)
    pairs, mopts, topts = [], [], []
    for kind, dt in zip(kinds, dtypes):
        m, t = _pair(rng.standard_normal(5), dt)
        pairs.append((m, t, dt))
        mopts.append(_make_opt(kind, [m], optim))
        topts.append(_make_opt(kind, [t], torch.optim))
    skipped_torch = 0
    for kinds_i, explicit_unscale, new_scale in steps:
        ml = sum(((m.float() * 1.0).sum() for m, _, _ in pairs), mg.tensor(0.0))
        tl = sum(((t.float() * 1.0).sum() for _, t, _ in pairs), torch.tensor(0.0))
        ms.scale(ml)
        ts.scale(tl)
        for (m, t, dt), k in zip(pairs, kinds_i):
            g = rng.standard_normal(5).astype(np.float32) * np.float32(ms.get_scale())
            if k != "fin":
                g[rng.integers(0, 5)] = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}[k]
            _set_grad(m, t, g, dt)
        for mo, to, (m, t, dt) in zip(mopts, topts, pairs):
            if explicit_unscale:
                ms.unscale_(mo)
                ts.unscale_(to)
                np.testing.assert_array_equal(_np(m.grad), _np(t.grad))
            ms.step(mo)
            ts.step(to)
            st_t = ts._per_optimizer_states[id(to)]
            skipped_torch += bool(sum(v.item() for v in st_t["found_inf_per_device"].values()))
            np.testing.assert_array_equal(_np(m.grad), _np(t.grad))
            if mo.__class__.__name__ == "SGD" or dt is not np.float32:
                np.testing.assert_array_equal(_np(m), _np(t))
            else:
                np.testing.assert_allclose(_np(m), _np(t), rtol=1e-6, atol=1e-7)
        ms.update(new_scale)
        ts.update(new_scale)
        assert ms.get_scale() == ts.get_scale()
        assert ms._get_growth_tracker() == ts._get_growth_tracker()
        assert ms.state_dict() == ts.state_dict()
    assert ms.skipped_steps == skipped_torch
    assert ms.scale_history[-1] == ts.get_scale()


def test_skipped_step_leaves_params_and_state_untouched():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    s = GradScaler("cuda", init_scale=8.0)      # cpu tensors: the scale lives on the cpu
    assert s.is_enabled()
    s.scale(p.sum())
    p.grad = mg.tensor([8.0, 8.0])
    s.step(opt)
    s.update()
    before_p = p.detach().numpy().copy()
    before_state = {k: (v.numpy().copy() if hasattr(v, "numpy") else v)
                    for k, v in opt.state[p].items()}
    s.scale(p.sum())
    p.grad = mg.tensor([float("nan"), 1.0])
    assert s.step(opt) is None
    s.update()
    np.testing.assert_array_equal(p.detach().numpy(), before_p)
    for k, v in opt.state[p].items():
        np.testing.assert_array_equal(v.numpy() if hasattr(v, "numpy") else v, before_state[k])
    assert s.get_scale() == 4.0 and s.skipped_steps == 1


def test_two_optimizers_only_the_inf_one_skips():
    a = mg.tensor([1.0], requires_grad=True)
    b = mg.tensor([1.0], requires_grad=True)
    oa, ob = optim.SGD([a], lr=1.0), optim.SGD([b], lr=1.0)
    s = GradScaler("cpu", init_scale=2.0)
    s.scale([a.sum(), b.sum()])
    a.grad = mg.tensor([float("inf")])
    b.grad = mg.tensor([2.0])
    s.step(oa)
    s.step(ob)
    s.update()
    assert a.tolist() == [1.0] and b.tolist() == [0.0]
    assert s.get_scale() == 1.0 and s.skipped_steps == 1


# ---------------------------------------------------------------- unscale_ arithmetic
@settings(deadline=None)
@given(st.floats(1e-30, 1e30, allow_nan=False), st.integers(0, 2 ** 16))
def test_unscale_arithmetic_bf16_and_fp32(scale, seed):
    rng = np.random.default_rng(seed)
    for dt in (np.float32, ml_dtypes.bfloat16):
        m, t = _pair(rng.standard_normal(7), dt)
        mo, to = optim.SGD([m], lr=0.1), torch.optim.SGD([t], lr=0.1)
        ms = GradScaler("cpu", init_scale=scale)
        ts = torch.amp.GradScaler("cpu", init_scale=scale)
        ms.scale(m.float().sum())
        ts.scale(t.float().sum())
        _set_grad(m, t, rng.standard_normal(7) * 1e3, dt)
        ms.unscale_(mo)
        ts.unscale_(to)
        np.testing.assert_array_equal(_np(m.grad), _np(t.grad))
        assert m.grad.dtype is MG_DT[dt]


# ---------------------------------------------------------------- scale()
def test_scale_structures_dtype_and_errors():
    s = GradScaler("cpu", init_scale=4.0)
    x = mg.tensor([60000.0], dtype=mg.float16)
    y = s.scale(x)
    assert y.dtype is mg.float16 and np.isinf(y.tolist()[0])        # fp16 overflow, as torch
    a, b = mg.tensor([1.0]), mg.tensor([2.0], dtype=mg.bfloat16)
    out = s.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0].tolist() == [4.0] and out[1][0].dtype is mg.bfloat16
    lazy = s.scale(iter([a]))
    assert isinstance(lazy, map) and next(lazy).tolist() == [4.0]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        s.scale([a, 3.0])
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        torch.amp.GradScaler("cpu").scale([torch.ones(1), 3.0])
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    s.scale((w * 3.0).sum()).backward()
    assert w.grad.tolist() == [12.0, 12.0]


# ---------------------------------------------------------------- misuse errors vs torch
def _both(fn_m, fn_t, exc, match):
    with pytest.raises(exc, match=match):
        fn_m()
    with pytest.raises(exc, match=match):
        fn_t()


def _fresh(grad_dtype=np.float32):
    m, t = _pair([1.0, 2.0], grad_dtype)
    mo, to = optim.SGD([m], lr=0.1), torch.optim.SGD([t], lr=0.1)
    ms, ts = GradScaler("cpu"), torch.amp.GradScaler("cpu")
    return m, t, mo, to, ms, ts


def test_errors_before_scale():
    m, t, mo, to, ms, ts = _fresh()
    _both(lambda: ms.unscale_(mo), lambda: ts.unscale_(to), AssertionError,
          "Attempted unscale_ but _scale is None")
    _both(lambda: ms.step(mo), lambda: ts.step(to), AssertionError,
          "Attempted step but _scale is None")
    _both(lambda: ms.update(), lambda: ts.update(), AssertionError,
          "Attempted update but _scale is None")
    assert ms.get_scale() == ts.get_scale() == 2.0 ** 16


def test_state_machine_errors():
    m, t, mo, to, ms, ts = _fresh()
    ms.scale(m.sum()), ts.scale(t.sum())
    _both(lambda: ms.update(), lambda: ts.update(), AssertionError,
          "No inf checks were recorded prior to update.")
    _both(lambda: ms.step(mo), lambda: ts.step(to), AssertionError,
          "No inf checks were recorded for this optimizer.")      # no grads at all
    m, t, mo, to, ms, ts = _fresh()
    ms.scale(m.sum()), ts.scale(t.sum())
    _set_grad(m, t, [1.0, 1.0], np.float32)
    ms.unscale_(mo), ts.unscale_(to)
    _both(lambda: ms.unscale_(mo), lambda: ts.unscale_(to), RuntimeError,
          r"unscale_\(\) has already been called on this optimizer since the last update\(\)\.")
    ms.step(mo), ts.step(to)
    _both(lambda: ms.unscale_(mo), lambda: ts.unscale_(to), RuntimeError,
          r"unscale_\(\) is being called after step\(\)\.")
    _both(lambda: ms.step(mo), lambda: ts.step(to), RuntimeError,
          r"step\(\) has already been called since the last update\(\)\.")
    _both(lambda: ms.step(mo, closure=lambda: 0), lambda: ts.step(to, closure=lambda: 0),
          RuntimeError, "Closure use is not currently supported if GradScaler is enabled.")
    ms.update(), ts.update()
    assert ms._per_optimizer_states[id(mo)]["stage"] is OptState.READY


def test_fp16_grads_refused_bf16_allowed():
    m, t, mo, to, ms, ts = _fresh(np.float16)
    ms.scale(m.float().sum()), ts.scale(t.float().sum())
    _set_grad(m, t, [1.0, 1.0], np.float16)
    _both(lambda: ms.unscale_(mo), lambda: ts.unscale_(to), ValueError,
          "Attempting to unscale FP16 gradients.")
    _both(lambda: ms.step(mo), lambda: ts.step(to), ValueError,
          "Attempting to unscale FP16 gradients.")


def test_update_new_scale():
    m, t, mo, to, ms, ts = _fresh()
    ms.scale(m.sum()), ts.scale(t.sum())
    ms.update(3.5), ts.update(3.5)
    assert ms.get_scale() == ts.get_scale() == 3.5
    ms.update(mg.tensor(7.0)), ts.update(torch.tensor(7.0))
    assert ms.get_scale() == ts.get_scale() == 7.0
    _both(lambda: ms.update(mg.tensor([7.0])), lambda: ts.update(torch.tensor([7.0])),
          RuntimeError, r"output with shape \[\] doesn't match the broadcast shape \[1\]")
    _both(lambda: ms.update(2), lambda: ts.update(2), AttributeError,
          "'int' object has no attribute 'device'")
    _both(lambda: ms.update(mg.tensor([1.0, 2.0])), lambda: ts.update(torch.tensor([1.0, 2.0])),
          AssertionError, "new_scale should be a float")
    _both(lambda: ms.update(mg.tensor([1.0], requires_grad=True)),
          lambda: ts.update(torch.tensor([1.0], requires_grad=True)),
          AssertionError, "new_scale should be a float")


def test_constructor_asserts_and_disabled():
    for kw, msg in [({"growth_factor": 1.0}, "The growth factor must be > 1.0."),
                    ({"backoff_factor": 1.0}, "The backoff factor must be < 1.0.")]:
        _both(lambda: GradScaler("cpu", **kw), lambda: torch.amp.GradScaler("cpu", **kw),
              AssertionError, msg)
    s = GradScaler("cpu", enabled=False)
    p = mg.tensor([1.0], requires_grad=True)
    opt = optim.SGD([p], lr=1.0)
    x = mg.tensor([2.0])
    assert s.scale(x) is x
    p.grad = mg.tensor([float("inf")])
    s.unscale_(opt)
    s.step(opt)                                      # disabled: steps even with inf grads
    assert np.isinf(p.tolist()[0])
    s.update()
    assert s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
    s.load_state_dict({})                            # ignored


def test_state_dict_roundtrip_and_pickle():
    m, t, mo, to, ms, ts = _fresh()
    for s in (ms, ts):
        s.set_growth_factor(3.0), s.set_backoff_factor(0.25), s.set_growth_interval(7)
    assert (ms.get_growth_factor(), ms.get_backoff_factor(), ms.get_growth_interval()) == \
        (3.0, 0.25, 7)
    ms.scale(m.sum()), ts.scale(t.sum())
    _set_grad(m, t, [1.0, 1.0], np.float32)
    ms.step(mo), ts.step(to)
    ms.update(), ts.update()
    assert ms.state_dict() == ts.state_dict()
    n = GradScaler("cpu")
    n.load_state_dict(ms.state_dict())
    assert n.state_dict() == ms.state_dict()
    _both(lambda: GradScaler("cpu").load_state_dict({}),
          lambda: torch.amp.GradScaler("cpu").load_state_dict({}), RuntimeError,
          "The source state dict is empty")
    r = pickle.loads(pickle.dumps(ms))
    assert r.state_dict() == ms.state_dict()
