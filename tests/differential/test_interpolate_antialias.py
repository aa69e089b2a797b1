"""``F.interpolate(mode="bilinear" / "bicubic", antialias=True)`` (4-D, float32) against torch
2.13: every forward bit over sizes, scale factors (given, recomputed, per dim), align_corners,
down- and upsampling and width-1 outputs; the gradient within fp32 rounding (a deliberate
difference: the adjoint is summed in fp64, rounded once); torch's node names and errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

KWS = [dict(size=(3, 5)), dict(size=(20, 7)), dict(scale_factor=0.37),
       dict(scale_factor=(0.5, 2.0)), dict(size=(4, 1)), dict(size=(3, 5), align_corners=True),
       dict(scale_factor=0.3, recompute_scale_factor=True)]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("hw", [(9, 13), (32, 32), (7, 1), (1, 9), (40, 17)])
def test_antialias_forward_bit_exact(mode, hw):
    x = np.random.default_rng(7).normal(size=(2, 3) + hw).astype(np.float32)
    for kw in KWS:
        try:
            t = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, antialias=True,
                                                **kw)
        except RuntimeError as e:                     # an empty output: the same error
            with pytest.raises(RuntimeError) as em:
                mg.nn.functional.interpolate(mg.tensor(x), mode=mode, antialias=True, **kw)
            assert str(em.value) == str(e)
            continue
        m = mg.nn.functional.interpolate(mg.tensor(x), mode=mode, antialias=True, **kw)
        np.testing.assert_array_equal(m.numpy(), t.numpy(), err_msg=str(kw))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_backward_and_node_names(mode):
    rng = np.random.default_rng(8)
    x = rng.normal(size=(1, 2, 11, 9)).astype(np.float32)
    g = rng.normal(size=(1, 2, 4, 5)).astype(np.float32)
    out = []
    for lib in (torch, mg):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(xt, size=(4, 5), mode=mode, antialias=True)
        y.backward(lib.tensor(g))
        out.append((y.grad_fn.name(), xt.grad.numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-6, atol=1e-7)


def test_antialias_errors_as_torch():
    for f in (lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4), size=2, mode="linear",
                                                    antialias=True),
              lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4, 4), size=2,
                                                    mode="nearest", antialias=True)):
        with pytest.raises(ValueError) as et:
            f(torch)
        with pytest.raises(ValueError) as em:
            f(mg)
        assert str(em.value) == str(et.value)
