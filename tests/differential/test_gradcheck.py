"""float64 gradcheck of every differentiable op spec (small shapes, smooth seeded inputs).

Uses ``minigrad.autograd.gradcheck`` (PyTorch's signature) when it exists, else a local
central-difference check of a random projection of the outputs. Inputs come from
``RngDrawer``: continuous values away from kinks (abs/relu at 0, clamp bounds) and ties (max),
positive where the domain needs it, no size-0 dims.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad
from tests.harness import make_inputs, mg_F
from tests.op_specs import SPECS
from tests.strategies import RngDrawer

SEEDS = range(4)
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
CASES = [pytest.param(s, seed, id=f"{s.name}-{seed}") for s in SPECS
         if s.differentiable and s.gradcheck for seed in SEEDS]


def _float_outputs(out):
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if isinstance(o, minigrad.Tensor) and o.dtype.is_floating_point]


def _local_gradcheck(f, inputs, seed):
    """Central differences of L = sum_o <w_o, out_o> against minigrad's gradients."""
    rng = np.random.default_rng(1000 + seed)
    outs = _float_outputs(f(*inputs))
    ws = [rng.normal(size=o.shape) for o in outs]
    wts = [minigrad.tensor(w, dtype=minigrad.float64) for w in ws]
    ana = minigrad.autograd.grad(outs, list(inputs), wts, allow_unused=True)

    def loss(arrays):
        xs = [minigrad.tensor(a, dtype=minigrad.float64) for a in arrays]
        with minigrad.no_grad():
            os_ = _float_outputs(f(*xs))
        return sum(float(np.sum(np.asarray(o._data, np.float64) * w)) for o, w in zip(os_, ws))

    base = [np.array(x._data, dtype=np.float64, copy=True) for x in inputs]
    for i, x in enumerate(inputs):
        num = np.zeros(x.shape)
        for j in np.ndindex(*x.shape):
            orig = base[i][j]
            base[i][j] = orig + EPS
            hi = loss(base)
            base[i][j] = orig - EPS
            lo = loss(base)
            base[i][j] = orig
            num[j] = (hi - lo) / (2 * EPS)
        a = np.zeros(x.shape) if ana[i] is None else np.asarray(ana[i]._data, np.float64)
        if not np.allclose(a, num, rtol=RTOL, atol=ATOL):
            k = np.unravel_index(int(np.argmax(np.abs(a - num))), a.shape) if a.ndim else ()
            raise AssertionError(f"Jacobian mismatch for input {i}: analytical {a.tolist()} vs "
                                 f"numerical {num.tolist()} (worst at {k})")


@pytest.mark.parametrize("spec,seed", CASES)
def test_gradcheck(spec, seed):
    sample = spec.sample(RngDrawer(seed))
    args, _, gi = make_inputs(sample, "float64", True)
    if not gi:
        pytest.fail(f"{spec.name}: sample has no differentiable input: {sample.describe()}")
    F = mg_F()

    def f(*xs):
        full = list(args)
        for i, x in zip(gi, xs):
            full[i] = x
        return spec.fn(minigrad, F, *full, **sample.kwargs)

    inputs = tuple(args[i] for i in gi)
    ctx = f"{spec.name}: {sample.describe()}"
    gc = getattr(minigrad.autograd, "gradcheck", None)
    try:
        if gc is not None:
            assert gc(lambda *xs: tuple(_float_outputs(f(*xs))), inputs, eps=EPS, atol=ATOL,
                      rtol=RTOL)
        else:
            _local_gradcheck(f, inputs, seed)
    except Exception as exc:  # noqa: BLE001 - report with the inputs
        raise AssertionError(f"{ctx}\n{type(exc).__name__}: {exc}") from exc
