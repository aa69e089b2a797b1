"""Fast paths of the transformer-block and CNN kernels agree bit for bit with their general
paths (the general path is the reference: each fast path only reorganises the same arithmetic).
"""
import numpy as np
import pytest

import minigrad as mg
from minigrad.ops import smooth_activation as sa


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint8).tobytes(), a.shape, a.dtype


@pytest.mark.parametrize("dtype", [mg.float32, mg.float16, mg.bfloat16, mg.float64])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_blockwise_matches_whole_array(monkeypatch, dtype, approximate):
    """gelu / gelu_backward run in ``_BLOCK``-element pieces give the whole-array call's bits
    (values over the erf/tanh range, specials and a length that leaves a short last piece)."""
    rng = np.random.default_rng(0)
    n = 3 * 64 + 17
    x = (rng.standard_normal(n) * 4).astype(np.float64 if dtype is mg.float64 else np.float32)
    x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40]
    dy = rng.standard_normal(n).astype(x.dtype)
    monkeypatch.setattr(sa, "_BLOCK", 10 ** 9)
    want = (sa.Gelu.kernel(dtype, x, approximate),
            sa.GeluBackward.kernel(dtype, dy, x, approximate))
    monkeypatch.setattr(sa, "_BLOCK", 64)
    got = (sa.Gelu.kernel(dtype, x, approximate),
           sa.GeluBackward.kernel(dtype, dy, x, approximate))
    for g, w in zip(got, want):
        assert _bits(g) == _bits(w)
