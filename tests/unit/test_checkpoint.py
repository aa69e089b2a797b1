"""``minigrad.utils.checkpoint`` against ``torch.utils.checkpoint``.

Gradients of a checkpointed region must be bit-identical to the plain run's (minigrad against
itself: PyTorch draws other dropout masks), in fp32/bf16/fp16, with dropout and under autocast,
for both variants. Call counts of the region (forward + recomputation), warnings, errors and
``checkpoint_sequential``'s segment rule are compared with PyTorch's, computed here by running
the same function in both libraries.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tcp

import minigrad as mg
import minigrad.utils.checkpoint as mcp
from minigrad import nn
from minigrad.nn import functional as F

LIBS = {"torch": (torch, tcp), "minigrad": (mg, mcp)}
VARIANTS = [True, False]


def _both(fn):
    """fn(lib, cp) run with torch and with minigrad: (torch result, minigrad result)."""
    return fn(*LIBS["torch"]), fn(*LIBS["minigrad"])


def _error(fn, lib, cp):
    try:
        fn(lib, cp)
    except Exception as e:       # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e).split("\n")[0]
    return None


def _same_error(fn):
    t, m = _error(fn, *LIBS["torch"]), _error(fn, *LIBS["minigrad"])
    assert t is not None, "torch raised nothing"
    assert m == t


def _bits(t):
    return t.cpu().to(mg.float64).numpy()


# ---------------------------------------------------------------------------------- gradients
def _mlp(dtype):
    mg.manual_seed(0)
    m = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 8), nn.Tanh(),
                      nn.Linear(8, 3))
    return m.to(dtype)


def _grads(model, x, run, seed=7):
    for p in model.parameters():
        p.grad = None
    x.grad = None
    mg.manual_seed(seed)
    out = run(model, x)
    out.float().pow(2).sum().backward()
    after = mg.rand(4)                  # the global stream after forward + backward
    return [_bits(p.grad) for p in model.parameters()] + [_bits(x.grad)], _bits(after)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_grads_bit_identical_with_dropout(dtype, use_reentrant):
    dt = getattr(mg, dtype)
    model = _mlp(dt)
    x = mg.randn(5, 6).to(dt).requires_grad_()
    ref, ref_rng = _grads(model, x, lambda m, x: m(x))
    got, got_rng = _grads(model, x, lambda m, x: mcp.checkpoint(m, x,
                                                                 use_reentrant=use_reentrant))
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ref_rng, got_rng)     # the RNG stream left as the plain run


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_preserve_rng_state_false_draws_other_masks(use_reentrant):
    model = _mlp(mg.float32)
    x = mg.randn(5, 6).requires_grad_()
    ref, _ = _grads(model, x, lambda m, x: m(x))
    got, _ = _grads(model, x, lambda m, x: mcp.checkpoint(m, x, use_reentrant=use_reentrant,
                                                           preserve_rng_state=False))
    assert any(not np.array_equal(a, b) for a, b in zip(ref, got))


@pytest.mark.parametrize("device,dtype", [("cpu", "bfloat16"), ("cuda", "float16")])
@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_autocast_state_replayed(device, dtype, use_reentrant):
    from amp_emu import autocast
    model = _mlp(mg.float32).to(device)
    x = mg.randn(5, 6, device=device).requires_grad_()
    seen = []

    def region(m, x):
        y = m[0](x)
        seen.append(y.dtype)            # before the last saving op: the recomputation gets here
        for layer in list(m)[1:]:
            y = layer(y)
        return y

    def run(ckpt):
        def f(m, x):
            with autocast(device, dtype=getattr(mg, dtype)):
                return mcp.checkpoint(region, m, x, use_reentrant=use_reentrant) if ckpt \
                    else region(m, x)
        return f                                # backward runs outside autocast
    ref, _ = _grads(model, x, run(False))
    got, _ = _grads(model, x, run(True))
    assert seen == [getattr(mg, dtype)] * 3     # plain, checkpointed forward, recomputation
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)


def test_nested_and_kwargs_non_reentrant():
    model = _mlp(mg.float32)
    x = mg.randn(5, 6).requires_grad_()
    calls = {"inner": 0, "outer": 0}

    def inner(h, *, scale, act):
        calls["inner"] += 1
        return act(h * scale)

    def outer(m, x, n):
        calls["outer"] += 1
        h = m[0](x)
        for _ in range(n):
            h = mcp.checkpoint(inner, h, use_reentrant=False, scale=0.5, act=mg.tanh)
        return m[5](m[3](h)).sin()

    ref, _ = _grads(model, x, lambda m, x: outer(m, x, 2))
    calls.update(inner=0, outer=0)
    got, _ = _grads(model, x, lambda m, x: mcp.checkpoint(outer, m, x, 2, use_reentrant=False))
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)

    def counts(lib, cp):
        c = {"inner": 0, "outer": 0}

        def inner_(h, *, scale):
            c["inner"] += 1
            return (h * scale).tanh()

        def outer_(x):
            c["outer"] += 1
            return cp.checkpoint(inner_, x.sin(), use_reentrant=False, scale=0.5).exp()
        x = lib.ones(3, requires_grad=True)
        cp.checkpoint(outer_, x, use_reentrant=False).sum().backward()
        return c, x.grad.tolist()
    (tc, tg), (mc, mgr) = _both(counts)
    assert mc == tc
    np.testing.assert_allclose(mgr, tg, rtol=1e-6)
    assert calls["outer"] == 2


# ---------------------------------------------------------------------------------- call counts
def _counting(lib, cp, use_reentrant, backward, **kw):
    n = [0, 0]         # region calls, code after the last saving op

    def f(x, w):
        n[0] += 1
        y = (x * w).exp()
        n[1] += 1
        return y.sum()
    x = lib.ones(3, requires_grad=True)
    w = lib.full((3,), 2.0, requires_grad=True)
    out = cp.checkpoint(f, x, w, use_reentrant=use_reentrant, **kw)
    backward(lib, out, x, w)
    return n, None if x.grad is None else x.grad.tolist()


BACKWARDS = {
    "backward": lambda lib, out, x, w: out.backward(),
    "twice": lambda lib, out, x, w: (out.backward(retain_graph=True), out.backward()),
    "grad": lambda lib, out, x, w: lib.autograd.grad(out, [x, w]),
    "no_grad_fwd": None,
}


@pytest.mark.parametrize("kind", ["backward", "twice", "grad"])
@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_call_counts(kind, use_reentrant):
    bw = BACKWARDS[kind]
    if kind == "grad" and use_reentrant:
        _same_error(lambda lib, cp: _counting(lib, cp, True, bw))
        return
    t, m = _both(lambda lib, cp: _counting(lib, cp, use_reentrant, bw))
    assert m == t


def test_early_stop_counts():
    for kw in ({}, {"early_stop": False}):
        t, m = _both(lambda lib, cp: _counting(lib, cp, False, BACKWARDS["backward"], **kw))
        assert m == t
    t, m = _both(lambda lib, cp: _early_stop_ctx(lib, cp))
    assert m == t


def _early_stop_ctx(lib, cp):
    with cp.set_checkpoint_early_stop(False):
        return _counting(lib, cp, False, BACKWARDS["backward"])


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_no_grad_runs_once(use_reentrant):
    def f(lib, cp):
        n = [0]

        def g(x):
            n[0] += 1
            return x.exp()
        with lib.no_grad():
            y = cp.checkpoint(g, lib.ones(2, requires_grad=True), use_reentrant=use_reentrant)
        return n, y.requires_grad
    t, m = _both(f)
    assert m == t


def test_inputs_without_grad_and_params():
    """Reentrant: PyTorch's warning and no parameter grads; non-reentrant: parameter grads."""
    def f(lib, cp, use_reentrant):
        w = lib.full((3,), 2.0, requires_grad=True)
        x = lib.ones(3)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = cp.checkpoint(lambda x: (x * w).sum(), x, use_reentrant=use_reentrant)
        msgs = [str(r.message) for r in rec]
        if out.requires_grad:
            out.backward()
        return msgs, out.requires_grad, None if w.grad is None else w.grad.tolist()
    for ur in VARIANTS:
        t, m = _both(lambda lib, cp: f(lib, cp, ur))
        assert m == t


def test_use_reentrant_not_passed_warns_and_is_reentrant():
    def f(lib, cp):
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = cp.checkpoint(lambda x: x.exp().sum(), x)
            cp.checkpoint_sequential([lambda x: x.exp()], 1, x)
        return [str(r.message) for r in rec], out.grad_fn.name()
    (tw, tn), (mw, mn) = _both(f)
    assert mw == tw
    assert tn == "CheckpointFunctionBackward" == mn


def test_reentrant_refuses_inputs():
    def f(lib, cp):
        x = lib.ones(3, requires_grad=True)
        cp.checkpoint(lambda x: x.exp().sum(), x, use_reentrant=True).backward(inputs=[x])
    _same_error(f)


def test_argument_errors():
    _same_error(lambda lib, cp: cp.checkpoint(lambda x, y: x, lib.ones(1), use_reentrant=True,
                                              y=1))
    _same_error(lambda lib, cp: cp.checkpoint(lambda x: x, lib.ones(1), use_reentrant=True,
                                              debug=True))
    _same_error(lambda lib, cp: cp.checkpoint(lambda x: x, lib.ones(1, requires_grad=True),
                                              use_reentrant=False, determinism_check="x"))


# ---------------------------------------------------------------------------------- errors
def _mismatch(lib, cp, variant, **kw):
    n = [0]

    def f(x):
        n[0] += 1
        if variant == "count":
            return x.sin().exp() if n[0] == 1 else x.sin() * 2
        return x.sin() if n[0] == 1 else x[:2].sin()
    x = lib.ones(3, requires_grad=True)
    cp.checkpoint(f, x, use_reentrant=False, **kw).sum().backward()


@pytest.mark.parametrize("variant", ["count", "meta"])
def test_checkpoint_error_on_mismatch(variant):
    t = _error(lambda lib, cp: _mismatch(lib, cp, variant), *LIBS["torch"])
    m = _error(lambda lib, cp: _mismatch(lib, cp, variant), *LIBS["minigrad"])
    assert t[0] == "CheckpointError" and m == t
    with pytest.raises(mcp.CheckpointError) as e:
        _mismatch(mg, mcp, variant)
    assert isinstance(e.value, RuntimeError)


def test_determinism_check_none_and_debug():
    t, m = _both(lambda lib, cp: _error(lambda l, c: _mismatch(l, c, "meta",
                                                               determinism_check="none"),
                                        lib, cp))
    assert t[0] == "RuntimeError" and m == t      # no CheckpointError: the backward's own
    with pytest.raises(mcp.CheckpointError) as e:
        _mismatch(mg, mcp, "meta", debug=True)
    msg = str(e.value)
    fwd = msg.split("Operations executed during the original forward:")[1]
    fwd, rec = fwd.split("Operations executed during recomputation:")
    assert "aten.sin" in fwd and "aten.index" not in fwd
    assert "aten.index" in rec and "aten.sin" in rec
    assert "Detected non-determinism" in msg
    with mcp.set_checkpoint_debug_enabled(True), pytest.raises(mcp.CheckpointError) as e:
        _mismatch(mg, mcp, "meta")
    assert "Operations executed during recomputation" in str(e.value)


def test_unpack_twice_is_an_error():
    def f(lib, cp):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors
                return g * ctx.saved_tensors[0]
        x = lib.ones(3, requires_grad=True)
        cp.checkpoint(lambda x: Twice.apply(x).sum(), x, use_reentrant=False).backward()
    _same_error(f)


# ---------------------------------------------------------------------------------- sequential
@pytest.mark.parametrize("n,segments", [(6, 3), (7, 3), (6, 6), (6, 1)])
def test_checkpoint_sequential_segments(n, segments):
    def f(lib, cp):
        calls = [0] * n

        def make(i):
            def g(x):
                calls[i] += 1
                return (x * 1.5).sin()
            return g
        x = lib.ones(2, requires_grad=True)
        cp.checkpoint_sequential([make(i) for i in range(n)], segments, x,
                                 use_reentrant=False).sum().backward()
        return calls, x.grad.tolist()
    (tc, tg), (mc, mgr) = _both(f)
    assert mc == tc
    np.testing.assert_allclose(mgr, tg, rtol=1e-5)


def test_checkpoint_sequential_module_and_errors():
    model = _mlp(mg.float32)
    x = mg.randn(5, 6).requires_grad_()
    ref, _ = _grads(model, x, lambda m, x: m(x))
    got, _ = _grads(model, x, lambda m, x: mcp.checkpoint_sequential(m, 2, x,
                                                                      use_reentrant=True))
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a, b)
    _same_error(lambda lib, cp: cp.checkpoint_sequential([lambda x: x] * 2, 3,
                                                         lib.ones(1), use_reentrant=False))
    _same_error(lambda lib, cp: cp.checkpoint_sequential([lambda x: x] * 2, 1, lib.ones(1),
                                                         use_reentrant=False, foo=1))


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_non_tensor_output_and_freed_graph(use_reentrant):
    def f(lib, cp):
        x = lib.ones(3, requires_grad=True)
        y, k = cp.checkpoint(lambda x: (x.sin().exp(), 3), x, use_reentrant=use_reentrant)
        y.sum().backward()
        return k, x.grad.tolist(), _error(lambda *a: y.sum().backward(), lib, cp)
    t, m = _both(f)
    assert m[0] == t[0] and m[2] == t[2]
    np.testing.assert_allclose(m[1], t[1], rtol=1e-6)
    assert t[2][0] == "RuntimeError"
