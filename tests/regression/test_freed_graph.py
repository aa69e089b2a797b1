"""The freed-graph rule over the whole op catalogue, against PyTorch.

PyTorch frees a node's saved tensors after a backward without ``retain_graph``; a second backward
through that node raises "Trying to backward through the graph a second time...". So whether the
second backward raises depends on what each op saves (``derivatives.yaml``): ``x * 3`` saves the
wrapped scalar 3 and raises, ``x + 3`` saves nothing and does not. For every differentiable op of
``tests/op_specs.py`` on a few deterministic samples: run it in both frameworks, reduce each
differentiable output with ``sum`` (which saves nothing), backward once, then once more, and the
second backward must raise (a RuntimeError) exactly when PyTorch's does.
"""
from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as tF

import minigrad
import minigrad.nn.functional as mF
from tests.harness import make_inputs
from tests.op_specs import SPECS
from tests.strategies import DTypeDrawer


def _second_backward_raises(spec, lib, F, args, kwargs):
    """None when the op or the first backward fails, else whether the second backward raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = spec.fn(lib, F, *args, **kwargs)
        except Exception:  # noqa: BLE001 - an input the op rejects: nothing to compare
            return None
        outs = [o for o in (out if isinstance(out, (tuple, list)) else [out])
                if o is not None and o.requires_grad]
        if not outs:
            return None
        loss = outs[0].sum()
        for o in outs[1:]:
            loss = loss + o.sum()
        try:
            loss.backward()
        except RuntimeError:
            return None         # a first backward PyTorch itself rejects: nothing to compare
        try:
            loss.backward()
        except RuntimeError as e:
            assert "second time" in str(e), str(e)
            return True
        return False


SAMPLES = 4
CASES = [pytest.param(s, id=s.name) for s in SPECS if s.differentiable]


@pytest.mark.parametrize("spec", CASES)
def test_second_backward_raises_like_torch(spec):
    compared = 0
    for seed in range(SAMPLES * 3):
        sample = spec.sample(DTypeDrawer(seed))
        mg_args, th_args, gi = make_inputs(sample, "float64", True)
        if not gi:
            continue
        expected = _second_backward_raises(spec, torch, tF, th_args, sample.kwargs)
        if expected is None:
            continue
        got = _second_backward_raises(spec, minigrad, mF, mg_args, sample.kwargs)
        assert got == expected, (f"{spec.name} {sample.describe()}: second backward raises in "
                                 f"torch: {expected}, in minigrad: {got}")
        compared += 1
        if compared >= SAMPLES:
            break
    assert compared, f"{spec.name}: no sample could be compared"


EXPRESSIONS = {
    "x*3": lambda L, x: (x * 3).sum(), "3*x": lambda L, x: (3 * x).sum(),
    "x/2": lambda L, x: (x / 2).sum(), "x.sum()*3": lambda L, x: x.sum() * 3,
    "x+3": lambda L, x: (x + 3).sum(), "x.sum()": lambda L, x: x.sum(),
    "div floor": lambda L, x: L.div(x, 2, rounding_mode="floor").sum(),
    "x[[0]]": lambda L, x: x[[0]].sum(), "x[mask]": lambda L, x: x[x > 1].sum(),
    "masked_fill": lambda L, x: x.masked_fill(x > 1, 0.0).sum(),
    "clone().mul_(2)": lambda L, x: x.clone().mul_(2).sum(),
    "view mul_": lambda L, x: (lambda b: (b[0].mul_(3), b)[1])(x + 1).sum(),
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_scalar_operands_are_saved_like_torch(name):
    def raises(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = EXPRESSIONS[name](L, x)
        y.backward()
        try:
            y.backward()
        except RuntimeError:
            return True
        return False
    assert raises(minigrad) == raises(torch)
