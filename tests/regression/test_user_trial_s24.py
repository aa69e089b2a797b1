"""Found by session 24's new-user trial; each against torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def test_unbind_of_a_vector_gives_views_that_write_through():
    for lib in (torch, mg):
        a = lib.zeros(4)
        u = a.unbind()
        u[1].fill_(3)
        b = lib.zeros(3)
        v = b.unbind()
        b.fill_(5)
        if lib is torch:
            want = (a.tolist(), v[0].item())
        else:
            got = (a.tolist(), v[0].item())
    assert got == want == ([0.0, 3.0, 0.0, 0.0], 5.0)


@pytest.mark.parametrize("make", [
    lambda L, t: L.tensor([1, 2], dtype=t), lambda L, t: L.zeros(2, dtype=t),
    lambda L, t: L.arange(3, dtype=t), lambda L, t: L.ones(2).to(t),
    lambda L, t: L.ones(2).to("cpu", t), lambda L, t: L.ones(2).to(dtype=t),
    lambda L, t: L.ones(2).sum(dtype=t), lambda L, t: L.ones(2).new_zeros(2, dtype=t)])
@pytest.mark.parametrize("pytype", [float, int, bool])
def test_python_types_as_dtypes(make, pytype):
    """float is float64 (whatever the default dtype), int int64, bool bool, as in torch."""
    try:
        want = str(make(torch, pytype).dtype).replace("torch.", "")
    except (TypeError, RuntimeError) as e:
        with pytest.raises(type(e)):
            make(mg, pytype)
        return
    assert make(mg, pytype).dtype.name == want


def test_python_float_is_float64_under_a_float64_default_too():
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.zeros(1, dtype=float).dtype is mg.float64
    finally:
        mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("how", ["grad", "backward", "autograd.backward"])
def test_autograd_takes_generators_of_inputs(how):
    """autograd.grad(loss, model.parameters()), backward(inputs=model.parameters())."""
    res = {}
    for lib in (torch, mg):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]))
            m.bias.fill_(0.25)
        loss = (m(lib.ones(1, 3)) ** 2).sum()
        if how == "grad":
            gs = lib.autograd.grad((x for x in [loss]), m.parameters())
        elif how == "backward":
            loss.backward(inputs=m.parameters())
            gs = (m.weight.grad, m.bias.grad)
        else:
            lib.autograd.backward(loss, inputs=m.parameters())
            gs = (m.weight.grad, m.bias.grad)
        res[lib.__name__] = [g.tolist() for g in gs]
    assert res["minigrad"] == res["torch"]


@pytest.mark.parametrize("call", [
    lambda L, x: L.max(x, dim=L.tensor(1)), lambda L, x: x.max(dim=L.tensor(1)),
    lambda L, x: x.min(dim=L.tensor(0), keepdim=True), lambda L, x: L.max(x, dim=np.int64(1)),
    lambda L, x: L.min(x, np.int64(1)), lambda L, x: x.cumsum(L.tensor(1)),
    lambda L, x: x.mean(dim=L.tensor(0)), lambda L, x: x.max(L.tensor(2.0)),
    lambda L, x: L.max(x, other=x + 1), lambda L, x: x.max(1, True)])
def test_dims_given_as_index_objects(call):
    """A 0-dim integer tensor or a NumPy int as ``dim`` is an int (PyTorch's parser); a Tensor
    given positionally to max/min is ``other``."""
    xt, xm = torch.arange(6.0).view(2, 3), mg.arange(6.0).view(2, 3)
    want, got = call(torch, xt), call(mg, xm)
    if isinstance(want, tuple):
        assert [g.tolist() for g in got] == [w.tolist() for w in want]
    else:
        assert got.tolist() == want.tolist()


def test_float_dim_tensor_refused():
    with pytest.raises(TypeError):
        torch.arange(6.0).view(2, 3).max(dim=torch.tensor(1.0))
    with pytest.raises(TypeError):
        mg.arange(6.0).view(2, 3).max(dim=mg.tensor(1.0))
