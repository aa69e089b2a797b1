"""``scaled_dot_product_attention`` with a head dim E of 0: PyTorch's default scale is
``1/sqrt(0)`` = inf in C++ float arithmetic, applied to empty tensors, so the scores are zeros
and the softmax uniform; minigrad raised ZeroDivisionError (found by the random chains)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402

CASES = [((1, 1, 1, 0), (1, 1, 2, 0), (1, 1, 2, 3), None),
         ((1, 1, 1, 0), (1, 1, 2, 0), (1, 1, 2, 0), None),
         ((0, 0), (2, 0), (2, 0), "float16"),
         ((1, 1, 1, 0), (1, 1, 2, 0), (1, 1, 2, 3), "float16"),
         ((2, 0), (3, 0), (3, 2), None)]


@pytest.mark.parametrize("qs, ks, vs, amp", CASES)
def test_sdpa_with_empty_head_dim_as_torch(qs, ks, vs, amp):
    out = []
    for L in (mg, torch):
        q, k = L.zeros(*qs, requires_grad=True), L.zeros(*ks, requires_grad=True)
        v = L.ones(*vs, requires_grad=True)
        with L.autocast("cpu", dtype=getattr(L, amp or "float16"), enabled=amp is not None):
            r = L.nn.functional.scaled_dot_product_attention(q, k, v)
        r.float().sum().backward()
        out.append((tuple(r.shape), str(r.dtype).split(".")[1], r.float().detach().numpy(),
                    v.grad.numpy(), tuple(q.grad.shape)))
    (s1, d1, r1, g1, q1), (s2, d2, r2, g2, q2) = out
    assert (s1, d1, q1) == (s2, d2, q2)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(g1, g2)
