"""PyTorch-facing autograd API against PyTorch itself: each test runs the same function with
``L = torch`` and ``L = minigrad`` and compares what it records (values, node names, flags,
exception types and messages).

Covers ``inference_mode`` (inference tensors, their errors, ``inference_mode(False)``), grad
modes as bare decorators (functions and generators), ``Module`` full backward hooks,
``autograd.Function`` in PyTorch 2 style (``setup_context``), ``once_differentiable`` and
``mark_dirty``, Python operators (``%``, ``//``, ``abs``, NumPy operands), the freed-graph rule
on hand-picked expressions, and in-place ops on views (``CopySlices``) on hand-picked cases.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

import minigrad as mg


def _compare(run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.no_grad():
            pass
        t = run(torch)
        m = run(mg)
    torch.set_grad_enabled(True)
    mg.set_grad_enabled(True)
    assert len(t) == len(m), (t, m)
    for a, b in zip(t, m):
        assert _eq(a, b), f"\ntorch:    {a}\nminigrad: {b}"


def _eq(a, b):
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    return a == b



def test_inference_and_grad_mode_decorators():
    def run(L):
        out=[]
        def show(*a): out.append(" ".join(str(x).split(" object")[0].replace("<","").replace("torch.","").replace("minigrad.","") for x in a))
        def tr(name, f):
            try: show(name, f())
            except Exception as e: show(name, type(e).__name__, str(e)[:60])
        x = L.tensor([1.,2.], requires_grad=True)
        with L.inference_mode():
            t = L.ones(2); show(t.is_inference(), t.requires_grad, L.is_inference_mode_enabled(), L.is_grad_enabled())
            u = x * 2; show("u", u.is_inference(), u.requires_grad)
            v = x.view(-1); show("v", v.is_inference(), v.requires_grad)
            tv = t[0:1]; show("tv", tv.is_inference())
            t.add_(1); show("inplace inside ok", t.tolist())
        tr("mul", lambda: (x*t).sum().backward())
        tr("add", lambda: (x+t).sum().backward() or x.grad.tolist())
        tr("inplace", lambda: t.add_(1))
        tr("inplace view", lambda: tv.mul_(2))
        tr("nograd inplace", lambda: (lambda: [L.no_grad().__enter__(), t.add_(1)])())
        L.set_grad_enabled(True)
        tr("version", lambda: t._version)
        tr("view rg inplace", lambda: v.mul_(2))
        tr("rg_", lambda: t.requires_grad_())
        tr("clone", lambda: t.clone().is_inference())
        with L.inference_mode(False):
            show(L.is_grad_enabled(), L.is_inference_mode_enabled(), L.ones(1).is_inference())
        with L.inference_mode():
            with L.inference_mode(False):
                show(L.is_grad_enabled(), L.is_inference_mode_enabled(), L.ones(1).is_inference())
        @L.inference_mode
        def f(a): return a * 2
        show("deco", f(x).is_inference(), f(x).requires_grad)
        @L.inference_mode(False)
        def g(a): return a * 2
        show("deco F", g(x).is_inference(), g(x).requires_grad)
        @L.no_grad
        def h(a): return a * 2
        @L.enable_grad
        def h2(a): return a * 2
        @L.no_grad()
        def h3(a): return a * 2
        @L.set_grad_enabled(False)
        def h4(a): return a * 2
        show("no_grad deco", h(x).requires_grad, h3(x).requires_grad, h4(x).requires_grad, L.is_grad_enabled())
        with L.no_grad(): show("enable in no_grad", h2(x).requires_grad)
        @L.no_grad
        def gen():
            yield L.is_grad_enabled()
            yield L.is_grad_enabled()
        show("gen", list(gen()), L.is_grad_enabled())
        return out
    _compare(run)


def test_module_full_backward_hooks():
    def run(L):
        nn = L.nn
        class M(nn.Module):
            def forward(self, x, k, y):
                return x * k + y, (x*2).sum()
        m = M(); log = []
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", [None if g is None else list(g.shape) for g in go])))
        def h(mod, gi, go):
            log.append(("full", [None if g is None else g.tolist() for g in gi], [None if g is None else list(g.shape) for g in go]))
            return (gi[0] * 10,) + gi[1:]
        m.register_full_backward_hook(h)
        x = L.ones(2, requires_grad=True); y = L.ones(2)
        o = m(x, 3, y); log.append(type(o[0].grad_fn).__name__)
        (o[0].sum() + o[1]).backward(); log.append(x.grad.tolist())
        l = nn.Linear(2, 2); hd = l.register_full_backward_hook(lambda mod, gi, go: log.append(("lin", len(gi), gi[0] is None, go[0].tolist())))
        l(L.ones(1,2)).sum().backward()
        l2 = nn.Linear(2, 2)
        l2.register_full_backward_pre_hook(lambda mod, go: (go[0] * 0,))
        xx = L.ones(1,2, requires_grad=True); l2(xx).sum().backward(); log.append(("pre-replace", xx.grad.tolist(), l2.weight.grad.tolist()))
        hd.remove(); l(L.ones(1,2)).sum().backward(); log.append(len(log))
        return log
    _compare(run)


def test_function_setup_context_once_differentiable_mark_dirty():
    def run(L):
        log = []
        class Sq(L.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * x * k
            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.save_for_backward(x); ctx.k = k
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2 * x * ctx.k, None
        x = L.tensor([1., 2.], requires_grad=True)
        y = Sq.apply(x, 3); log.append(type(y.grad_fn).__name__)
        y.sum().backward(); log.append(x.grad.tolist())
        g, = L.autograd.grad(Sq.apply(x, 3).sum(), x, create_graph=True); log.append(g.requires_grad)
        g.sum().backward(); log.append(x.grad.tolist())
        class Once(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x); return x.exp()
            @staticmethod
            @L.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors; log.append(("grad mode in bw", L.is_grad_enabled())); return g * x.exp()
        x.grad = None
        Once.apply(x).sum().backward(); log.append([round(v, 4) for v in x.grad.tolist()])
        g, = L.autograd.grad(Once.apply(x).sum(), x, create_graph=True); log.append((g.requires_grad, type(g.grad_fn).__name__))
        try: g.sum().backward()
        except RuntimeError as e: log.append(str(e))
        class AddOne(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1); ctx.mark_dirty(x); return x
            @staticmethod
            def backward(ctx, g): return g
        a = L.tensor([1., 2.], requires_grad=True); b = a * 1; v0 = b._version
        c = AddOne.apply(b); log.append((c is b, type(b.grad_fn).__name__, b._version - v0, b.tolist()))
        c.sum().backward(); log.append(a.grad.tolist())
        try: AddOne.apply(a)
        except RuntimeError as e: log.append(str(e))
        return log
    _compare(run)


def test_python_operators():
    def run(L):
        out = []
        def tr(name, f):
            try:
                r = f(); out.append((name, r.tolist() if hasattr(r, 'tolist') else r, str(r.dtype).split('.')[-1] if hasattr(r,'dtype') else None))
            except Exception as e: out.append((name, type(e).__name__, str(e)[:60]))
        T = L.tensor
        tr("fmod", lambda: T([-3., 3.5, -0.0, 7.]) % 2)
        tr("negzero", lambda: str((T([-0.0]) % 2).tolist()))
        tr("int", lambda: T([-3, 3]) % -2)
        tr("floordiv f", lambda: T([-7., 7.]) // 2)
        tr("floordiv i", lambda: T([-7, 7]) // -2)
        tr("rmod", lambda: 5 % T([-3., 3.]))
        tr("rfloordiv", lambda: 7 // T([-2, 2]))
        tr("fmodf", lambda: L.fmod(T([-3., 3.]), 2))
        tr("fmodi", lambda: L.fmod(T([-5]), 3))
        tr("inf", lambda: T([-7.5]) % T([float('inf')]))
        tr("zero f", lambda: T([1., -2.]) % 0)
        tr("zero i", lambda: T([1, 2]) % 0)
        tr("zero i //", lambda: T([1, 2]) // 0)
        tr("int % float", lambda: T([5]) % 2.5)
        tr("rmod dtype", lambda: 2.5 % T([2]))
        tr("half", lambda: T([5., -3.], dtype=L.float16) % T(3.))
        tr("bf16", lambda: T([5.3, -3.7], dtype=L.bfloat16) % 1.1)
        tr("bool", lambda: T([True]) % T([True]))
        tr("abs", lambda: abs(T([-1., 2.])))
        a = T([5., -3.], requires_grad=True); b = T([2., 2.], requires_grad=True)
        (a % b).sum().backward(); tr("grads", lambda: (a.grad.tolist(), b.grad.tolist()))
        a.grad = None; b.grad = None
        (L.fmod(a, b) * T([1., 3.])).sum().backward(); tr("fgrads", lambda: (a.grad.tolist(), b.grad.tolist()))
        tr("names", lambda: [type(x.grad_fn).__name__ for x in (a % 2, a % b, L.fmod(a, 2), L.fmod(a, b), 2 % a, a // 2, 2 // a)])
        tr("floordiv bw", lambda: (a // 2).sum().backward())
        tr("rmod bw", lambda: (2 % a).sum().backward())
        nd = np.array([1., 2.])
        t = T([3., 4.])
        tr("t*nd", lambda: t * nd); tr("t+nd", lambda: t + nd); tr("nd/t", lambda: nd / t)
        tr("np64*t", lambda: np.float64(2) * t); tr("np32+t", lambda: np.float32(2) + t); tr("npint-t", lambda: np.int64(3) - t)
        tr("np/t", lambda: np.float64(2) / t)
        return out
    _compare(run)


def test_freed_graph_examples():
    def run(L):
        x = L.tensor([1.,2.], requires_grad=True); r = []
        for name, f in [("div floor", lambda: L.div(x, 2, rounding_mode='floor')), ("div trunc t", lambda: L.div(x, x, rounding_mode='trunc')), ("2/x", lambda: 2/x), ("x/2", lambda: x/2), ("x*3", lambda: x*3), ("3*x", lambda: 3*x), ("pow2", lambda: x**2), ("2**x", lambda: 2**x), ("x-3", lambda: 3-x), ("mul t", lambda: x*x), ("neg", lambda: -x), ("exp", lambda: x.exp()), ("x.sum()*3", lambda: x.sum()*3), ("clamp", lambda: x.clamp(0,1)), ("x[0]", lambda: x[0]), ("x[[0]]", lambda: x[[0]]), ("x[mask]", lambda: x[x>1]), ("mean", lambda: x.mean()), ("t", lambda: x.view(2,1).t()), ("expand", lambda: x.expand(2,2)), ("to", lambda: x.half()), ("relu", lambda: x.relu()), ("abs", lambda: x.abs()), ("sigmoid", lambda: x.sigmoid()), ("tanh", lambda: x.tanh()), ("sqrt", lambda: x.sqrt()), ("log", lambda: x.log()), ("max", lambda: x.max()), ("softmax", lambda: x.softmax(0)), ("mm", lambda: x.view(1,2) @ x.view(2,1)), ("where", lambda: L.where(x > 1, x, 0.)), ("masked_fill", lambda: x.masked_fill(x > 1, 0.)), ("cat", lambda: L.cat([x, x])), ("clone", lambda: x.clone()), ("add_ on clone", lambda: x.clone().add_(1)), ("mul_ scalar on clone", lambda: x.clone().mul_(2)), ("setitem", lambda: (lambda b: (b.__setitem__(0, 5.), b)[1])(x*1)), ("view mul_", lambda: (lambda b: (b[0].mul_(3), b)[1])(x+1)), ("view mul_ t", lambda: (lambda b: (b[0].mul_(x[1]), b)[1])(x+1)), ("relu_", lambda: (x+1).relu_()), ("sigmoid_", lambda: (x+1).sigmoid_())]:
            try:
                y = f().sum(); y.backward()
            except Exception as e: r.append(f"{name} first {type(e).__name__} {e}"); continue
            try: y.backward(); r.append(f"{name} no raise")
            except RuntimeError as e: r.append(f"{name} raises")
        return r
    _compare(run)


def test_views_and_inplace_examples():
    def run(L):
        out = []
        def show(*a): out.append(" ".join(str(x).split(" object")[0].replace("<","") if not isinstance(x,(int,bool)) else str(x) for x in a))
        F = L.nn.functional
        a = L.tensor(np.arange(12.).reshape(3,4)/7, requires_grad=True)
        b = a.clone() if hasattr(a,'clone') else a*1
        v = b[:,1]
        show("v", v.grad_fn, v._version, b._version)
        v.mul_(3)
        show("after", v.grad_fn, b.grad_fn, [n[0] for n in b.grad_fn.next_functions], v._version, b._version)
        (b*b).sum().backward(); show(a.grad.tolist())
        a.grad = None
        b = a*1; v = b.t(); w = v[1]; w.add_(1); show("vov", w.grad_fn, v.grad_fn, b.grad_fn, w._base is b)
        (b*b).sum().backward(); show(a.grad.tolist()); a.grad=None
        for name, f in [("relu_", lambda b: b[0].relu_()), ("sig", lambda b: b[1:].sigmoid_()), ("tanh", lambda b: b.t()[0].tanh_()), ("clamp", lambda b: b[:,2].clamp_(0.1,0.5)), ("F.relu", lambda b: F.relu(b[0], inplace=True)), ("ReLU", lambda b: L.nn.ReLU(inplace=True)(b[2])), ("zero", lambda b: b[0].zero_()), ("fill", lambda b: b[0].fill_(2)), ("copy", lambda b: b[0].copy_(a[1])), ("setitem", lambda b: b.__setitem__((slice(None),1), 5.)), ("setitem2", lambda b: b.__setitem__(0, a[2]*2)), ("setadv", lambda b: b.__setitem__(L.tensor([0,2]), 1.)), ("setmask", lambda b: b.__setitem__(b > 0.5, 0.)), ("viewset", lambda b: b[0].__setitem__(slice(1,None), 2.)), ("view_mul", lambda b: b.view(12).mul_(2)), ("reshape", lambda b: b.reshape(12)[3:].mul_(a.reshape(12)[3:])), ("T", lambda b: b.transpose(0,1).mul_(2)), ("base mod", lambda b: b.mul_(2)), ("sub", lambda b: b[1].sub_(a[0], alpha=2)), ("div", lambda b: b[:, :2].div_(3)),("unsq", lambda b: b.unsqueeze(0)[0, 1].add_(1))]:
            b = a*1; v0 = b[0]
            try:
                f(b); show(name, b.grad_fn, [n[0] for n in b.grad_fn.next_functions], v0.grad_fn, b._version, v0._version)
                (b*b*v0.sum()).sum().backward(); show("  grad", np.round(np.array(a.grad.tolist()),5).tolist())
            except Exception as e: show(name, "ERR", type(e).__name__, str(e)[:50])
            a.grad = None
        return out
    _compare(run)


def test_load_state_dict_accepts_torch_tensors():
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    mm = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.ReLU(), mg.nn.Linear(4, 2))
    res = mm.load_state_dict(tm.state_dict())
    assert not res.missing_keys and not res.unexpected_keys
    for (k, v), (k2, v2) in zip(tm.state_dict().items(), mm.state_dict().items()):
        assert k == k2 and np.array_equal(v.numpy(), v2.numpy())
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(mm(mg.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_load_reads_a_torch_save_file_and_torch_reads_ours(tmp_path):
    path = tmp_path / "w.pt"
    tl = torch.nn.Linear(2, 2)
    torch.save(tl.state_dict(), path)
    with open(path, "rb") as fh:
        for sd in (mg.load(path), mg.load(fh)):
            assert np.array_equal(sd["weight"].numpy(), tl.weight.detach().numpy())
    mg.save({"a": mg.ones(2)}, tmp_path / "m.pt")
    assert torch.load(tmp_path / "m.pt")["a"].tolist() == [1.0, 1.0]


def test_minigrad_testing_available_without_importing_torch():
    import subprocess
    import sys
    code = ("import sys, minigrad; minigrad.testing.assert_close(minigrad.ones(2), "
            "minigrad.ones(2)); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
