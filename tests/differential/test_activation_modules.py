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
         "Hardswish()", "Hardswish(True)", "Hardsigmoid()", "Hardsigmoid(True)", "LogSigmoid()"]
_X = np.array([[-4.0, -2.5, -1.0, -0.3, 0.0], [0.2, 0.9, 2.0, 3.5, 7.0]], np.float32)


def _public(m):
    return {k: v for k, v in vars(m).items() if not k.startswith("_")}


@pytest.mark.parametrize("ctor", CTORS)
def test_module_matches_torch(ctor):
    t, m = eval("torch.nn." + ctor), eval("mg.nn." + ctor)
    assert repr(m) == repr(t)
    assert _public(m) == _public(t)
    assert type(m).__module__ == "minigrad.nn.modules.activation"
    xt = torch.tensor(_X, requires_grad=True)
    xm = mg.tensor(_X, requires_grad=True)
    yt, ym = t(xt * 1.0), m(xm * 1.0)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=2e-6, atol=1e-7)
    assert ym.grad_fn.name() == yt.grad_fn.name()
    (yt * 1.5).sum().backward()
    (ym * 1.5).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=2e-6, atol=1e-7)


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
