"""torch.set_printoptions / get_printoptions and the tensor repr that follows them, against
PyTorch 2.13 (reprs compared as text, ``minigrad.`` read as ``torch.``)."""
import numpy as np
import pytest
import torch

import minigrad as mg

X = np.random.default_rng(0).standard_normal((40, 40))
ARRAYS = [X[:2, :3], X * 1e-6, X[:1, :12], X, np.arange(10.0), np.array([1e10, 1.5]),
          np.array(3.5), np.array([np.nan, 1.0, -np.inf, 0.0]), X[:3, :4, None] * 100,
          np.array([-0.0, 2.0]), np.zeros((0, 3)), X[:2, :2] > 0]
OPTIONS = [{}, {"precision": 2}, {"sci_mode": True}, {"sci_mode": False},
           {"threshold": 5, "edgeitems": 2}, {"linewidth": 40}, {"profile": "short"},
           {"precision": 6, "sci_mode": False}, {"profile": "full"},
           {"edgeitems": 0, "threshold": 3}, {"threshold": 10, "edgeitems": 1, "linewidth": 30}]


@pytest.mark.parametrize("opts", OPTIONS)
def test_repr_follows_printoptions(opts):
    try:
        mg.set_printoptions(**opts)
        torch.set_printoptions(**opts)
        for arr in ARRAYS:
            for dt in ("float32", "float64", "bfloat16", "int64", "bool"):
                if dt in ("int64", "bool") and not np.all(np.isfinite(arr)):
                    continue
                m = mg.tensor(arr).to(getattr(mg, "bool_" if dt == "bool" else dt))
                t = torch.tensor(arr).to(getattr(torch, dt))
                assert repr(m).replace("minigrad.", "torch.") == repr(t)
        got = mg.get_printoptions()
        for k in ("precision", "threshold", "edgeitems", "linewidth"):
            assert got[k] == getattr(torch._tensor_str.PRINT_OPTS, k)
    finally:
        mg.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
