"""``F.interpolate(mode="linear")`` (3-D) and ``mode="trilinear"`` (5-D) against torch 2.13:
fp32/fp16/bf16 forward and backward bit for bit (ATen's separable kernel with its fused
multiply-adds, 16-bit lambdas in the forward); node names, errors."""
from __future__ import annotations

import os
import zlib

import numpy as np
import pytest
import torch

import minigrad as mg

CASES = [("linear", (2, 3, 7)), ("linear", (1, 2, 1)), ("trilinear", (1, 2, 3, 4, 5)),
         ("trilinear", (2, 1, 1, 2, 3))]
SEED = int(os.environ.get("INTERP_SEED", 0))
SIZES = [{"scale_factor": 2}, {"scale_factor": 1.7}, {"scale_factor": 0.6}, {"size": "random"},
         {"scale_factor": 3, "recompute_scale_factor": True}]


def _run(L, x, g, dt, mode, kw, ac):
    xi = L.tensor(x).to(getattr(L, dt)).requires_grad_()
    y = L.nn.functional.interpolate(xi, mode=mode, align_corners=ac, **kw)
    y.backward(L.tensor(g).to(y.dtype))
    return y.detach().double().numpy(), xi.grad.double().numpy(), type(y.grad_fn).__name__


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("mode,shape", CASES)
def test_against_torch(dt, mode, shape):
    rng = np.random.default_rng(zlib.crc32(repr((dt, mode, shape, SEED)).encode()))
    for kw in SIZES:
        for ac in (False, True):
            x = rng.standard_normal(shape).astype(np.float32)
            kw = dict(kw)
            if kw.get("size") == "random":
                kw["size"] = tuple(int(v) for v in rng.integers(1, 9, len(shape) - 2))
            if min(int(n * kw.get("scale_factor", 1)) for n in shape[2:]) == 0:
                continue
            ty = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, **kw)
            g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
            t, m = _run(torch, x, g, dt, mode, kw, ac), _run(mg, x, g, dt, mode, kw, ac)
            assert t[2] == m[2] and t[0].shape == m[0].shape
            np.testing.assert_array_equal(m[0], t[0])
            np.testing.assert_array_equal(m[1], t[1])


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.interpolate(L.rand(2, 3, 5), scale_factor=2, mode="trilinear"),
    lambda L: L.nn.functional.interpolate(L.rand(1, 1, 2, 2, 2), scale_factor=2, mode="linear"),
    lambda L: L.nn.functional.interpolate(L.rand(2, 3, 4, 4), scale_factor=2, mode="linear"),
    lambda L: L.nn.functional.interpolate(L.rand(2, 3, 4, 4), scale_factor=2, mode="trilinear"),
    lambda L: L.nn.functional.interpolate(L.arange(6).view(1, 2, 3), scale_factor=2,
                                          mode="linear"),
    lambda L: L.nn.functional.interpolate(L.rand(1, 2, 0), scale_factor=2, mode="linear"),
    lambda L: L.nn.functional.interpolate(L.rand(2, 1, 1, 2, 3), scale_factor=0.6,
                                          mode="trilinear"),
])
def test_errors_like_torch(call):
    got = {}
    for L in (torch, mg):
        with pytest.raises(Exception) as info:
            call(L)
        got[L] = (info.type.__name__, str(info.value))
    assert got[torch] == got[mg]


def test_double_backward_is_the_forward_op():
    x = mg.rand(1, 2, 4, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(
        lambda t: mg.nn.functional.interpolate(t, scale_factor=1.5, mode="linear"), (x,))
    assert mg.autograd.gradgradcheck(
        lambda t: mg.nn.functional.interpolate(t, size=(3, 2, 5), mode="trilinear",
                                               align_corners=True),
        (mg.rand(1, 1, 2, 3, 2, dtype=mg.float64, requires_grad=True),))
