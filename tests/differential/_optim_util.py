"""Shared helpers for the optim differential tests: torch <-> NumPy storage conversion,
bit-exact comparison, and a fixture pinning the 16-bit tail chunking to torch's thread count."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

from minigrad import numerics

DTYPES = {"float32": (torch.float32, np.float32), "float64": (torch.float64, np.float64),
          "float16": (torch.float16, np.float16),
          "bfloat16": (torch.bfloat16, np.dtype(ml_dtypes.bfloat16))}


@pytest.fixture
def threads_like_torch():
    """The 16-bit add tail chunking follows torch's thread count; restore it afterwards."""
    with numerics.num_threads(torch.get_num_threads()):
        yield


def t2np(t, npd):
    """A torch tensor as a NumPy array in its storage format (bf16 via its bits)."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16).copy()
    return t.numpy().astype(npd, copy=True)


def np2t(a, tdt):
    if tdt == torch.bfloat16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def same(a, b):
    """Bit-identical values (NaNs equal)."""
    a = np.asarray(a).astype(np.float64)
    b = np.asarray(b).astype(np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
