"""``linalg.matrix_norm`` / ``linalg.norm`` with ``ord`` 2, -2 and 'nuc' through the singular
values, as PyTorch's composite (they raised NotImplementedError; a new user's trial).
Values and gradients within LAPACK's rounding of torch's."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
@pytest.mark.parametrize("kw", [{}, {"dim": (0, 2)}, {"dim": (2, 0), "keepdim": True},
                                {"keepdim": True}])
def test_matrix_norm_as_torch(ord, kw):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    got, want = [], []
    for L, out in ((mg, got), (torch, want)):
        w = L.tensor(x, requires_grad=True)
        r = L.linalg.matrix_norm(w, ord=ord, **kw)
        (r * L.arange(1.0, r.numel() + 1, dtype=L.float64).reshape(r.shape)).sum().backward()
        out.extend([tuple(r.shape), r.detach().numpy(), w.grad.numpy()])
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9, atol=1e-12)
    assert mg.linalg.matrix_norm(mg.tensor(x[0], dtype=mg.float32), ord=ord,
                                 dtype=mg.float64).dtype is mg.float64
    np.testing.assert_allclose(mg.linalg.norm(mg.tensor(x[0]), ord=ord).item(),
                               torch.linalg.norm(torch.tensor(x[0]), ord=ord).item(), rtol=1e-12)
