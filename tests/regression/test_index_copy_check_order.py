"""``index_copy_``'s checks in ATen's order (dim, index dims, source dims, index dtype, source
dtype, slice shapes, index count): a source with another number of dims raised the slice-shape
RuntimeError where torch raises the dimensionality IndexError (found by the random chains)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402

CASES = {
    "dims differ, int32 index": lambda L: L.zeros(3, 2).index_copy_(
        0, L.tensor([0], dtype=L.int32), L.ones(2)),
    "dims differ, other dtype": lambda L: L.zeros(3, 2).index_copy_(
        0, L.tensor([0]), L.ones(2, dtype=L.float64)),
    "empty 3-d destination": lambda L: L.zeros(0, 0, 0).index_copy_(
        0, L.tensor([], dtype=L.int64), L.ones(0)),
    "2-d index": lambda L: L.zeros(3, 2).index_copy_(0, L.tensor([[0]]), L.ones(2)),
    "2-d int32 index": lambda L: L.zeros(3, 2).index_copy_(
        0, L.tensor([[0]], dtype=L.int32), L.ones(1, 2)),
    "scalar source, two indices": lambda L: L.zeros(3, 2).index_copy_(
        0, L.tensor([0, 1]), L.tensor(1.)),
    "count": lambda L: L.zeros(3, 2).index_copy_(0, L.tensor([0, 1, 2]), L.ones(2, 2)),
    "dim out of range": lambda L: L.zeros(3, 2).index_copy_(5, L.tensor([[0]]), L.ones(1, 2)),
    "out of place": lambda L: L.zeros(3, 2).index_copy(0, L.tensor([0]), L.ones(2)),
    "0-d destination": lambda L: L.zeros(()).index_copy_(0, L.tensor([0, 1]), L.ones(2)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_index_copy_errors_as_torch(name):
    with pytest.raises(Exception) as want:
        CASES[name](torch)
    with pytest.raises(type(want.value)) as got:
        CASES[name](mg)
    assert str(got.value) == str(want.value)
