"""The autograd engine, grad modes, custom Functions, dtype rules, finfo and repr vs PyTorch.

Each test runs the same code with ``lib=minigrad`` and ``lib=torch`` (or compares with torch's
answer directly): expected values and error texts come from PyTorch, never from minigrad.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

import minigrad
from minigrad.testing import assert_close

LIBS = (minigrad, torch)
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64")


def both(fn):
    """Run ``fn(lib)`` in minigrad and torch; return (minigrad result, torch result)."""
    return fn(minigrad), fn(torch)


def _err(fn, lib):
    with pytest.raises(Exception) as ei:
        fn(lib)
    return ei.value


def same_error(fn, exact=True, prefix=None):
    """Both frameworks raise the same exception type with the same (or same-prefix) message."""
    em, et = _err(fn, minigrad), _err(fn, torch)
    assert isinstance(em, type(et)), f"minigrad raised {type(em).__name__}: {em}; torch " \
                                     f"{type(et).__name__}: {et}"
    if prefix is not None:
        assert str(em).startswith(prefix) and str(et).startswith(prefix), (str(em), str(et))
    elif exact:
        assert str(em) == str(et), f"\nminigrad: {em}\ntorch:    {et}"
    return em, et


def _x(lib, vals=(1.0, -2.0, 3.0), rg=True, dtype="float32"):
    return lib.tensor(list(vals), dtype=getattr(lib, dtype), requires_grad=rg)


# ---------------------------------------------------------------------------------- backward
def test_grad_accumulates_across_backward_calls():
    def f(lib):
        x = _x(lib)
        (x * x).sum().backward()
        (x * 3.0).sum().backward()
        (x * x * x).sum().backward()
        return x.grad
    assert_close(*both(f), ulp=0)


def test_backward_twice_raises_pytorch_error_text():
    def f(lib):
        x = _x(lib)
        y = (x * x).sum()
        y.backward()
        y.backward()
    same_error(f)


def test_retain_graph_allows_second_backward():
    def f(lib):
        x = _x(lib)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    assert_close(*both(f), ulp=0)


def test_non_scalar_backward_error():
    same_error(lambda lib: (_x(lib) * 2.0).backward())


def test_backward_with_explicit_gradient_on_non_scalar():
    def f(lib):
        x = _x(lib)
        (x * x).backward(lib.tensor([1.0, 0.5, -2.0]))
        return x.grad
    assert_close(*both(f), ulp=0)


def test_backward_on_tensor_not_requiring_grad():
    same_error(lambda lib: lib.tensor(1.0).backward())
    same_error(lambda lib: (_x(lib, rg=False) * 2.0).sum().backward())


def test_diamond_fan_out():
    def f(lib):
        x = _x(lib)
        a = x * 2.0
        b = a * 3.0
        c = a * a
        d = b + c + a
        (d * x).sum().backward()
        return x.grad
    assert_close(*both(f), ulp=0)


def test_same_tensor_used_twice_in_one_op():
    def f(lib):
        x = _x(lib)
        (x * x + x).sum().backward()
        return x.grad
    assert_close(*both(f), ulp=0)


def test_create_graph_double_backward():
    def f(lib):
        x = _x(lib)
        y = (x * x * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        assert g.requires_grad
        (g * g).sum().backward()
        return g.detach(), x.grad
    (gm, xm), (gt, xt) = both(f)
    assert_close(gm, gt, ulp=0)
    assert_close(xm, xt, ulp=1)


def test_autograd_grad_allow_unused():
    def unused(lib):
        x, z = _x(lib), _x(lib)
        return lib.autograd.grad((x * 2.0).sum(), [x, z])
    same_error(unused)

    def f(lib):
        x, z = _x(lib), _x(lib)
        gx, gz = lib.autograd.grad((x * 2.0).sum(), [x, z], allow_unused=True)
        return gx, gz, x.grad
    (gxm, gzm, xgm), (gxt, gzt, xgt) = both(f)
    assert_close(gxm, gxt, ulp=0)
    assert gzm is None and gzt is None
    assert xgm is None and xgt is None          # autograd.grad does not touch .grad


def test_autograd_grad_input_not_requiring_grad():
    same_error(lambda lib: lib.autograd.grad((_x(lib) * 2.0).sum(), [_x(lib, rg=False)]))


# ---------------------------------------------------------------------------------- hooks
def test_tensor_hooks_and_retain_grad():
    def f(lib):
        seen = []
        x = _x(lib)
        a = x * 2.0
        a.retain_grad()
        h = a.register_hook(lambda g: g * 10.0)
        x.register_hook(lambda g: seen.append(g.detach().clone()))
        b = a * a
        b.sum().backward()
        h.remove()
        return x.grad, a.grad, seen[0], a.is_leaf, a.retains_grad
    (xm, am, sm, lm, rm), (xt, at, st_, lt, rt) = both(f)
    assert_close(xm, xt, ulp=0)
    assert_close(am, at, ulp=0)
    assert_close(sm, st_, ulp=0)
    assert (lm, rm) == (lt, rt)


def test_non_leaf_grad_is_none_without_retain_grad():
    def f(lib):
        x = _x(lib)
        a = x * 2.0
        a.sum().backward()
        return a.grad is None, x.grad is not None
    assert both(f)[0] == both(f)[1] == (True, True)


def test_hook_on_tensor_without_grad_raises():
    same_error(lambda lib: _x(lib, rg=False).register_hook(lambda g: g))


def test_node_hook_returning_the_wrong_number_of_gradients_raises():
    def f(lib):
        x = _x(lib)
        y = x * _x(lib)
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: grad_inputs[:1])
        y.sum().backward()
    same_error(f)


# ---------------------------------------------------------------------------------- grad modes
def test_no_grad_enable_grad_context_managers():
    def f(lib):
        x = _x(lib)
        with lib.no_grad():
            a = x * 2.0
            with lib.enable_grad():
                b = x * 2.0
            c = x * 2.0
        d = x * 2.0
        return a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, \
            lib.is_grad_enabled()
    m, t = both(f)
    assert m == t == (False, True, False, True, True)


def test_grad_modes_as_decorators():
    def f(lib):
        x = _x(lib)

        @lib.no_grad()
        def off(v):
            return v * 2.0

        @lib.enable_grad()
        def on(v):
            return v * 2.0

        @lib.set_grad_enabled(False)
        def off2(v):
            return v * 2.0
        r1 = off(x).requires_grad
        with lib.no_grad():
            r2 = on(x).requires_grad
        r3 = off2(x).requires_grad
        return r1, r2, r3, lib.is_grad_enabled()
    m, t = both(f)
    assert m == t == (False, True, False, True)


def test_set_grad_enabled_function_and_context():
    def f(lib):
        x = _x(lib)
        try:
            lib.set_grad_enabled(False)
            r1 = (x * 2.0).requires_grad
            with lib.set_grad_enabled(True):
                r2 = (x * 2.0).requires_grad
            r3 = (x * 2.0).requires_grad
        finally:
            lib.set_grad_enabled(True)
        return r1, r2, r3
    m, t = both(f)
    assert m == t == (False, True, False)


def test_grad_mode_restored_after_exception():
    def f(lib):
        try:
            with lib.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        return lib.is_grad_enabled()
    assert both(f) == (True, True)


# ---------------------------------------------------------------------------------- Function
def _make_fn(lib, log):
    class ScaledMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_backward(x, y)
            ctx.k = k
            log.append(tuple(ctx.needs_input_grad))
            flag = x * 0.0 + 1.0
            ctx.mark_non_differentiable(flag)
            return x * y * k, flag

        @staticmethod
        def backward(ctx, g, gflag):
            x, y = ctx.saved_tensors
            gx = g * y * ctx.k if ctx.needs_input_grad[0] else None
            gy = g * x * ctx.k if ctx.needs_input_grad[1] else None
            return gx, gy, None
    return ScaledMul


@pytest.mark.parametrize("y_rg", [True, False])
def test_custom_function(y_rg):
    def f(lib):
        log = []
        fn = _make_fn(lib, log)
        x, y = _x(lib), _x(lib, (0.5, 4.0, -1.0), rg=y_rg)
        out, flag = fn.apply(x, y, 3.0)
        (out * out).sum().backward()
        return out.detach(), flag.requires_grad, log[0], x.grad, y.grad, \
            type(out.grad_fn).__name__
    (om, fm, lm, xm, ym, nm), (ot, ft, lt, xt, yt, nt) = both(f)
    assert_close(om, ot, ulp=0)
    assert (fm, lm) == (ft, lt)
    assert_close(xm, xt, ulp=0)
    assert (ym is None) == (yt is None)
    if yt is not None:
        assert_close(ym, yt, ulp=0)
    assert nm == nt == "ScaledMulBackward"


def test_inplace_on_saved_tensor_detected():
    def f(lib):
        x = _x(lib)
        a = x * 1.0
        b = a * a
        a.mul_(2.0)
        b.sum().backward()
    em, et = same_error(f, prefix="one of the variables needed for gradient computation has "
                                  "been modified by an inplace operation")
    assert "is at version 1; expected version 0 instead" in str(em)


def test_inplace_on_leaf_requiring_grad_raises():
    same_error(lambda lib: _x(lib).add_(1.0))


# ---------------------------------------------------------------------------------- dtypes
def _scalar_kinds():
    return [True, 3, -2, 2.5]


def test_promote_types_all_pairs():
    bad = []
    for a, b in itertools.product(ALL, ALL):
        m = minigrad.promote_types(getattr(minigrad, a if a != "bool" else "bool_"),
                                   getattr(minigrad, b if b != "bool" else "bool_"))
        t = torch.promote_types(getattr(torch, a), getattr(torch, b))
        if m.name != str(t)[6:]:
            bad.append(f"{a}+{b}: {m.name} vs {t}")
    assert not bad, bad


def _mk(lib, dt, ndim):
    v = [1] if ndim else 1
    return lib.tensor(v, dtype=getattr(lib, dt))


@pytest.mark.parametrize("nd_a,nd_b", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_result_type_tensor_pairs(nd_a, nd_b):
    bad = []
    for a, b in itertools.product(ALL, ALL):
        m = minigrad.result_type(_mk(minigrad, a, nd_a), _mk(minigrad, b, nd_b))
        t = torch.result_type(_mk(torch, a, nd_a), _mk(torch, b, nd_b))
        if m.name != str(t)[6:]:
            bad.append(f"{a}[{nd_a}d]+{b}[{nd_b}d]: {m.name} vs {t}")
    assert not bad, bad


@pytest.mark.parametrize("ndim", [0, 1])
def test_result_type_with_python_scalars(ndim):
    bad = []
    for a, s in itertools.product(ALL, _scalar_kinds()):
        for order in (0, 1):
            ma, ta = _mk(minigrad, a, ndim), _mk(torch, a, ndim)
            m = minigrad.result_type(*((ma, s) if order == 0 else (s, ma)))
            t = torch.result_type(*((ta, s) if order == 0 else (s, ta)))
            if m.name != str(t)[6:]:
                bad.append(f"{a}[{ndim}d] with {s!r}: {m.name} vs {t}")
    assert not bad, bad


def test_result_type_under_float64_default():
    try:
        minigrad.set_default_dtype(minigrad.float64)
        torch.set_default_dtype(torch.float64)
        for a in ALL:
            m = minigrad.result_type(_mk(minigrad, a, 1), 2.5)
            t = torch.result_type(_mk(torch, a, 1), 2.5)
            assert m.name == str(t)[6:], (a, m, t)
    finally:
        minigrad.set_default_dtype(minigrad.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(dt):
    m, t = minigrad.finfo(getattr(minigrad, dt)), torch.finfo(getattr(torch, dt))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(m, attr) == getattr(t, attr), (attr, getattr(m, attr), getattr(t, attr))
    assert m.dtype == t.dtype


# ---------------------------------------------------------------------------------- repr
REPR_CASES = [
    lambda lib: lib.tensor([1.0, 2.5]),
    lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float16),
    lambda lib: lib.tensor([1e-5, 1e3]),
    lambda lib: lib.tensor([[1, 2], [3, 4]]),
    lambda lib: lib.tensor([True, False]),
    lambda lib: lib.zeros(2, 0),
    lambda lib: lib.tensor(2.0, dtype=lib.float64),
    lambda lib: lib.tensor([1.5, math.nan, math.inf], dtype=lib.bfloat16),
    lambda lib: lib.tensor(3.5, requires_grad=True),
    lambda lib: lib.tensor(3.5, requires_grad=True) * 2.0,
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_repr_like_torch(case):
    m, t = both(REPR_CASES[case])
    assert repr(m) == repr(t).replace("torch.", "minigrad.")


# ---------------------------------------------------------------------------------- deep graphs
def test_deep_graph_no_recursion_error():
    def f(lib):
        x = _x(lib, (0.5,))
        y = x
        for _ in range(10000):
            y = y + 1.0
        y.sum().backward()
        return x.grad, y.detach()
    (gm, ym), (gt, yt) = both(f)
    assert_close(gm, gt, ulp=0)
    assert_close(ym, yt, ulp=0)


def test_grad_dtype_matches_input_dtype_after_cast():
    def f(lib):
        x = _x(lib, dtype="float16")
        (x.float() * 3.0).sum().backward()
        return x.grad
    m, t = both(f)
    assert_close(m, t, ulp=0)


def test_broadcast_gradient_is_summed_back():
    def f(lib):
        x = lib.tensor([[1.0], [2.0]], requires_grad=True)
        w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        (x * w).sum().backward()
        return x.grad, w.grad
    (xm, wm), (xt, wt) = both(f)
    assert_close(xm, xt, ulp=0)
    assert_close(wm, wt, ulp=0)


def test_detach_shares_storage_and_breaks_graph():
    def f(lib):
        x = _x(lib)
        d = (x * 2.0).detach()
        return d.requires_grad, d.grad_fn is None, d.is_leaf
    assert both(f)[0] == both(f)[1]


def test_numpy_bridge_dtypes():
    for dt in ("float16", "float32", "float64", "int64", "int32", "bool"):
        m = minigrad.tensor([1, 0, 2], dtype=getattr(minigrad, dt)).numpy()
        t = torch.tensor([1, 0, 2], dtype=getattr(torch, dt)).numpy()
        assert m.dtype == t.dtype and np.array_equal(m, t)


def test_gradient_buffers_are_never_shared_between_leaves_or_with_hooks():
    """AccumulateGrad may take over a gradient buffer only when nothing else holds it."""
    import numpy as np
    from minigrad.autograd import engine

    a = minigrad.ones(3, requires_grad=True)
    b = minigrad.ones(3, requires_grad=True)
    kept = []
    b.register_hook(lambda g: kept.append(g))
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    assert not np.shares_memory(b.grad.numpy(), kept[0].numpy())
    a.grad.add_(1.0)
    assert b.grad.tolist() == [1.0, 1.0, 1.0] and kept[0].tolist() == [1.0, 1.0, 1.0]
    # the import-time self-check turns stealing off when reference counts mislead it
    orig = engine._sole_owner
    try:
        engine._sole_owner = lambda g: True
        engine._calibrate_steal()
        assert engine._STEAL == [False]
    finally:
        engine._sole_owner = orig
        engine._calibrate_steal()
    assert engine._STEAL == [True]


def test_linear_weight_gradient_is_taken_over_without_a_copy(monkeypatch):
    """As PyTorch's AccumulateGrad steals a gradient nothing else holds: ``weight.t()``'s
    gradient, transposed back (a view carrying view metadata), becomes ``weight.grad`` without
    a copy, and still holds the right values."""
    copies = []
    orig = minigrad.Tensor._detached_copy

    def counting(self):
        copies.append(tuple(self.shape))
        return orig(self)

    monkeypatch.setattr(minigrad.Tensor, "_detached_copy", counting)
    lin = minigrad.nn.Linear(4, 3)
    x = minigrad.randn(5, 4)
    lin(x).sum().backward()
    assert (3, 4) not in copies
    expected = x.detach().numpy().sum(axis=0)[None, :].repeat(3, axis=0)
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-6)


def test_accumulate_grad_node_name_is_pytorchs():
    names = []
    for lib in (minigrad, torch):
        t = lib.ones(2, requires_grad=True)
        node = (t * 2).grad_fn.next_functions[0][0]
        names.append((node.name(), type(node).__name__))
    assert names[0] == names[1]


def _run_order(lib, graph):
    """The names of the nodes the engine runs, in order, for ``graph(lib)`` (its output and the
    leaves): each node of the graph but the leaves' accumulators records itself in a pre-hook
    (minigrad runs no pre-hooks on an ``AccumulateGrad``; PyTorch does)."""
    out, leaves = graph(lib)
    ran, seen, stack = [], set(), [out.grad_fn]
    while stack:                   # every node of the graph, leaves' accumulators included
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if "AccumulateGrad" not in n.name():
            n.register_prehook(lambda g, n=n: ran.append(n.name()) and None)
        stack.extend(nx for nx, _ in n.next_functions)
    out.backward()
    return ran, [t.grad for t in leaves]


_GRAPHS = {
    # a chain: each node becomes ready alone (the engine's no-heap path)
    "chain": lambda lib, a, b: ((((a + b) * b).exp() - b).relu().sum(), (a, b)),
    # a diamond: two branches ready at once (the heap orders them, latest created first)
    "diamond": lambda lib, a, b: ((((a * 2) - b).relu() + (a * b) * (a + 1)).sum(), (a, b)),
    # a leaf used by many nodes: its accumulator runs as soon as its last gradient arrives
    "shared_leaf": lambda lib, a, b: ((((a * b) + b) * b + (b * 3)).sum(), (a, b)),
}


@pytest.mark.parametrize("name", list(_GRAPHS))
def test_nodes_run_in_torch_order_and_give_its_gradients(name):
    def graph(lib):
        lib.manual_seed(0)
        a = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=lib.float32,
                       requires_grad=True)
        b = lib.tensor(np.linspace(0.5, -0.7, 6).reshape(2, 3), dtype=lib.float32,
                       requires_grad=True)
        return _GRAPHS[name](lib, a, b)
    (rm, gm), (rt, gt) = both(lambda lib: _run_order(lib, graph))
    assert rm == rt
    for m, t in zip(gm, gt):
        assert np.array_equal(m.numpy(), t.numpy())


def test_accumulate_grad_node_hooks_run_in_torchs_order():
    """Hooks on a leaf's AccumulateGrad node (reached through ``next_functions``) run as in
    PyTorch: the leaf's tensor hook, the node's pre-hook (its result replaces the gradient),
    the accumulation, the post-accumulate-grad hook, then the node's hook with
    ``grad_inputs=()``. They used to be accepted and never called."""
    def run(L):
        log = []
        w = L.ones(3, requires_grad=True)
        y = (w * 2).sum()
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
        assert acc.name() == "torch::autograd::AccumulateGrad"
        w.register_hook(lambda g: log.append(("tensor", g.tolist())))
        acc.register_prehook(lambda gO: log.append(("pre", [g.tolist() for g in gO]))
                             or (gO[0] * 10,))
        w.register_post_accumulate_grad_hook(lambda p: log.append(("post_acc", p.grad.tolist())))
        h = acc.register_hook(lambda gI, gO: log.append(("node", len(gI), gO[0].tolist())))
        y.backward(retain_graph=True)
        h.remove()
        y.backward()
        return log, w.grad.tolist()
    assert run(minigrad) == run(torch)


def test_save_for_backward_keeps_and_checks_only_for_a_recorded_node():
    # as PyTorch: the saved values are type-checked (and kept) only when a node is recorded
    def f(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = _x(lib)
        with lib.no_grad():
            a = Twice.apply(x)
        b = Twice.apply(_x(lib, rg=False))
        return a.tolist(), b.tolist(), a.requires_grad, b.requires_grad
    assert both(f)[0] == both(f)[1]

    def g(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2
        Twice.apply(_x(lib))
    same_error(g)


def test_an_unrecorded_op_keeps_no_saved_tensor():
    from minigrad.ops.linalg import Mm
    seen = []
    orig = Mm.forward

    def spy(ctx, a, b):
        out = orig(ctx, a, b)
        seen.append(ctx._saved)
        return out
    Mm.forward = staticmethod(spy)
    try:
        a, b = minigrad.randn(2, 3, requires_grad=True), minigrad.randn(3, 2)
        with minigrad.no_grad():
            minigrad.mm(a, b)
        minigrad.mm(b.t(), b)           # no input requires grad
        minigrad.mm(a, b)
    finally:
        Mm.forward = orig
    assert seen[0] is None and seen[1] is None and len(seen[2]) == 2
