"""The normalization layers against their torch twins from the same weights (outputs, input and
parameter gradients, running buffers over a few train-mode steps, eval mode, ``state_dict`` in
both directions, ``repr``), PyTorch's errors, the zero-variance corners the catalogue samples
avoid, mixed 16-bit/fp32 dtypes, and double backward."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradgradcheck
from minigrad.dispatch import DispatchMode
from minigrad.testing import from_torch, to_torch


def _err(fn):
    """(exception type name, message) of ``fn()``, or None; ``minigrad.Size`` reads as
    ``torch.Size``."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e).replace("minigrad.Size", "torch.Size")
    return None


def _same(a, b, exact=False):
    a = to_torch(a)
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    if exact:
        assert torch.equal(a, b), (a, b)
    else:
        torch.testing.assert_close(a, b, rtol=2e-6, atol=2e-6)


def _twins(ctor, *args, **kwargs):
    """(minigrad module, torch module) with the torch module's (randomised) state loaded."""
    t = getattr(torch.nn, ctor)(*args, **kwargs)
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.randn_like(p) * 0.5 + 1)
    m = getattr(nn, ctor)(*args, **kwargs)
    m.load_state_dict(t.state_dict())
    return m, t


MODULES = [
    ("LayerNorm", (4,), {}, (2, 3, 4)),
    ("LayerNorm", ([3, 4],), {"elementwise_affine": False}, (2, 3, 4)),
    ("LayerNorm", (4,), {"bias": False, "eps": 1e-3}, (5, 4)),
    ("RMSNorm", (4,), {}, (2, 3, 4)),
    ("RMSNorm", ([3, 4],), {"eps": 1e-6, "elementwise_affine": False}, (2, 3, 4)),
    ("GroupNorm", (2, 4), {}, (2, 4, 3)),
    ("GroupNorm", (1, 4), {"affine": False}, (3, 4, 2, 2)),
    ("BatchNorm1d", (4,), {}, (5, 4)),
    ("BatchNorm1d", (4,), {"momentum": None}, (3, 4, 2)),
    ("BatchNorm2d", (3,), {"affine": False}, (2, 3, 2, 2)),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, (2, 3, 2, 2)),
    ("BatchNorm3d", (2,), {"bias": False}, (2, 2, 2, 1, 2)),
    ("InstanceNorm1d", (4,), {}, (2, 4, 3)),
    ("InstanceNorm1d", (4,), {"affine": True, "track_running_stats": True}, (2, 4, 3)),
    ("InstanceNorm2d", (3,), {"affine": True}, (3, 2, 2)),          # unbatched input
    ("LocalResponseNorm", (3,), {"alpha": 0.5, "k": 2.0}, (2, 5, 3)),
    ("LocalResponseNorm", (2,), {}, (2, 4, 2, 2)),
]


@pytest.mark.parametrize("ctor,args,kwargs,shape", MODULES,
                         ids=[f"{c}-{i}" for i, (c, *_r) in enumerate(MODULES)])
def test_module_matches_torch_twin(ctor, args, kwargs, shape):
    torch.manual_seed(1)
    m, t = _twins(ctor, *args, **kwargs)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    for _ in range(2):                               # train mode: outputs, grads, buffers
        x = torch.randn(*shape) * 2 + 0.5
        xt, xm = x.clone().requires_grad_(), from_torch(x, requires_grad=True)
        yt, ym = t(xt), m(xm)
        _same(ym, yt.detach())
        g = torch.randn_like(yt)
        yt.backward(g)
        ym.backward(from_torch(g))
        _same(xm.grad, xt.grad)
        for (_, pm), (_, pt) in zip(m.named_parameters(), t.named_parameters()):
            _same(pm.grad, pt.grad)
        for (nb, bm), (_, bt) in zip(m.named_buffers(), t.named_buffers()):
            _same(bm, bt, exact=nb == "num_batches_tracked")
    m.eval()
    t.eval()
    x = torch.randn(*shape)
    _same(m(from_torch(x)), t(x).detach())
    t2 = getattr(torch.nn, ctor)(*args, **kwargs)     # state_dict, minigrad -> torch
    t2.load_state_dict({k: to_torch(v) for k, v in m.state_dict().items()})
    t2.eval()
    _same(m(from_torch(x)), t2(x).detach())


def test_batchnorm_buffers_and_resets():
    torch.manual_seed(0)
    m, t = _twins("BatchNorm1d", 3, momentum=None)
    for _ in range(3):
        x = torch.randn(4, 3)
        m(from_torch(x))
        t(x)
    assert int(m.num_batches_tracked) == 3 and m.num_batches_tracked.dtype is minigrad.int64
    _same(m.running_mean, t.running_mean)
    _same(m.running_var, t.running_var)
    m.reset_running_stats()
    assert m.running_mean.tolist() == [0.0] * 3 and m.running_var.tolist() == [1.0] * 3
    assert int(m.num_batches_tracked) == 0
    m.reset_parameters()
    assert m.weight.tolist() == [1.0] * 3 and m.bias.tolist() == [0.0] * 3
    e = nn.BatchNorm2d(3, affine=False, track_running_stats=False)
    assert e.weight is None and e.running_mean is None and e.num_batches_tracked is None
    assert list(e.state_dict()) == []
    d = nn.LayerNorm(4, dtype=minigrad.float16)
    assert d.weight.dtype is minigrad.float16 and d.bias.dtype is minigrad.float16
    b16 = nn.BatchNorm1d(2, dtype=minigrad.bfloat16)
    assert b16.running_var.dtype is minigrad.bfloat16
    assert b16.num_batches_tracked.dtype is minigrad.int64


def test_errors_match_torch():
    cases = [
        lambda lib: lib.nn.BatchNorm1d(3)(lib.randn(2, 3, 4, 5)),
        lambda lib: lib.nn.BatchNorm2d(3)(lib.randn(2, 3, 4)),
        lambda lib: lib.nn.BatchNorm3d(3)(lib.randn(2, 3, 4, 4)),
        lambda lib: lib.nn.InstanceNorm1d(3)(lib.randn(2, 3, 4, 5)),
        lambda lib: lib.nn.InstanceNorm2d(3)(lib.randn(2, 3)),
        lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.randn(2, 4, 5)),
        lambda lib: lib.nn.GroupNorm(2, 3),
        lambda lib: lib.nn.functional.group_norm(lib.randn(2, 3, 4), 2),
        lambda lib: lib.nn.functional.group_norm(lib.randn(2, 4, 4), 2, lib.ones(3)),
        lambda lib: lib.nn.functional.group_norm(lib.randn(1, 2), 2),
        lambda lib: lib.nn.functional.layer_norm(lib.randn(2, 3, 4), (5,)),
        lambda lib: lib.nn.functional.layer_norm(lib.randn(2, 3, 4), (4,), lib.ones(3)),
        lambda lib: lib.nn.functional.layer_norm(lib.randn(2, 3, 4), ()),
        lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3, dtype=lib.int64), (3,)),
        lambda lib: lib.nn.functional.rms_norm(lib.randn(2, 3, 4), (5,)),
        lambda lib: lib.nn.functional.batch_norm(lib.randn(2, 3), lib.zeros(2), lib.ones(2),
                                                 training=True),
        lambda lib: lib.nn.functional.batch_norm(lib.randn(1, 3), lib.zeros(3), lib.ones(3),
                                                 training=True),
        lambda lib: lib.nn.functional.batch_norm(lib.randn(2, 3), None, None),
        lambda lib: lib.nn.functional.batch_norm(lib.randn(3), None, None, training=True),
        lambda lib: lib.nn.functional.group_norm(lib.randn(3), 1),
        lambda lib: lib.nn.functional.instance_norm(lib.randn(2, 3, 1)),
        lambda lib: lib.nn.functional.local_response_norm(lib.randn(2, 3), 2),
        lambda lib: lib.nn.functional.layer_norm(lib.randn(2, 3), (3,),
                                                 lib.ones(3, dtype=lib.float64)),
        lambda lib: lib.nn.functional.layer_norm(lib.randn(2, 3).half(), (3,),
                                                 lib.ones(3, dtype=lib.bfloat16)),
        lambda lib: lib.nn.functional.batch_norm(lib.randn(2, 3).half(), lib.zeros(3),
                                                 lib.ones(3), lib.ones(3, dtype=lib.float64)),
    ]
    for i, case in enumerate(cases):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _err(lambda: case(minigrad)) == _err(lambda: case(torch)), i


def test_zero_variance_groups_are_rounding_noise_in_both():
    """Constant rows and one-element groups: var 0, so the fused formulas give rounding noise
    around ``bias`` (and gradients around 0) in both libraries; equal within a tiny absolute
    tolerance. The catalogue samples avoid these corners for their ULP bounds."""
    x = torch.tensor([[[1.625, 1.625], [0.3, -0.7]], [[2.0, 2.0], [3.0, 3.0]]])
    w, b = torch.tensor([0.5, 2.0]), torch.tensor([0.25, -1.0])
    for f in (lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (2,), w, b),
              lambda lib, x, w, b: lib.nn.functional.group_norm(x, 2, w, b),
              lambda lib, x, w, b: lib.nn.functional.batch_norm(
                  x.reshape(4, 2), None, None, w, b, training=True)):
        ts = [v.clone().requires_grad_() for v in (x, w, b)]
        ms = [from_torch(v, requires_grad=True) for v in (x, w, b)]
        yt, ym = f(torch, *ts), f(minigrad, *ms)
        torch.testing.assert_close(to_torch(ym), yt.detach(), rtol=0, atol=1e-4)
        g = torch.linspace(-1, 1, yt.numel()).reshape(yt.shape)
        gt = torch.autograd.grad(yt, ts, g)
        gm = minigrad.autograd.grad([ym], ms, [from_torch(g)])
        for a, e in zip(gm, gt):
            torch.testing.assert_close(to_torch(a), e, rtol=0, atol=1e-3)


def test_mixed_16bit_input_with_fp32_parameters_bit_exact():
    """A 16-bit input with fp32 weight/bias (autocast's case): computed in fp32, output in the
    input's dtype (bit-exact), statistics in fp32 (within an ulp: PyTorch's Welford order),
    gradients bit-exact in fp16 and within a bf16 ulp, as torch."""
    torch.manual_seed(3)
    for dt in (torch.float16, torch.bfloat16):
        x = (torch.randn(3, 4, 5) * 2).to(dt)
        w, b = torch.randn(5), torch.randn(5)
        ts = [v.clone().requires_grad_() for v in (x, w, b)]
        ms = [from_torch(v, requires_grad=True) for v in (x, w, b)]
        out_t = torch.native_layer_norm(ts[0], [5], ts[1], ts[2], 1e-5)
        out_m = minigrad.native_layer_norm(ms[0], [5], ms[1], ms[2], 1e-5)
        for i, (a, e) in enumerate(zip(out_m, out_t)):     # fp32 mean/rstd: Welford order
            _same(a, e.detach(), exact=i == 0)
        g = torch.randn(3, 4, 5).to(dt)
        for a, e in zip(minigrad.autograd.grad([out_m[0]], ms, [from_torch(g)]),
                        torch.autograd.grad(out_t[0], ts, g)):
            if dt is torch.float16:
                _same(a, e, exact=True)
            else:     # PyTorch's mixed bf16 kernel sums ds/db in its own vector order
                torch.testing.assert_close(to_torch(a), e, rtol=8e-3, atol=1e-5)
        wc, bc = torch.randn(4), torch.randn(4)
        yt = torch.nn.functional.group_norm(x, 2, wc, bc)
        _same(F.group_norm(from_torch(x), 2, from_torch(wc), from_torch(bc)), yt, exact=True)
        rm, rv = torch.zeros(4), torch.ones(4)
        rmm, rvm = from_torch(rm), from_torch(rv)
        yt = torch.nn.functional.batch_norm(x, rm, rv, wc, bc, training=True)
        ym = F.batch_norm(from_torch(x), rmm, rvm, from_torch(wc), from_torch(bc), training=True)
        _same(ym, yt, exact=True)
        _same(rmm, rm)
        _same(rvm, rv)


def test_graph_nodes_and_rms_norm_composite_ops():
    x = minigrad.randn(2, 3, 4, requires_grad=True)
    assert F.layer_norm(x, (4,)).grad_fn.name() == "NativeLayerNormBackward0"
    assert F.group_norm(x, 3).grad_fn.name() == "NativeGroupNormBackward0"
    assert F.batch_norm(x, None, None, training=True).grad_fn.name() == \
        "NativeBatchNormBackward0"
    assert F.instance_norm(x).grad_fn.name() == "ViewBackward0"
    assert F.rms_norm(x, (4,)).grad_fn.name() == "MulBackward0"
    assert F.rms_norm(x.half(), (4,)).grad_fn.name() == "ToCopyBackward0"
    for name, args in (("native_layer_norm", ([4], None, None, 1e-5)),
                       ("native_group_norm", (None, None, 2, 3, 4, 3, 1e-5)),
                       ("native_batch_norm", (None, None, None, None, True, 0.1, 1e-5))):
        xt = to_torch(x)
        assert [o.requires_grad for o in getattr(minigrad, name)(x, *args)] == \
            [o.requires_grad for o in getattr(torch, name)(xt, *args)], name
    g = minigrad.autograd.grad([F.layer_norm(x, (4,)).sum()], [x], create_graph=True)[0]
    assert g.grad_fn.name() == "NativeLayerNormBackwardBackward0"
    seen = []

    class Rec(DispatchMode):
        def __minigrad_dispatch__(self, op, args, kwargs, call_next):
            seen.append(op)
            return call_next(args, kwargs)
    xh = x.detach().half()
    with Rec():
        F.rms_norm(xh, (4,))
    # PyTorch 2.13's CPU trace: _to_copy, pow.Tensor_Scalar, mean.dim, add_.Scalar, rsqrt, mul,
    # _to_copy (our ``mean`` and ``add`` are its ``mean.dim`` and out-of-place ``add_``)
    assert seen == ["rms_norm", "_to_copy", "pow.Tensor_Scalar", "mean", "add", "rsqrt", "mul",
                    "_to_copy"]


@pytest.mark.parametrize("which", ["layer", "group", "batch_train", "batch_eval"])
def test_double_backward(which):
    minigrad.manual_seed(0)
    f64 = minigrad.float64
    x = minigrad.randn(2, 4, 2, dtype=f64, requires_grad=True)
    w = minigrad.randn(4, dtype=f64, requires_grad=True)
    b = minigrad.randn(4, dtype=f64, requires_grad=True)
    rm, rv = minigrad.zeros(4, dtype=f64) + 0.2, minigrad.zeros(4, dtype=f64) + 1.3
    fns = {"layer": lambda x, w, b: F.layer_norm(x.transpose(1, 2), (4,), w, b),
           "group": lambda x, w, b: F.group_norm(x, 2, w, b),
           "batch_train": lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
           "batch_eval": lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False)}
    assert gradgradcheck(fns[which], (x, w, b))


def test_parameter_dtype_rules_match_torch():
    """PyTorch's CPU rules for parameter dtypes (the first parameter decides "mixed"), for the
    batch, group and instance norm calls (their catalogue specs skip the dtype-mix test)."""
    names = ["float64", "float32", "float16", "bfloat16"]
    combos = [("float16", "float32", "float16"), ("float16", "float16", "float32"),
              ("float64", "float32", None), ("float32", "float64", "float32"),
              ("float64", "float64", "float32"), ("bfloat16", "float32", "float32"),
              ("float16", None, "float32"), ("float32", "bfloat16", "bfloat16")]
    assert all(d in names for c in combos for d in c if d)

    def run(lib, x, w, b, r, which):
        dt = lambda n: getattr(lib, n)  # noqa: E731
        xs = lib.ones(2, 4, 3, dtype=dt(x)) * lib.arange(3, dtype=dt(x))
        ws = None if w is None else lib.ones(4, dtype=dt(w))
        bs = None if b is None else lib.zeros(4, dtype=dt(b))
        rs = [lib.zeros(4, dtype=dt(r)), lib.ones(4, dtype=dt(r))]
        f = lib.nn.functional
        if which == "group":
            return f.group_norm(xs, 2, ws, bs).dtype
        if which == "batch":
            return f.batch_norm(xs, *rs, ws, bs, training=True).dtype
        return f.instance_norm(xs, *rs, ws, bs).dtype

    for x, w, b in combos:
        for r in ("float32", x):
            for which in ("group", "batch", "instance"):
                got = _err(lambda: run(minigrad, x, w, b, r, which))
                want = _err(lambda: run(torch, x, w, b, r, which))
                if got is None and want is None:
                    assert str(run(minigrad, x, w, b, r, which)).split(".")[-1] == \
                        str(run(torch, x, w, b, r, which)).split(".")[-1]
                else:
                    assert got == want, (x, w, b, r, which)


@pytest.mark.parametrize("low", [None, "bfloat16", "float16"])
def test_layer_norm_dgamma_fast_row_fma_has_the_general_loops_bits(low):
    """``thread_row_sums``' fp32 fma path (all products at once, a one-call add-and-round per
    row, the round-to-odd check afterwards) against the general row loop that calls ``fma32``
    per row: the same bits, 16-bit buffers included, with thread chunks (k > 1) and a halfway
    case the check must catch (maths: fma(2**-24 (1 + 2**-15), 1 - 2**-15, 1 + 2**-23) is
    1 + 2**-23; rounding the float64 sum twice would give 1 + 2**-22)."""
    from minigrad import numerics as nx
    from minigrad.ops import _normalization as norm
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: the general loop is the only path")
    lowdt = None if low is None else getattr(minigrad, low)
    rng = np.random.default_rng(1)
    for k, size, n in ((1, 200, 16), (3, 37, 5)):
        u = rng.standard_normal((k, size, n)).astype(np.float32)
        v = (rng.standard_normal((k, size, n)) * 2.0 ** rng.integers(-30, 30, (k, size, n))
             ).astype(np.float32)
        u[0, 0, 0], v[0, 0, 0] = 1 + 2 ** -23, 1.0
        u[0, 1, 0], v[0, 1, 0] = 2 ** -24 * (1 + 2 ** -15), 1 - 2 ** -15
        want = norm._row_sums_loop(u, v, lowdt)
        got = norm._fma_row_sums32(u, v, lowdt)
        assert got.dtype == want.dtype == np.float32 and got.tobytes() == want.tobytes()
        if low is None:
            two = norm._fma_row_sums32(u[:, :2], v[:, :2], None)
            assert two[0, 0] == np.float32(1 + 2 ** -23)
