"""The activation modules of issue 7 against their PyTorch twins: ``repr`` (``extra_repr``),
public attributes, forward values and gradients, ``inplace`` writing the input, importable under
PyTorch's module path; and the ``F`` functions' argument errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402

CTORS = ["GELU()", "GELU('tanh')", "GELU(approximate='none')", "SiLU()", "SiLU(True)", "Mish()",
         "Mish(inplace=True)", "Softplus()", "Softplus(2, 10)", "Softplus(beta=0.5)",
         "LeakyReLU()", "LeakyReLU(0.2, True)", "ELU()", "ELU(0.5, True)", "SELU()",
         "SELU(True)", "Hardtanh()", "Hardtanh(-2, 2, True)", "ReLU6()", "ReLU6(True)",
         "Hardswish()", "Hardswish(True)", "Hardsigmoid()", "Hardsigmoid(True)", "LogSigmoid()",
         "CELU()", "CELU(0.5, True)", "Threshold(0.1, 20.0)", "Threshold(-1, 2, True)",
         "Hardshrink()", "Hardshrink(0.3)", "Softshrink()", "Softshrink(1.0)", "Softsign()",
         "Tanhshrink()", "RReLU()", "RReLU(0.1, 0.3, True)"]
# fp32 gelu(approximate="none") is oneDNN's eltwise gelu_erf in PyTorch's CPU build. Its AVX-512
# JIT kernel (``numerics.ONEDNN_AVX512``: chosen by oneDNN from cpuid, whatever
# ATEN_CPU_CAPABILITY says) cancels in 1 + erf for x < -3 with its own exp/erf polynomials:
# measured over linspace(-8, 8, 20001) against minigrad's ATen-erf model, absolute error up to
# 1.04e-6 in the forward (6.5e-8 beyond rtol in the backward). On such a CPU only, GELU's
# absolute tolerance is 2**-19; the AVX2 kernel stays within the common 1e-7.
_ONEDNN_GELU_ATOL = 2.0 ** -19
_X = np.array([[-4.0, -2.5, -1.0, -0.3, 0.0], [0.2, 0.9, 2.0, 3.5, 7.0]], np.float32)


def _public(m):
    return {k: v for k, v in vars(m).items() if not k.startswith("_")}


@pytest.mark.parametrize("ctor", CTORS)
def test_module_matches_torch(ctor):
    t, m = eval("torch.nn." + ctor), eval("mg.nn." + ctor)
    if ctor.startswith("RReLU"):         # eval mode: the mean slope (training draws slopes)
        t.eval(), m.eval()
    assert repr(m) == repr(t)
    assert _public(m) == _public(t)
    assert type(m).__module__ == "minigrad.nn.modules.activation"
    xt = torch.tensor(_X, requires_grad=True)
    xm = mg.tensor(_X, requires_grad=True)
    yt, ym = t(xt * 1.0), m(xm * 1.0)
    gelu_erf = ctor.startswith("GELU") and "tanh" not in ctor
    atol = _ONEDNN_GELU_ATOL if gelu_erf and mg.numerics.ONEDNN_AVX512 else 1e-7
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=2e-6, atol=atol)
    assert ym.grad_fn.name() == yt.grad_fn.name()
    (yt * 1.5).sum().backward()
    (ym * 1.5).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=2e-6, atol=atol)


@pytest.mark.parametrize("ctor", [c for c in CTORS if "True" in c])
def test_inplace_module_writes_its_input(ctor):
    m = eval("mg.nn." + ctor)
    x = mg.tensor(_X)
    assert m(x) is x


def test_hardtanh_bounds_errors_and_deprecated_names():
    for lib in (torch, mg):
        with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
            lib.nn.functional.hardtanh(lib.tensor([0.5]), 2.0, 1.0)
        with pytest.raises(AssertionError):
            lib.nn.Hardtanh(1.0, 1.0)
        with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
            h = lib.nn.Hardtanh(min_value=-3.0)
        assert h.min_val == -3.0


def test_gelu_approximate_error_and_integer_input():
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
            lib.nn.functional.gelu(lib.tensor([0.5]), approximate="fast")
        for f in ("gelu", "silu", "mish", "softplus", "elu", "leaky_relu", "hardswish",
                  "hardsigmoid", "logsigmoid", "selu"):
            with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
                getattr(lib.nn.functional, f)(lib.tensor([1, 2]))

    for lib in (torch, mg):
        F = lib.nn.functional
        for f in ("hardshrink", "softshrink", "celu"):
            with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
                getattr(F, f)(lib.tensor([1, 2]))


def test_new_functional_errors_match_torch():
    cases = [
        (lambda L: L.nn.functional.softshrink(L.ones(2), -1.0), RuntimeError),
        (lambda L: L.nn.functional.softshrink(L.ones(2, dtype=L.float16), -1.0), RuntimeError),
        (lambda L: L.nn.functional.celu(L.ones(2), 0.0), RuntimeError),
        (lambda L: L.nn.functional.threshold(L.tensor([True]), 0.0, 1.0), NotImplementedError),
        (lambda L: L.nn.functional.threshold(L.ones(2, dtype=L.uint8), 0.1, -1.5), RuntimeError),
        (lambda L: L.nn.functional.rrelu(L.ones(2), 0.5, 0.2), RuntimeError),
        (lambda L: L.nn.functional.prelu(L.ones(2, 3), L.ones(2)), RuntimeError),
        (lambda L: L.nn.functional.prelu(L.ones(2, 3), L.ones(1, 3)), RuntimeError),
        (lambda L: L.nn.functional.prelu(L.ones(()), L.ones(3)), RuntimeError),
        (lambda L: L.nn.functional.prelu(L.ones(3), L.ones(1, dtype=L.float64)), RuntimeError),
        (lambda L: L.nn.Softmax2d()(L.ones(3)), ValueError),
    ]
    for fn, exc in cases:
        with pytest.raises(exc) as te:
            fn(torch)
        with pytest.raises(exc) as me:
            fn(mg)
        assert str(me.value) == str(te.value)


def test_threshold_keeps_integer_dtype_as_torch():
    t = torch.nn.functional.threshold(torch.arange(-3, 3), 0.5, 7)
    m = mg.nn.functional.threshold(mg.arange(-3, 3), 0.5, 7)
    assert m.dtype is mg.int64 and m.tolist() == t.tolist()


@pytest.mark.parametrize("num,shape", [(1, (2, 3, 4)), (3, (2, 3, 4)), (3, (2, 3)), (1, (5,))])
def test_prelu_module_values_and_weight_grad_match_torch(num, shape):
    rng = np.random.default_rng(num)
    x0 = rng.standard_normal(shape).astype(np.float32)
    t, m = torch.nn.PReLU(num, init=0.1), mg.nn.PReLU(num, init=0.1)
    assert repr(m) == repr(t) and list(m.state_dict()) == list(t.state_dict()) == ["weight"]
    with torch.no_grad():
        t.weight.copy_(torch.tensor(rng.uniform(-0.5, 0.5, num).astype(np.float32)))
    m.load_state_dict({"weight": mg.tensor(t.weight.detach().numpy())})
    xt, xm = torch.tensor(x0, requires_grad=True), mg.tensor(x0, requires_grad=True)
    yt, ym = t(xt), m(xm)
    assert ym.grad_fn.name() == yt.grad_fn.name() == "PreluKernelBackward0"
    np.testing.assert_array_equal(ym.detach().numpy(), yt.detach().numpy())
    g = rng.standard_normal(shape).astype(np.float32)
    yt.backward(torch.tensor(g))
    ym.backward(mg.tensor(g))
    np.testing.assert_array_equal(xm.grad.numpy(), xt.grad.numpy())
    np.testing.assert_allclose(m.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-6,
                               atol=1e-7)


def test_prelu_double_backward_matches_torch():
    rng = np.random.default_rng(7)
    x0, w0 = rng.standard_normal((2, 3, 2)), rng.uniform(-0.5, 0.5, 3)
    out = []
    for lib in (torch, mg):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.prelu(x, w)
        gx, gw = lib.autograd.grad((y * y).sum(), [x, w], create_graph=True)
        assert gx.grad_fn.name() in ("PreluKernelBackwardBackward0", "AddBackward0")
        hx, hw = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x, w])
        out.append([a.detach().numpy() for a in (gx, gw, hx, hw)])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ctor", ["Softmin(1)", "Softmin(dim=0)"])
def test_softmin_module_matches_torch(ctor):
    """(A varying upstream gradient: softmax's gradient of a constant one cancels to noise.)"""
    t, m = eval("torch.nn." + ctor), eval("mg.nn." + ctor)
    assert repr(m) == repr(t) and _public(m) == _public(t)
    xt, xm = torch.tensor(_X, requires_grad=True), mg.tensor(_X, requires_grad=True)
    yt, ym = t(xt), m(xm)
    assert ym.grad_fn.name() == yt.grad_fn.name() == "SoftmaxBackward0"
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=2e-6, atol=1e-7)
    w = np.arange(10, dtype=np.float32).reshape(2, 5)
    (yt * torch.tensor(w)).sum().backward()
    (ym * mg.tensor(w)).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_softmax2d_matches_torch():
    x0 = np.random.default_rng(3).standard_normal((2, 3, 2, 2)).astype(np.float32)
    for shape in ((2, 3, 2, 2), (3, 2, 2)):
        a = x0.reshape(-1)[:int(np.prod(shape))].reshape(shape)
        yt = torch.nn.Softmax2d()(torch.tensor(a))
        ym = mg.nn.Softmax2d()(mg.tensor(a))
        assert repr(mg.nn.Softmax2d()) == "Softmax2d()"
        np.testing.assert_allclose(ym.numpy(), yt.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_draws_slopes_and_backward_uses_them(inplace):
    """Training mode: each negative element gets its own slope in [lower, upper] (ATen's draws:
    torch's numbers after the same seed); positives pass; the gradient is the slope used."""
    x0 = np.linspace(-3, 3, 400).astype(np.float32)
    leaf = mg.tensor(x0, requires_grad=True)
    x = leaf * 1.0
    y = mg.nn.functional.rrelu(x, 0.1, 0.3, training=True, inplace=inplace)
    assert y.grad_fn.name() == ("RreluWithNoiseBackward1" if inplace else
                                "RreluWithNoiseBackward0")
    yv = y.detach().numpy()
    neg = x0 < 0
    slope = yv[neg] / x0[neg]
    assert (slope >= 0.1 - 1e-7).all() and (slope <= 0.3 + 1e-7).all()
    assert slope.std() > 0.03                     # really random, not the mean slope
    np.testing.assert_array_equal(yv[x0 > 0], x0[x0 > 0])
    y.sum().backward()
    g = leaf.grad.numpy()
    np.testing.assert_allclose(g[neg], slope, rtol=1e-6)
    np.testing.assert_array_equal(g[x0 > 0], 1.0)
    for dt in ("bfloat16", "float64", "float32"):      # torch's draws after the same seed
        mg.manual_seed(5)
        torch.manual_seed(5)
        a = mg.nn.functional.rrelu(mg.tensor(x0).to(getattr(mg, dt)), training=True)
        b = torch.nn.functional.rrelu(torch.tensor(x0).to(getattr(torch, dt)), training=True)
        if dt == "float32":           # within 2 ulp (see minigrad/ops/slope_relu.py)
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2.5e-7, atol=0)
        else:
            np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
    for lib in (torch, mg):
        with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
            lib.nn.functional.rrelu(lib.ones(3, dtype=lib.float16), training=True)
