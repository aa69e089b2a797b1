"""linalg_vector_norm (the op behind clip_grad_norm_) against torch.linalg.vector_norm:
values in each dtype, gradients, errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.testing import assert_close, from_torch, to_torch

ORDS = [2.0, 1.0, math.inf, -math.inf, 0.0, 0.5, 3.0]
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("ord_", ORDS)
@pytest.mark.parametrize("tdt", DTYPES)
def test_forward_and_grad_match_torch(ord_, tdt):
    g = torch.Generator().manual_seed(3)
    t = (torch.randn(5, 7, generator=g) * 3).to(tdt)
    t[0, 0] = 0.0
    t = t.requires_grad_()
    m = from_torch(t.detach()).requires_grad_()
    tr = torch.linalg.vector_norm(t, ord_)
    mr = mg.linalg.vector_norm(m, ord_)
    assert mr.dtype is from_torch(tr.detach()).dtype
    # ord 2/1/inf/0: one rounding of an fp32-accumulated sum (1 ulp, summation order); other
    # ords: PyTorch rounds each |x|^p and the final root in fp32, we take them in float64 (4 ulp)
    general = ord_ not in (2.0, 1.0, math.inf, -math.inf, 0.0)
    assert_close(mr, from_torch(tr.detach()), ulp=4 if general else 1)
    if ord_ == 0.0:
        return
    tr.backward()
    mr.backward()
    bound = 2 if tdt in (torch.float32, torch.float64) or general else 1
    assert_close(m.grad, from_torch(t.grad), ulp=bound, atol=1e-6 if bound == 2 else None)


def test_ties_share_the_inf_norm_gradient_and_zero_norm_has_zero_grad():
    for vals, ord_ in (([3.0, -3.0, 1.0], math.inf), ([0.0, 0.0], 2.0)):
        t = torch.tensor(vals, requires_grad=True)
        m = mg.tensor(vals, requires_grad=True)
        torch.linalg.vector_norm(t, ord_).backward()
        mg.linalg.vector_norm(m, ord_).backward()
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


def test_dtype_argument_and_errors():
    x = torch.tensor([1.5, -2.0, 3.25], dtype=torch.float16)
    r = mg.linalg.vector_norm(from_torch(x), dtype=mg.float32)
    e = torch.linalg.vector_norm(x, dtype=torch.float32)
    assert r.dtype is mg.float32 and r.item() == e.item()
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        mg.linalg.vector_norm(mg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="does not have an identity"):
        mg.linalg.vector_norm(mg.zeros(0), math.inf)
    assert to_torch(mg.linalg.vector_norm(mg.zeros(0))).item() == 0.0
