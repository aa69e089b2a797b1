"""``minigrad.autograd.graph`` saved-tensor hooks and ``grad_fn._saved_*`` against torch.

Each test runs one function with torch and with minigrad and compares what the hooks saw (pack
and unpack calls, in order, with the packed tensor's node name and requires_grad), the
gradients, and the errors (type and message).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from minigrad.autograd import graph as mgraph
from minigrad.autograd.saved_tensors import _hooks_state
from minigrad.nn import functional as F

LIBS = {"torch": (torch, TF, torch.autograd.graph), "minigrad": (mg, F, mgraph)}


def _both(fn):
    return fn(*LIBS["torch"]), fn(*LIBS["minigrad"])


def _error(fn, *lib):
    try:
        fn(*lib)
    except Exception as e:       # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e)
    return None


def _same_error(fn):
    t, m = _error(fn, *LIBS["torch"]), _error(fn, *LIBS["minigrad"])
    assert t is not None, "torch raised nothing"
    assert m == t


def _logging_hooks(graph, log, tag=""):
    def pack(t):
        log.append(("pack" + tag, None if t.grad_fn is None else t.grad_fn.name(),
                    t.requires_grad, tuple(t.shape)))
        return t.detach()

    def unpack(t):
        log.append(("unpack" + tag,))
        return t
    return graph.saved_tensors_hooks(pack, unpack)


def _xw(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = lib.tensor([1.5, 0.25, -0.5], requires_grad=True)
    return x, w


@pytest.fixture(autouse=True)
def _no_hooks_left():
    yield
    assert not _hooks_state.stack and _hooks_state.disabled is None


# ---------------------------------------------------------------------------------- counts
def test_pack_unpack_calls_and_grads():
    def f(lib, F, graph):
        log = []
        x, w = _xw(lib)
        with _logging_hooks(graph, log):
            y = ((x * w).exp() + x.tanh() + F.softmax(x * 3.0, 0) + F.relu(x) @ w).sum()
            with lib.no_grad():
                (x * w).exp()                    # nothing is saved without grad
        n = len(log)
        y.backward(retain_graph=True)
        y.backward()
        return log[:n], log[n:], x.grad.tolist(), w.grad.tolist()
    (tp, tu, tx, tw), (mp, mu, mx, mw) = _both(f)
    assert mp == tp and mu == tu
    np.testing.assert_allclose(mx, tx, rtol=1e-6)
    np.testing.assert_allclose(mw, tw, rtol=1e-6)


def test_nesting_innermost_only_and_custom_function():
    def f(lib, F, graph):
        log = []

        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                o = a * b
                ctx.save_for_backward(a, None, o)
                return o

            @staticmethod
            def backward(ctx, g):
                a, _, o = ctx.saved_tensors
                ctx.saved_tensors                # each access unpacks again
                return g * o / a, None
        x, w = _xw(lib)
        with _logging_hooks(graph, log, "1"):
            with _logging_hooks(graph, log, "2"):
                y = Fn.apply(x, w.detach())
            z = (y * 2).sum()
        z.backward()
        return log, x.grad.tolist()
    (tl, tg), (ml, mgr) = _both(f)
    assert ml == tl
    np.testing.assert_allclose(mgr, tg, rtol=1e-6)


def test_double_backward_through_hooks():
    def f(lib, F, graph):
        x, _ = _xw(lib)
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = (x * x * x.sin()).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        return g2.tolist()
    t, m = _both(f)
    np.testing.assert_allclose(m, t, rtol=1e-6)


# ---------------------------------------------------------------------------------- errors
def test_hook_errors():
    def unpack_not_tensor(lib, F, graph):
        x, w = _xw(lib)
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: 5):
            y = (x * w).sum()
        y.backward()

    def pack_in_place(lib, F, graph):
        x, w = _xw(lib)
        with graph.saved_tensors_hooks(lambda t: t.mul_(1), lambda t: t):
            (x.clone() * w).sum()

    def disabled_enter(lib, F, graph):
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def disabled_save(lib, F, graph):
        x, w = _xw(lib)
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with graph.disable_saved_tensors_hooks("outer"):
                with graph.disable_saved_tensors_hooks("inner"):
                    pass
                x * w                        # the message restored on the inner exit

    def freed(lib, F, graph):
        x, w = _xw(lib)
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = x * w
        y.sum().backward()
        y.grad_fn._saved_self

    for fn in (unpack_not_tensor, pack_in_place, disabled_enter, disabled_save, freed):
        _same_error(fn)


def test_no_version_check_with_hooks():
    def f(lib, F, graph):
        x, w = _xw(lib)
        a = x.clone()
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (a * w).sum()
        a.add_(1)
        y.backward()
        z = (x.clone() * w).sum()
        return w.grad.tolist(), _error(lambda *l: (x.grad_fn, z.grad_fn, w.mul_(2),
                                                   z.backward()), lib, F, graph)
    t, m = _both(f)
    assert m[0] == t[0]
    assert m[1][0] == t[1][0] == "RuntimeError"


def test_save_on_cpu_moves_to_cpu_and_back():
    packed = []
    x = mg.randn(4, device="cuda", requires_grad=True)
    w = mg.randn(4, device="cuda", requires_grad=True)

    def run(offload):
        x.grad = w.grad = None
        with mgraph.save_on_cpu() if offload else mgraph.saved_tensors_hooks(lambda t: t,
                                                                             lambda t: t):
            y = (x * w).exp()
        if offload:
            packed.extend(s.packed for s in y.grad_fn._saved + y.grad_fn.next_functions[0][0]._saved)
        assert y.grad_fn._saved_result.device.type == "cuda"
        y.sum().backward()
        return x.grad.cpu().numpy(), w.grad.cpu().numpy(), x.grad.device
    ref, got = run(False), run(True)
    np.testing.assert_array_equal(ref[0], got[0])
    np.testing.assert_array_equal(ref[1], got[1])
    assert got[2].type == "cuda"
    assert [(d.type, t.device.type) for d, t in packed] == [("cuda", "cpu")] * 3


# ---------------------------------------------------------------------------------- _saved_*
SAVED_CASES = {
    "mul": lambda L, F, x, w, b: x * x.exp(), "mul_scalar": lambda L, F, x, w, b: x * 3.0,
    "div": lambda L, F, x, w, b: x / x.exp(), "mm": lambda L, F, x, w, b: x.mm(w),
    "addmm": lambda L, F, x, w, b: L.addmm(b, x, w, beta=2, alpha=0.5),
    "linear": lambda L, F, x, w, b: F.linear(x, w.t(), b),
    "pow": lambda L, F, x, w, b: x ** 2, "pow_tensor": lambda L, F, x, w, b: x.abs() ** x,
    "exp": lambda L, F, x, w, b: x.exp(), "tanh": lambda L, F, x, w, b: x.tanh(),
    "sigmoid": lambda L, F, x, w, b: x.sigmoid(), "relu": lambda L, F, x, w, b: x.relu(),
    "log": lambda L, F, x, w, b: x.abs().log(), "sqrt": lambda L, F, x, w, b: x.abs().sqrt(),
    "softmax": lambda L, F, x, w, b: x.softmax(1),   # (PyTorch shows dim=-1 as 2**64-1)
    "log_softmax": lambda L, F, x, w, b: x.log_softmax(1),
    "gelu": lambda L, F, x, w, b: F.gelu(x), "sin": lambda L, F, x, w, b: x.sin(),
    "bmm": lambda L, F, x, w, b: L.bmm(x[None], w[None]),
    "layer_norm": lambda L, F, x, w, b: F.layer_norm(x, (4,), b, b),
    "leaky_relu": lambda L, F, x, w, b: F.leaky_relu(x, 0.2),
    "clamp": lambda L, F, x, w, b: x.clamp(-0.5, 0.5),
    "where": lambda L, F, x, w, b: L.where(x > 0, x, x.exp()),
}


def _saved_attrs(lib, F, fn):
    x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), requires_grad=True)
    w = lib.tensor(np.linspace(0.5, -2, 16, dtype=np.float32).reshape(4, 4), requires_grad=True)
    b = lib.tensor(np.linspace(1, 2, 4, dtype=np.float32), requires_grad=True)
    g = fn(lib, F, x, w, b).grad_fn
    names = sorted(a for a in dir(g) if a.startswith("_saved_") and "sym_" not in a
                   and "numel" not in a and a != "_saved_approximate")
    vals = {}
    for n in names:
        v = getattr(g, n)
        is_t = isinstance(v, (torch.Tensor, mg.Tensor))
        vals[n] = (v.detach().tolist(), v.requires_grad) if is_t else (list(v) if isinstance(
            v, (tuple, list)) else v)
    return g.name(), vals


@pytest.mark.parametrize("case", list(SAVED_CASES))
def test_saved_attributes_as_torch(case):
    (tn, tv), (mn, mv) = (_saved_attrs(lib, F, SAVED_CASES[case]) for lib, F in
                          ((torch, TF), (mg, F)))
    assert mn == tn
    assert sorted(mv) == sorted(tv)
    for k in tv:
        if isinstance(tv[k], tuple):
            np.testing.assert_allclose(np.array(mv[k][0], dtype=np.float64),
                                       np.array(tv[k][0], dtype=np.float64), rtol=1e-6)
            assert mv[k][1] == tv[k][1], k
        else:
            assert mv[k] == tv[k], k


def test_saved_identity_and_raw_saved():
    def f(lib, F, graph):
        x, w = _xw(lib)
        y = x * w
        e = x.exp()
        out = [y.grad_fn._saved_other is w, e.grad_fn._saved_result.grad_fn is e.grad_fn]
        log = []
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: (log.append("p"), t.detach())[1],
                           lambda t: (log.append("u"), t)[1])
        out.append(list(log))
        out.append(y.grad_fn._saved_self.tolist())
        out.append(list(log))
        out.append(_error(lambda *a: raw.register_hooks(lambda t: t, lambda t: t), lib))
        z = x * w.detach()
        out.append(_error(lambda *a: z.grad_fn._raw_saved_self.register_hooks(
            lambda t: t, lambda t: t), lib))
        y.sum().backward()
        out.append(_error(lambda *a: y.grad_fn._raw_saved_other.register_hooks(
            lambda t: t, lambda t: t), lib))
        return out
    t, m = _both(f)
    assert m == t
