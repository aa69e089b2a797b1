"""Errors a new user's trial (session 21) found in a different order or type than PyTorch's,
and ``in`` on a tensor: each call is checked against torch (exception type and message, or
the values)."""
from __future__ import annotations

import pytest
import torch

import minigrad as mg

from ._oracle import assert_same_as_torch

CASES = {
    # a BatchNorm2d(3) fed 4 channels: ATen names running_mean first, then running_var,
    # weight, bias
    "batch_norm_module_channels": lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 4, 2, 2)),
    "batch_norm_running_var": lambda T: T.nn.functional.batch_norm(
        T.ones(2, 4), T.zeros(4), T.ones(3), T.ones(5), T.ones(5), training=True),
    "batch_norm_weight": lambda T: T.nn.functional.batch_norm(
        T.ones(2, 4), None, None, T.ones(3), T.ones(5), training=True),
    "instance_norm_running_mean": lambda T: T.nn.functional.instance_norm(
        T.ones(2, 4, 3), T.zeros(3), T.ones(3), T.ones(5), T.ones(5), use_input_stats=True),
    # ``x in t``: Tensor.__contains__, ``(x == t).any()``, not Python's walk over t's rows
    "contains_row": lambda T: T.tensor([T.tensor([1, 2]) in T.tensor([[1, 2], [3, 4]])]),
    "contains_broadcast": lambda T: T.tensor([T.tensor([1, 3]) in T.tensor([[1, 2], [3, 4]])]),
    "contains_absent_row": lambda T: T.tensor([T.tensor([5, 6]) in T.tensor([[1, 2], [3, 4]])]),
    "contains_number": lambda T: T.tensor([True in T.tensor([0, 1]), 1.0 in T.ones(0)]),
    "contains_str_error": lambda T: "a" in T.ones(2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_as_torch(name):
    assert_same_as_torch(CASES[name], torch, mg)


def _legacy_call(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double()(lib.ones(2))


def test_legacy_function_call_as_torch():
    """``MyFn()(x)``, pre-0.4 style: PyTorch's DeprecationWarning on instantiation, then its
    RuntimeError (it was "'Double' object is not callable")."""
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        assert_same_as_torch(_legacy_call, torch, mg)
