"""minigrad.autograd.gradcheck / gradgradcheck: pass on correct backwards, fail with PyTorch's
error type and message on wrong ones (the same custom Functions are checked in torch)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

import minigrad
from minigrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from minigrad.dispatch import dispatch


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (minigrad.tensor(a, dtype=minigrad.float64, requires_grad=True),
            torch.tensor(a, dtype=torch.float64, requires_grad=True))


# the same Functions in both frameworks: correct, wrong by a factor, wrong for one input only
def _square(lib_mul, factor):
    class Square:
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return lib_mul(x, x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return lib_mul(lib_mul(g, x), factor)
    return Square


def _methods(cls):
    return {"forward": cls.__dict__["forward"], "backward": cls.__dict__["backward"]}


def _mg_fn(factor):
    return type("Sq", (Function,), _methods(_square(lambda a, b: dispatch("mul", a, b), factor)))


def _torch_fn(factor):
    return type("Sq", (torch.autograd.Function,), _methods(_square(torch.mul, factor)))


class MgMulWrongSecond(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return dispatch("mul", x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return dispatch("mul", g, y), dispatch("mul", dispatch("mul", g, x), 1.5)


class MgNoisy(Function):
    @staticmethod
    def forward(ctx, x):
        return dispatch("mul", x, 1.0)

    @staticmethod
    def backward(ctx, g):
        noise = minigrad.randn(*g.shape, dtype=minigrad.float64)
        return dispatch("add", g, dispatch("mul", noise, 1e-9))


def test_passes_on_correct_backward():
    x, _ = _pair((3, 2))
    assert gradcheck(_mg_fn(2.0).apply, (x,)) is True
    assert gradcheck(_mg_fn(2.0).apply, x, fast_mode=True) is True
    y, _ = _pair((2,), seed=1)
    assert gradcheck(lambda a, b: (dispatch("mul", a, b), dispatch("add", a, b)), (x, y))


def test_wrong_backward_raises_like_torch():
    x, tx = _pair((3,))
    with pytest.raises(GradcheckError) as got:
        gradcheck(_mg_fn(1.0).apply, (x,))
    with pytest.raises(TorchGradcheckError) as want:
        torch.autograd.gradcheck(_torch_fn(1.0).apply, (tx,))
    assert isinstance(got.value, RuntimeError)
    g, w = str(got.value), str(want.value)
    assert g.splitlines()[0] == w.splitlines()[0] == \
        "Jacobian mismatch for output 0 with respect to input 0,"
    # same numbers in the printed Jacobians (only the dtype spelling differs)
    assert g.replace("minigrad.", "torch.") == w
    assert gradcheck(_mg_fn(1.0).apply, (x,), raise_exception=False) is False


def test_wrong_backward_detected_in_fast_mode():
    x, _ = _pair((4,))
    with pytest.raises(GradcheckError, match="computed \nin fast mode") as e:
        gradcheck(_mg_fn(1.0).apply, (x,), fast_mode=True)
    assert "The max per-element difference (slow mode) is:" in str(e.value)


def test_mismatch_names_the_input():
    x, _ = _pair((2,))
    y, _ = _pair((2,), seed=3)
    with pytest.raises(GradcheckError, match="for output 0 with respect to input 1,"):
        gradcheck(MgMulWrongSecond.apply, (x, y))
    # non-tensor and non-differentiable inputs are passed through and not counted
    k = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64)
    with pytest.raises(GradcheckError, match="with respect to input 1,"):
        gradcheck(lambda a, c, b, s: MgMulWrongSecond.apply(a, b), (x, k, y, 3))


def test_jacobian_layout_is_input_by_output():
    # f(x) = A x with A 2x3: the numerical Jacobian printed is A^T (rows = inputs)
    A = minigrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=minigrad.float64)

    class WrongLinear(Function):
        @staticmethod
        def forward(ctx, x):
            return dispatch("sum", dispatch("mul", A, x), 1, False)

        @staticmethod
        def backward(ctx, g):
            return minigrad.zeros(3, dtype=minigrad.float64)

    x = minigrad.tensor([1.0, 1.0, 1.0], dtype=minigrad.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as e:
        gradcheck(WrongLinear.apply, (x,))
    msg = str(e.value)
    num = msg.split("numerical:")[1].split("analytical:")[0]
    vals = [float(v) for v in num.replace("tensor(", "").split("dtype")[0]
            .replace("[", " ").replace("]", " ").replace(",", " ").split()]
    np.testing.assert_allclose(np.array(vals).reshape(3, 2), A.numpy().T, atol=1e-6)


def test_input_validation_like_torch():
    x = minigrad.tensor([1.0], dtype=minigrad.float64)
    with pytest.raises(ValueError) as got:
        gradcheck(lambda a: a, (x,))
    with pytest.raises(ValueError) as want:
        torch.autograd.gradcheck(lambda a: a, (torch.tensor([1.0], dtype=torch.float64),))
    assert str(got.value) == str(want.value)
    x32 = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda a: dispatch("mul", a, a), (x32,), raise_exception=False)
    with pytest.raises(NotImplementedError):
        gradcheck(lambda a: a, (x32,), check_forward_ad=True)


def test_nonreentrant_backward_detected():
    x, _ = _pair((3,))
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(MgNoisy.apply, (x,))
    # (its noise also breaks the zero-gradient check, as it would in torch)
    assert gradcheck(MgNoisy.apply, (x,), nondet_tol=1e-6, check_undefined_grad=False)


def test_inputs_are_not_modified():
    x, _ = _pair((3,))
    before = x.detach().numpy().copy()
    gradcheck(_mg_fn(2.0).apply, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_no_differentiable_outputs():
    x, _ = _pair((2,))
    assert gradcheck(lambda a: minigrad.zeros(2, dtype=minigrad.float64), (x,))


def test_gradgradcheck():
    x, _ = _pair((3,))
    cube = lambda a: dispatch("mul", dispatch("mul", a, a), a)  # noqa: E731
    assert gradgradcheck(cube, (x,))

    class CubeWrongDouble(Function):
        # first derivative right (3x^2 g), but built from a Function whose own backward is wrong
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return cube(a)

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return dispatch("mul", _mg_fn(1.0).apply(a), dispatch("mul", g, 3.0))

    assert gradcheck(CubeWrongDouble.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(CubeWrongDouble.apply, (x,))
    assert gradgradcheck(CubeWrongDouble.apply, (x,), raise_exception=False) is False
