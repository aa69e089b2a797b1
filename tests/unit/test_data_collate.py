"""``default_collate`` / ``default_convert`` against PyTorch's: nested structures, leaf dtypes,
errors; stacking goes through the dispatcher."""
from __future__ import annotations

import collections

import numpy as np
import pytest
import torch.utils.data as tud

import minigrad as mg
import minigrad.utils.data as mud
from minigrad.dispatch import DispatchMode
from tests.unit._data_compare import Point, both, canon, same_error

# ---------------------------------------------------------------------------------------------
# default_collate / default_convert

COLLATE_CASES = {
    "ints": lambda T: [0, 1, 2],
    "floats": lambda T: [0.5, 1.0],
    "bools": lambda T: [True, False],
    "strings": lambda T: ["a", "bc"],
    "bytes": lambda T: [b"a", b"b"],
    "tuples": lambda T: [(0, "a", 1.5), (1, "b", 2.5)],
    "lists": lambda T: [[0, 1], [2, 3]],
    "namedtuple": lambda T: [Point(1, 2.0), Point(3, 4.0)],
    "nested dict": lambda T: [{"a": {"b": (i, [i])}, "c": [i * 1.0]} for i in range(3)],
    "ordered dict": lambda T: [collections.OrderedDict(z=i, a=float(i)) for i in range(2)],
    "numpy arrays": lambda T: [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy int/uint/bool": lambda T: [(np.arange(2, dtype=np.int16), np.ones(1, np.uint8),
                                       np.array([True]))] * 2,
    "numpy scalars": lambda T: [(np.float32(1), np.int32(2), np.bool_(True), np.float64(3))] * 2,
    "0-d tensors": lambda T: [T.tensor(1.5), T.tensor(2.5)],
    "fp16/bf16 tensors": lambda T: [(T.ones(2, dtype=T.float16),
                                     T.zeros(1, 2, dtype=T.bfloat16))] * 3,
    "int tensors": lambda T: [T.arange(3), T.arange(3) * 2],
}


@pytest.mark.parametrize("case", list(COLLATE_CASES))
def test_default_collate_like_torch(case):
    t, m = both(lambda T, D: D.default_collate(COLLATE_CASES[case](T)))
    assert t == m


@pytest.mark.parametrize("case", ["numpy arrays", "numpy scalars", "tuples", "nested dict",
                                  "namedtuple", "strings"])
def test_default_convert_like_torch(case):
    t, m = both(lambda T, D: D.default_convert(COLLATE_CASES[case](T)))
    assert t == m


def test_default_convert_leaves_string_arrays_alone():
    arr = np.array(["a", "b"])
    assert mud.default_convert(arr) is arr
    assert (canon(mud.default_convert(np.float64(2.0)))
            == canon(tud.default_convert(np.float64(2.0))))


def test_default_collate_stacks_through_dispatch():
    seen = []

    class Record(DispatchMode):
        def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
            seen.append(op_name)
            return call_next(args, kwargs)

    batch = [mg.ones(2, requires_grad=True), mg.zeros(2)]
    with Record():
        out = mud.default_collate(batch)
    assert "stack" in seen
    assert out.grad_fn is not None and out.grad_fn.name() == "StackBackward0"


@pytest.mark.parametrize("bad", [
    lambda T: [T.zeros(3), T.zeros(2)],
    lambda T: [[1, 2], [1]],
    lambda T: [object()],
    lambda T: [np.array(["a"]), np.array(["b"])],
    lambda T: [{"a": T.zeros(1)}, {"a": T.zeros(1, 2)}],
], ids=["tensor sizes", "list lengths", "object", "str array", "dict of sizes"])
def test_default_collate_errors_like_torch(bad):
    same_error(lambda T, D: D.default_collate(bad(T)))
