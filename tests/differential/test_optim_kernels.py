"""The foreach kernels' rounding recipes (minigrad/ops/foreach_kernels.py) against the torch CPU
kernels they stand for, bit for bit, including the scalar tail loop of 16-bit ``add`` and its
per-thread chunking, and the one documented exception (torch's MKL fp32 sqrt is not correctly rounded)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from minigrad.ops import foreach_kernels as K

from ._optim_util import DTYPES, same, t2np, threads_like_torch  # noqa: F401

pytestmark = pytest.mark.usefixtures("threads_like_torch")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_kernels_match_torch_ops(dtype):
    tdt, npd = DTYPES[dtype]
    gen = torch.Generator().manual_seed(1)
    sizes = list(range(1, 70)) + [97, 32768 + 5, 32800, 40013]
    for n in sizes:
        a = torch.randn(n, generator=gen).to(tdt)
        b = (torch.randn(n, generator=gen) * 0.3).to(tdt)
        c = (torch.rand(n, generator=gen) + 0.05).to(tdt)
        na, nb, nc = (t2np(x, npd) for x in (a, b, c))
        cases = {
            "add_": (a.clone().add_(b, alpha=-0.013), K.add(na, nb, -0.013)),
            "mul_": (a.clone().mul_(0.9), K.mul(na, 0.9)),
            "add_scalar": (c.clone().add_(1e-3), K.add_scalar(nc, 1e-3)),
            "div": (c / 0.7, K.div_scalar(nc, 0.7)),
            "lerp_small_w": (a.clone().lerp_(b, 0.1), K.lerp(na, nb, 0.1)),
            "lerp_big_w": (a.clone().lerp_(b, 0.7), K.lerp(na, nb, 0.7)),
            "addcmul_": (a.clone().addcmul_(b, b, value=0.001), K.addcmul(na, nb, nb, 0.001)),
            "addcdiv_": (a.clone().addcdiv_(b, c, value=-0.01), K.addcdiv(na, nb, nc, -0.01)),
            "maximum": (torch.maximum(a, b), K.maximum(na, nb)),
        }
        if dtype in ("float16", "bfloat16"):
            cases["sqrt"] = (c.sqrt(), K.sqrt(nc))
        for name, (want, got) in cases.items():
            assert got.dtype == npd, name
            assert same(got, t2np(want, npd)), f"{name} n={n}"


def test_fp32_sqrt_is_the_documented_exception():
    """torch's fp32 sqrt (MKL) is not correctly rounded here: ours differs by <= 1 ulp."""
    x = torch.rand(20000, generator=torch.Generator().manual_seed(0)) * 10
    ours = K.sqrt(x.numpy())
    theirs = x.sqrt().numpy()
    diff = np.abs(ours.view(np.int32).astype(np.int64) - theirs.view(np.int32))
    assert diff.max() <= 1
    exact = np.sqrt(x.numpy().astype(np.float64)).astype(np.float32)
    assert same(ours, exact)
