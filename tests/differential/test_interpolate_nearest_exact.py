"""``F.interpolate(mode="nearest-exact")`` (3-D and 4-D) against torch 2.13: every output bit
and the gradient, over sizes and scale factors (given, recomputed, per dim), fp32/fp16/bf16/
uint8; the graph names torch's nodes."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

CASES = [dict(size=(3, 4)), dict(size=(11, 15)), dict(size=(7, 7)), dict(scale_factor=1.7),
         dict(scale_factor=0.3), dict(scale_factor=2.0), dict(scale_factor=(2.5, 0.61)),
         dict(scale_factor=1.7, recompute_scale_factor=True), dict(scale_factor=1 / 3)]


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "uint8"])
@pytest.mark.parametrize("hw", [(5, 7), (1, 9), (17, 13)])
def test_nearest_exact_bit_exact(dt, hw):
    x = np.random.default_rng(0).normal(size=(2, 3) + hw).astype(np.float32) * 10
    tx, mx = torch.tensor(x).to(getattr(torch, dt)), mg.tensor(x).to(getattr(mg, dt))
    for kw in CASES:
        try:
            t = torch.nn.functional.interpolate(tx, mode="nearest-exact", **kw)
        except RuntimeError as e:           # an empty output (H = 1 times 0.3): same error
            with pytest.raises(RuntimeError) as em:
                mg.nn.functional.interpolate(mx, mode="nearest-exact", **kw)
            assert str(em.value) == str(e)
            continue
        m = mg.nn.functional.interpolate(mx, mode="nearest-exact", **kw)
        assert m.dtype is getattr(mg, dt) and tuple(m.shape) == tuple(t.shape), kw
        np.testing.assert_array_equal(m.float().numpy(), t.float().numpy(), err_msg=str(kw))
        n = kw["size"][1] if "size" in kw else None
        s = None if n else (kw["scale_factor"] if isinstance(kw["scale_factor"], float)
                            else kw["scale_factor"][1])
        t1 = torch.nn.functional.interpolate(tx[:, :, 0], size=n, scale_factor=s,
                                             mode="nearest-exact")
        m1 = mg.nn.functional.interpolate(mx[:, :, 0], size=n, scale_factor=s,
                                          mode="nearest-exact")
        np.testing.assert_array_equal(m1.float().numpy(), t1.float().numpy(), err_msg=str(kw))


def test_nearest_exact_differs_from_nearest_where_torch_does():
    x = np.arange(10.0, dtype=np.float32).reshape(1, 1, 1, 10)
    for lib in (torch, mg):
        a = lib.nn.functional.interpolate(lib.tensor(x), size=(1, 4), mode="nearest")
        b = lib.nn.functional.interpolate(lib.tensor(x), size=(1, 4), mode="nearest-exact")
        assert a.reshape(-1).tolist() == [0.0, 2.0, 5.0, 7.0]
        assert b.reshape(-1).tolist() == [1.0, 3.0, 6.0, 8.0]


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_nearest_exact_backward_bit_exact(dt):
    x = np.random.default_rng(1).normal(size=(1, 2, 5, 7)).astype(np.float32)
    g = np.random.default_rng(2).normal(size=(1, 2, 8, 3)).astype(np.float32)
    grads, names = [], []
    for lib in (torch, mg):
        xt = lib.tensor(x).to(getattr(lib, dt)).requires_grad_()
        y = lib.nn.functional.interpolate(xt, size=(8, 3), mode="nearest-exact")
        y.backward(lib.tensor(g).to(getattr(lib, dt)))
        grads.append(xt.grad.float().numpy())
        names.append(y.grad_fn.name())
    np.testing.assert_array_equal(grads[1], grads[0])
    assert names[0] == names[1] == "UpsampleNearestExact2DBackward0"
