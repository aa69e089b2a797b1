"""The regression tests' oracle check: a call in torch and in minigrad gives the same exception
(type and message) or, where torch's succeeds, the same dtype, shape and values."""
from __future__ import annotations

import numpy as np
import pytest


def assert_same_as_torch(f, torch, mg):
    """``f(torch)`` and ``f(mg)`` (``f`` takes the library) raise alike or agree bit for bit."""
    try:
        want = f(torch)
    except Exception as e:          # noqa: BLE001 - the oracle's exception, compared below
        with pytest.raises(type(e)) as got:
            f(mg)
        assert str(got.value) == str(e)
        return
    got = f(mg)
    assert got.dtype.name == str(want.dtype)[6:] and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
