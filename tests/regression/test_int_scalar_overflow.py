"""Python ints that no PyTorch Scalar holds: PyTorch's argument parser reads an int as int64, or
as uint64 when larger, and raises OverflowError outside [-2**63, 2**64) ("int too big to
convert", "can't convert negative int to unsigned") before any op runs; inside that range the
value goes on (1e19 adds to a float tensor). minigrad used to give inf, or a RuntimeError from
the dtype check, or a TypeError."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402
from tests.regression._oracle import assert_same_as_torch  # noqa: E402

CALLS = {
    "bf16 add": lambda L: L.ones(2, dtype=L.bfloat16) + 10 ** 40,
    "fp32 add (fast path)": lambda L: L.ones(2) + 10 ** 40,
    "int64 add": lambda L: L.ones(2, dtype=L.int64) + 10 ** 40,
    "mul negative": lambda L: L.ones(2) * (-10 ** 20),
    "uint64 range": lambda L: L.ones(2) + 10 ** 19,
    "2**64 - 1": lambda L: L.ones(2, dtype=L.float64) + (2 ** 64 - 1),
    "-2**63": lambda L: L.ones(2, dtype=L.float64) - 2 ** 63,
    "sub": lambda L: L.ones(2) - 10 ** 40,
    "div": lambda L: L.ones(2) / 10 ** 40,
    "add_": lambda L: L.ones(2).add_(10 ** 40),
    "mul_": lambda L: L.ones(2).mul_(2 ** 64),
    "pow": lambda L: L.ones(2) ** (10 ** 40),
    "clamp": lambda L: L.ones(2).clamp(max=10 ** 40),
    "full": lambda L: L.full((2,), 10 ** 40),
    "full negative": lambda L: L.full((2,), -10 ** 40, dtype=L.float32),
    "fill_": lambda L: L.ones(2).fill_(10 ** 40),
    "where": lambda L: L.where(L.ones(2) > 0, 10 ** 40, 1.0),
    "gt": lambda L: L.ones(2) > 10 ** 40,
    "eq": lambda L: L.ones(2) == 10 ** 40,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_int_scalar_range_as_torch(name):
    assert_same_as_torch(CALLS[name], torch, mg)
