"""The in-place pointwise math and activation ops against PyTorch: values written into ``self``,
the graph node recorded on ``self`` (``SinBackward0``, ``EluBackward1``...), gradients through a
non-leaf, and PyTorch's errors (a leaf that requires grad, a float result into an integer tensor,
in-place leaky_relu with a negative slope at backward). Also the graph node names of the
out-of-place ops and of their fused backward kernels under double backward."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402

_X = np.array([[0.3, -0.7, 1.9], [-2.6, 0.05, 0.8]])
_UNIT = np.array([[0.3, -0.7, 0.9], [-0.2, 0.05, 0.5]])
_POS = np.array([[0.3, 0.7, 1.9], [2.6, 0.05, 0.8]])


def _other(lib, dtype):
    return lib.tensor(np.array([[1.2, 0.4, -0.5], [0.9, -1.1, 2.0]]), dtype=dtype)


# name -> (input values, call on (lib, F, t, dtype))
CASES = {
    **{n: (_UNIT if n in ("asin_", "acos_", "erfinv_") else
           _POS if n in ("log1p_", "log2_", "log10_", "rsqrt_") else _X,
           lambda lib, F, t, dt, n=n: getattr(t, n)())
       for n in ("sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "exp2_",
                 "log1p_",
                 "expm1_", "log2_", "log10_", "rsqrt_", "erf_", "erfinv_", "floor_", "ceil_",
                 "trunc_", "frac_", "round_", "nan_to_num_")},
    "round_decimals": (_X, lambda lib, F, t, dt: t.round_(decimals=1)),
    "atan2_": (_X, lambda lib, F, t, dt: t.atan2_(_other(lib, dt))),
    "hypot_": (_X, lambda lib, F, t, dt: t.hypot_(_other(lib, dt))),
    "lerp_": (_X, lambda lib, F, t, dt: t.lerp_(_other(lib, dt), 0.3)),
    "lerp_tensor": (_X, lambda lib, F, t, dt: t.lerp_(_other(lib, dt), _other(lib, dt) * 0.1)),
    "addcmul_": (_X, lambda lib, F, t, dt: t.addcmul_(_other(lib, dt), _other(lib, dt),
                                                      value=0.5)),
    "addcdiv_": (_X, lambda lib, F, t, dt: t.addcdiv_(_other(lib, dt), _other(lib, dt) + 3,
                                                      value=0.5)),
    "clamp_min_": (_X, lambda lib, F, t, dt: t.clamp_min_(0.1)),
    "clamp_max_": (_X, lambda lib, F, t, dt: t.clamp_max_(0.1)),
    "clamp_min_tensor": (_X, lambda lib, F, t, dt: t.clamp_min_(_other(lib, dt))),
    "clamp_max_tensor": (_X, lambda lib, F, t, dt: t.clamp_max_(_other(lib, dt))),
    "silu": (_X, lambda lib, F, t, dt: F.silu(t, inplace=True)),
    "mish": (_X, lambda lib, F, t, dt: F.mish(t, inplace=True)),
    "elu": (_X, lambda lib, F, t, dt: F.elu(t, 0.7, inplace=True)),
    "selu": (_X, lambda lib, F, t, dt: F.selu(t, inplace=True)),
    "leaky_relu": (_X, lambda lib, F, t, dt: F.leaky_relu(t, 0.2, inplace=True)),
    "hardtanh": (_X, lambda lib, F, t, dt: F.hardtanh(t, -0.5, 1.0, inplace=True)),
    "relu6": (_X * 4, lambda lib, F, t, dt: F.relu6(t, inplace=True)),
    "hardswish": (_X * 2, lambda lib, F, t, dt: F.hardswish(t, inplace=True)),
    "hardsigmoid": (_X * 2, lambda lib, F, t, dt: F.hardsigmoid(t, inplace=True)),
    "elu_fn": (_X, lambda lib, F, t, dt: F.elu_(t)),
    "leaky_relu_fn": (_X, lambda lib, F, t, dt: F.leaky_relu_(t)),
    "hardtanh_fn": (_X, lambda lib, F, t, dt: F.hardtanh_(t)),
    "torch_sin_": (_X, lambda lib, F, t, dt: lib.sin_(t)),
    "torch_selu_": (_X, lambda lib, F, t, dt: lib.selu_(t)),
    "celu": (_X, lambda lib, F, t, dt: F.celu(t, 0.7, inplace=True)),
    "celu_fn": (_X, lambda lib, F, t, dt: F.celu_(t)),
    "threshold": (_X, lambda lib, F, t, dt: F.threshold(t, 0.1, -2.0, inplace=True)),
    "rrelu_eval": (_X, lambda lib, F, t, dt: F.rrelu(t, 0.1, 0.3, inplace=True)),
    "relu_fn": (_X, lambda lib, F, t, dt: F.relu_(t)),
}


def _run(lib, F, case, dtype_name):
    x0, call = CASES[case]
    dt = getattr(lib, dtype_name)
    leaf = lib.tensor(x0, dtype=dt, requires_grad=True)
    t = leaf * 1.0
    out = call(lib, F, t, dt)
    name = t.grad_fn.name() if t.grad_fn is not None else None
    (t * lib.tensor(_X + 1.5, dtype=dt)).sum().backward()
    return out is t, t.detach(), name, leaf.grad


def _np(t):
    return t.float().numpy() if hasattr(t, "float") else np.asarray(t)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_inplace_values_node_and_grad_match_torch(case, dtype):
    same_t, vt, name_t, gt = _run(torch, torch.nn.functional, case, dtype)
    same_m, vm, name_m, gm = _run(mg, mg.nn.functional, case, dtype)
    assert same_t and same_m
    assert name_m == name_t
    assert vm.dtype is getattr(mg, dtype)
    if dtype == "bfloat16":                  # computed in fp32, rounded once: bit-exact
        np.testing.assert_array_equal(_np(vm), _np(vt))
    else:                                    # MKL/Sleef vs correctly rounded: <= 2 ulp
        np.testing.assert_allclose(_np(vm), _np(vt), rtol=2.5e-7, atol=0)
    # the backward formulas are composites of rounded ops: fp32 within a few ulp, bf16 bit-exact
    # or 1 ulp
    tol = dict(rtol=3e-6, atol=1e-7) if dtype == "float32" else dict(rtol=8e-3, atol=1e-6)
    np.testing.assert_allclose(_np(gm), _np(gt), **tol)


def test_inplace_on_leaf_requiring_grad_raises_like_torch():
    for lib in (torch, mg):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            x.sin_()


def test_float_result_into_integer_tensor_raises():
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            lib.tensor([1, 2]).sin_()


def test_inplace_leaky_relu_negative_slope_backward_raises():
    for lib in (torch, mg):
        t = lib.tensor([0.5, -1.0], requires_grad=True) * 1.0
        lib.nn.functional.leaky_relu(t, -0.1, inplace=True)
        with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation"):
            t.sum().backward()


def test_logical_inplace_keeps_dtype():
    for lib in (torch, mg):
        a = lib.tensor([0.0, 2.0, -1.0])
        a.logical_and_(lib.tensor([1.0, 0.0, 3.0]))
        assert a.dtype == lib.float32 and a.tolist() == [0.0, 0.0, 1.0]
        a.logical_or_(lib.tensor([1.0, 0.0, 0.0]))
        a.logical_xor_(lib.tensor([1.0, 1.0, 0.0]))
        a.logical_not_()
        assert a.tolist() == [1.0, 0.0, 0.0]


_DOUBLE = {
    "gelu": lambda F, x: F.gelu(x), "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x), "mish": lambda F, x: F.mish(x),
    "softplus": lambda F, x: F.softplus(x, 2.0, 3.0), "logsigmoid": lambda F, x: F.logsigmoid(x),
    "elu": lambda F, x: F.elu(x, 0.7), "selu": lambda F, x: F.selu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2), "hardtanh": lambda F, x: F.hardtanh(x),
    "hardswish": lambda F, x: F.hardswish(x),
}


def test_hardsigmoid_has_no_double_backward():
    for lib in (torch, mg):
        x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is "
                                               "not implemented"):
            lib.autograd.grad((g * g).sum(), x)


@pytest.mark.parametrize("case", sorted(_DOUBLE))
def test_double_backward_nodes_and_values_match_torch(case):
    res = {}
    for lib in (torch, mg):
        x = lib.tensor(_X * 1.7, dtype=lib.float64, requires_grad=True)
        y = _DOUBLE[case](lib.nn.functional, x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        res[lib.__name__] = (y.grad_fn.name(), g.grad_fn.name() if g.grad_fn else None,
                             g.detach().numpy(), gg.numpy())
    t, m = res["torch"], res["minigrad"]
    assert m[0] == t[0]
    assert m[1] == t[1]
    np.testing.assert_allclose(m[2], t[2], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(m[3], t[3], rtol=1e-10, atol=1e-12)
