"""The backward loop's inline fast path (``engine._FAST_PATH``: a hook-free one-output node run
without ``_call_node``) gives the same gradients, bit for bit, and the same errors as the
general path, on graphs that reach its corners: ops with non-tensor arguments (``_edge_args``),
integer index tensors, fan-out, multi-output nodes, custom Functions, retain_graph, create_graph.
"""
import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd import engine


def _graphs():
    """(name, build) pairs: ``build()`` returns (loss, leaves) on fresh leaves."""
    def mlp():
        g = torch.Generator().manual_seed(0)
        x = torch.randn(8, 5, generator=g)
        w1 = torch.randn(7, 5, generator=g, requires_grad=True)
        b1 = torch.randn(7, generator=g, requires_grad=True)
        w2 = torch.randn(3, 7, generator=g, requires_grad=True)
        h = torch.relu(torch.nn.functional.linear(x, w1, b1))
        out = torch.nn.functional.log_softmax(h @ w2.t(), dim=1)
        loss = torch.nn.functional.nll_loss(out, torch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
        return loss, [w1, b1, w2]

    def dims_and_indices():
        g = torch.Generator().manual_seed(1)
        a = torch.randn(4, 6, generator=g, requires_grad=True)
        idx = torch.tensor([3, 0, 3, 5])
        y = a.index_select(1, idx).sum(dim=0, keepdim=True)      # dims + an int64 tensor
        z = a.gather(0, torch.tensor([[1, 2, 3, 0, 1, 2]])).transpose(0, 1)
        # edges behind arguments without one: index_add's source (after dim and index) and
        # where's x and y (after a bool condition)
        src = torch.randn(4, 2, generator=g, requires_grad=True)
        u = a.exp().index_add(1, torch.tensor([4, 1]), src * 3)
        w = torch.where(a > 0, a.sin(), src.sum() * a)
        return (y.mean() * 2 + z.pow(3).sum() + (u * u).sum() + w.sum()), [a, src]

    def fan_out_and_split():
        g = torch.Generator().manual_seed(2)
        a = torch.randn(6, 4, generator=g, requires_grad=True)
        b = a.exp()
        p, q, r = b.split(2, dim=0)                    # a multi-output node
        return (p * q - r.tanh()).sum() + b.sum() * 0.5, [a]

    def custom_function():
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x * x * k

            @staticmethod
            def backward(ctx, go):
                (x,) = ctx.saved_tensors
                return go * 2 * x * ctx.k, None

        g = torch.Generator().manual_seed(3)
        a = torch.randn(5, generator=g, requires_grad=True)
        return Square.apply(a.sin(), 3.0).sum(), [a]

    def half_precision():
        g = torch.Generator().manual_seed(4)
        a = torch.randn(4, 4, generator=g).half().requires_grad_()
        return (a.float() * a.float()).sum() + a.sigmoid().float().sum(), [a]

    return [("mlp", mlp), ("dims_and_indices", dims_and_indices),
            ("fan_out_and_split", fan_out_and_split), ("custom_function", custom_function),
            ("half_precision", half_precision)]


def _grads(build, fast, monkeypatch, **kw):
    monkeypatch.setattr(engine, "_FAST_PATH", fast)
    loss, leaves = build()
    loss.backward(**kw)
    return [lf.grad.detach().numpy().copy() for lf in leaves]


@pytest.mark.parametrize("name,build", _graphs(), ids=[n for n, _ in _graphs()])
def test_fast_path_gives_the_general_paths_bits(name, build, monkeypatch):
    general = _grads(build, False, monkeypatch)
    fast = _grads(build, True, monkeypatch)
    for g, f in zip(general, fast):
        assert g.dtype == f.dtype and g.shape == f.shape
        assert np.array_equal(g.view(np.uint8), f.view(np.uint8))


@pytest.mark.parametrize("fast", [False, True])
def test_retain_graph_twice_and_freed_graph_error(fast, monkeypatch):
    monkeypatch.setattr(engine, "_FAST_PATH", fast)
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a.exp() * a).sum()
    y.backward(retain_graph=True)
    first = a.grad.clone()
    y.backward()
    # d/da (a e^a) = (1 + a) e^a, accumulated twice
    expected = 2 * (1 + np.array([1.0, 2.0, 3.0], np.float32)) * np.exp(np.float32([1, 2, 3]))
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(first.numpy() * 2, a.grad.numpy(), rtol=0)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


@pytest.mark.parametrize("fast", [False, True])
def test_create_graph_second_derivative(fast, monkeypatch):
    monkeypatch.setattr(engine, "_FAST_PATH", fast)
    a = torch.tensor([0.5, -1.0], requires_grad=True)
    (g,) = torch.autograd.grad((a ** 3).sum(), a, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), a)
    np.testing.assert_allclose(h.numpy(), 6 * np.float32([0.5, -1.0]))    # d2/da2 a^3 = 6a


@pytest.mark.parametrize("fast", [False, True])
def test_wrong_gradient_count_from_a_custom_function(fast, monkeypatch):
    monkeypatch.setattr(engine, "_FAST_PATH", fast)

    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, go):
            return go

    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(a.exp(), b).sum().backward()


def test_node_runs_the_functions_current_backward():
    """The engine calls a node's backward as ``node._run_backward(grad)`` (the Function's
    backward function, held by its node class): a backward set or deleted after the class was
    made, inherited by a subclass, or a classmethod, is the one that runs."""
    import minigrad as mg
    from minigrad.autograd import Function

    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Sub(Double):
        pass

    class Cls(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @classmethod
        def backward(cls, ctx, g):
            assert cls is Cls and ctx.name() == "ClsBackward"
            return g * 5

    def grad_of(fn):
        x = mg.ones(2, requires_grad=True)
        fn.apply(x).sum().backward()
        return x.grad.tolist()
    assert grad_of(Double) == grad_of(Sub) == [2.0, 2.0]
    assert grad_of(Cls) == [5.0, 5.0]
    orig = Double.__dict__["backward"]
    Double.backward = staticmethod(lambda ctx, g: g * 3)
    try:
        assert grad_of(Double) == grad_of(Sub) == [3.0, 3.0]
        Sub.backward = staticmethod(lambda ctx, g: g * 4)
        assert grad_of(Sub) == [4.0, 4.0] and grad_of(Double) == [3.0, 3.0]
        del Sub.backward
        assert grad_of(Sub) == [3.0, 3.0]
    finally:
        Double.backward = orig
    assert grad_of(Double) == grad_of(Sub) == [2.0, 2.0]
