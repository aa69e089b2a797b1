"""torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch 2.13."""
import numpy as np
import pytest
import torch

import minigrad as mg

AF, TF = mg.autograd.functional, torch.autograd.functional
RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal(3), RNG.standard_normal(3)


def both(x):
    return mg.tensor(x), torch.tensor(x)


def close(a, b):
    """Nested results agree (same nesting, shapes and values)."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, mg.Tensor) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    else:
        assert isinstance(a, tuple) and len(a) == len(b)
        for p, q in zip(a, b):
            close(p, q)


def two_out(x, y):
    return x.exp() * y, (x * y).sum()


def scalar(x, y):
    return (x.sin() * y * y).sum()


@pytest.mark.parametrize("tuple_in", [True, False])
def test_jacobian_and_hessian(tuple_in):
    (mx, tx), (my, ty) = both(X), both(Y)
    if tuple_in:
        close(AF.jacobian(two_out, (mx, my)), TF.jacobian(two_out, (tx, ty)))
        close(AF.hessian(scalar, (mx, my)), TF.hessian(scalar, (tx, ty)))
    else:
        close(AF.jacobian(lambda x: x.tanh() * 2, mx), TF.jacobian(lambda x: x.tanh() * 2, tx))
        close(AF.hessian(lambda x: (x ** 3).sum(), mx), TF.hessian(lambda x: (x ** 3).sum(), tx))
        # 2-D input and output: shapes are out.shape + in.shape
        (m2, t2) = both(RNG.standard_normal((2, 3)))
        close(AF.jacobian(lambda x: x @ x.T, m2), TF.jacobian(lambda x: x @ x.T, t2))
        close(AF.jacobian(lambda x: x.sum(0), m2, vectorize=True),
              TF.jacobian(lambda x: x.sum(0), t2, vectorize=True))


def test_jacobian_create_graph_differentiable():
    mx = mg.tensor(X, requires_grad=True)
    tx = torch.tensor(X, requires_grad=True)
    jm = AF.jacobian(lambda x: x ** 3, mx, create_graph=True)
    jt = TF.jacobian(lambda x: x ** 3, tx, create_graph=True)
    assert jm.requires_grad and type(jm.grad_fn).__name__ == type(jt.grad_fn).__name__
    jm.sum().backward()
    jt.sum().backward()
    close(mx.grad, tx.grad)
    # without create_graph the result is detached
    assert not AF.jacobian(lambda x: x ** 3, mx).requires_grad


@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp(name):
    (mx, tx), (my, ty) = both(X), both(Y)
    fn = lambda x, y: (x.exp() * y, x * 2)  # noqa: E731
    vm = (mg.tensor(Y), mg.tensor(X))
    vt = (torch.tensor(Y), torch.tensor(X))
    close(getattr(AF, name)(fn, (mx, my), vm), getattr(TF, name)(fn, (tx, ty), vt))
    close(getattr(AF, name)(lambda x: x.sin(), mx, vm[0]),
          getattr(TF, name)(lambda x: x.sin(), tx, vt[0]))


@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp(name):
    (mx, tx), (my, ty) = both(X), both(Y)
    vm = (mg.tensor(Y), mg.tensor(X))
    vt = (torch.tensor(Y), torch.tensor(X))
    close(getattr(AF, name)(scalar, (mx, my), vm), getattr(TF, name)(scalar, (tx, ty), vt))
    out_m = getattr(AF, name)(scalar, (mx, my), vm, create_graph=True)
    assert out_m[1][0].requires_grad


def test_unused_input_zeros_and_strict():
    (mx, tx), (my, ty) = both(X), both(Y)
    close(AF.jacobian(lambda x, y: x * 2, (mx, my)), TF.jacobian(lambda x, y: x * 2, (tx, ty)))
    close(AF.vjp(lambda x, y: x.sum(), (mx, my)), TF.vjp(lambda x, y: x.sum(), (tx, ty)))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("minigrad.Size", "torch.Size")
    return None


@pytest.mark.parametrize("case", [
    lambda m, x, y: m.vjp(lambda a: a * 2, x),
    lambda m, x, y: m.vjp(lambda a: a * 2, x, (y, y)),
    lambda m, x, y: m.vjp(lambda a: a * 2, (x,), (y[:2],)),
    lambda m, x, y: m.jvp(lambda a: a * 2, (x, y), (y,)),
    lambda m, x, y: m.jvp(lambda a: a, 3),
    lambda m, x, y: m.jvp(lambda a: 3, x, y),
    lambda m, x, y: m.jacobian(lambda a: a * 2, x, strict=True, vectorize=True),
    lambda m, x, y: m.jacobian(lambda a, b: a * 2, (x, y), strict=True),
    lambda m, x, y: m.jacobian(lambda a: a * 2, x, strategy="sideways"),
    lambda m, x, y: m.jacobian(lambda a: a * 2, x, strategy="forward-mode"),
    lambda m, x, y: m.jacobian(lambda a: a * 2, x, strategy="forward-mode", create_graph=True),
    lambda m, x, y: m.jacobian(lambda a: a.detach(), x, strict=True),
    lambda m, x, y: m.hessian(lambda a: a * 2, x),
    lambda m, x, y: m.hessian(lambda a: (a, a), x),
    lambda m, x, y: m.hessian(lambda a: a.sum() * 2, x, strict=True),
    lambda m, x, y: m.hvp(lambda a: a * 2, x, y),
    lambda m, x, y: m.vhp(lambda a: a.sum(), x),
    lambda m, x, y: m.vhp(lambda a, b: (a * a).sum(), (x, y), (y, x), strict=True),
    lambda m, x, y: m.hvp(lambda a, b: (a * a).sum(), (x, y), (y, x), strict=True),
])
def test_errors_match_torch(case):
    (mx, tx), (my, ty) = both(X), both(Y)
    em, et = _error(lambda: case(AF, mx, my)), _error(lambda: case(TF, tx, ty))
    assert et is not None and em == et
