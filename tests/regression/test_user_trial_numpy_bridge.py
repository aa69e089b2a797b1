"""Found by a new-user trial: the NumPy bridge inside autograd, once_differentiable under
create_graph, and overflow warnings. Each expectation is PyTorch 2.13's behaviour, run here."""
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _sq(lib, numpy_inside):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            if numpy_inside:
                return lib.from_numpy(x.numpy() ** 2)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            if numpy_inside:
                return lib.from_numpy(2 * x.numpy() * g.numpy())
            return 2 * x * g
    return Sq


@pytest.mark.parametrize("lib", [torch, mg])
def test_numpy_inside_a_function_and_under_no_grad(lib):
    x = lib.tensor([1.0, 3.0], requires_grad=True)
    _sq(lib, True).apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 6.0]
    with lib.no_grad():
        assert x.numpy().tolist() == [1.0, 3.0]
        assert np.asarray(x).tolist() == [1.0, 3.0]
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        np.asarray(x)


@pytest.mark.parametrize("lib", [torch, mg])
def test_once_differentiable_raises_on_double_backward(lib):
    x = lib.tensor([1.0, 3.0], requires_grad=True)
    (g,) = lib.autograd.grad(_sq(lib, False).apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad
    (g,) = lib.autograd.grad((_sq(lib, False).apply(x) * x).sum(), x, create_graph=True)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="trying to differentiate twice"):
        g.sum().backward()


@pytest.mark.parametrize("lib", [torch, mg])
def test_fp16_overflow_is_silent(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = lib.full((5,), 1e6)
        assert lib.isinf(x.half()).all()
        assert lib.isinf(x.half() * 2).all()
