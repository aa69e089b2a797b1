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


TENSOR_CASES = [
    lambda L: L.tensor([np.float64(1.5), 2]), lambda L: L.tensor([np.float16(1), 2]),
    lambda L: L.tensor([np.int32(1), 2]), lambda L: L.tensor([np.int32(1)]),
    lambda L: L.tensor([np.bool_(True), 1.0]), lambda L: L.tensor([1.0, np.int8(1)]),
    lambda L: L.tensor(2**63), lambda L: L.tensor([2**64]), lambda L: L.tensor([-2**63 - 1]),
    lambda L: L.tensor([2**63 - 1]), lambda L: L.tensor([2**40], dtype=L.int32),
    lambda L: L.tensor([300], dtype=L.uint8), lambda L: L.tensor([-1], dtype=L.uint8),
    lambda L: L.tensor([-300], dtype=L.uint8), lambda L: L.tensor([-129], dtype=L.int8),
    lambda L: L.tensor([2**40], dtype=L.float16), lambda L: L.full((1,), 2**63),
    lambda L: L.full((1,), 300, dtype=L.uint8), lambda L: L.full((1,), -1, dtype=L.uint8),
    lambda L: L.full((2,), 2**31, dtype=L.int32),
]


def _outcome(fn, lib):
    try:
        t = fn(lib)
    except (ValueError, RuntimeError) as e:
        return type(e).__name__, str(e)
    return str(t.dtype).split(".")[1], t.tolist()


@pytest.mark.parametrize("i", range(len(TENSOR_CASES)))
def test_tensor_and_full_dtypes_and_overflow_match_torch(i):
    assert _outcome(TENSOR_CASES[i], mg) == _outcome(TENSOR_CASES[i], torch)


@pytest.mark.parametrize("a,b", [((2, 3), (3, 2)), ((2, 3, 4), (5, 1, 4)), ((2, 3), (4,)),
                                 ((4, 1, 3), (2, 5, 1, 2))])
def test_broadcast_error_names_the_dim_torch_names(a, b):
    msgs = []
    for lib in (torch, mg):
        with pytest.raises(RuntimeError) as e:
            lib.ones(*a) + lib.ones(*b)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("lib", [torch, mg])
def test_equality_with_ndarray_and_objects(lib):
    x = lib.tensor([1.0, 2.0])
    assert (x == np.array([1.0, 3.0])).tolist() == [True, False]
    assert (x != np.array([1.0, 3.0])) is True       # PyTorch 2.13: NotImplemented, identity
    assert (x == None) is False and (x != None) is True      # noqa: E711
    assert (x == "a") is False
    with pytest.raises(TypeError):
        x.eq(None)


# found by the fresh-clone CI run (hypothesis examples): checked against torch directly
@pytest.mark.parametrize("dt", ["bfloat16", "float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 17, 33])
@pytest.mark.parametrize("v", [-3.0, 3.0, float("nan"), 2.9])
def test_hardswish_backward_edges_match_torch(dt, n, v):
    out = []
    for lib in (torch, mg):
        x = lib.full((n,), v, dtype=getattr(lib, dt))
        g = lib.full((n,), 2.0, dtype=getattr(lib, dt))
        r = torch.ops.aten.hardswish_backward(g, x) if lib is torch else \
            mg.dispatch.dispatch("hardswish_backward", g, x)
        out.append([str(z) for z in r.tolist()])
    assert out[0] == out[1]


@pytest.mark.parametrize("lib", [torch, mg])
def test_fp64_fma_with_a_subnormal_product_rounds_once(lib):
    f64 = lib.float64
    assert lib.lerp(lib.zeros(2, 1, dtype=f64), lib.tensor(5e-324, dtype=f64),
                    lib.tensor(1.5, dtype=f64)).tolist() == [[1e-323], [1e-323]]
    assert lib.addcmul(lib.tensor([5e-324], dtype=f64), lib.tensor([0.5], dtype=f64),
                       lib.tensor([5e-324], dtype=f64)).tolist() == [1e-323]
