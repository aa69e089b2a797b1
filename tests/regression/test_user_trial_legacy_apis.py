"""APIs of public PyTorch scripts that minigrad lacked (a new user's trial, sessions 21-22):
the legacy constructor ``Tensor.new``, ``share_memory_``/``is_shared``, ``torch.logaddexp`` /
``logaddexp2``, ``torch.block_diag``, several ellipses in one index, an ``autograd.Function``
whose forward returns a non-tensor, the TypeError of ``t + "a"``.

Each case runs under torch and minigrad: the same exception (type and message, ``torch.`` read
as ``minigrad.``) or the same dtype, shape, ``requires_grad`` and values.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _outcome(f, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(lib)
    except Exception as e:          # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    if not isinstance(r, (torch.Tensor, mg.Tensor)):
        return "value", r
    a = (r.view(lib.int16) if r.dtype == lib.bfloat16 else r).detach().numpy()
    return "ok", str(r.dtype).rsplit(".", 1)[-1], tuple(r.shape), r.requires_grad, a


def assert_same(f, values=True):
    """``f(torch)`` and ``f(mg)`` raise alike or agree (values bit for bit unless ``values`` is
    False: PyTorch's uninitialised memory)."""
    t, m = _outcome(f, torch), _outcome(f, mg)
    assert t[0] == m[0], (t, m)
    if t[0] != "ok":
        assert t[1:] == m[1:], (t, m)
        return
    assert t[1:4] == m[1:4], (t, m)
    if values:
        assert t[4].dtype == m[4].dtype and np.array_equal(t[4], m[4], equal_nan=True), (t, m)


def _x(L):
    return L.ones(2, dtype=L.float64)


NEW_CASES = {
    "empty": (lambda L: _x(L).new(), True),
    "sizes": (lambda L: _x(L).new(2, 3), False),
    "one_int": (lambda L: _x(L).new(5), False),
    "numpy_int": (lambda L: _x(L).new(np.int64(3)), False),
    "size_obj": (lambda L: _x(L).new(L.Size([2, 1])), False),
    "size_0d": (lambda L: _x(L).new(L.Size([])), False),
    "zero": (lambda L: _x(L).new(0), True),
    "list": (lambda L: _x(L).new([1, 2]), True),
    "tuple_is_data": (lambda L: _x(L).new((1, 2)), True),
    "nested": (lambda L: _x(L).new([[1, 2], [3, 4]]), True),
    "empty_list": (lambda L: _x(L).new([]), True),
    "empty_tuple": (lambda L: _x(L).new(()), True),
    "numpy": (lambda L: _x(L).new(np.array([1, 2])), True),
    "numpy_0d": (lambda L: _x(L).new(np.array(2.0)), True),
    "mixed": (lambda L: _x(L).new([True, 2.5]), True),
    "int_dtype_truncates": (lambda L: L.ones(2, dtype=L.int64).new([1.7, -2.2]), True),
    "bf16": (lambda L: L.ones(1, dtype=L.bfloat16).new([1.3, 2]), True),
    "alias": (lambda L: _x(L).new(_x(L) * 3), True),
    "alias_grad": (lambda L: _x(L).new(_x(L).requires_grad_()), True),
    "device_cpu": (lambda L: _x(L).new(2, device="cpu"), False),
    "device_obj": (lambda L: _x(L).new([1, 2], device=L.device("cpu")), True),
    "no_grad_from_grad_self": (lambda L: _x(L).requires_grad_().new([1, 2]), True),
    "err_other_dtype": (lambda L: _x(L).new(L.ones(2)), True),
    "err_other_int8": (lambda L: _x(L).new(L.ones(2, dtype=L.int8)), True),
    "err_other_int16": (lambda L: _x(L).new(L.ones(2, dtype=L.int16)), True),
    "err_uint8_self": (lambda L: L.ones(1, dtype=L.uint8).new(L.ones(1)), True),
    "err_float": (lambda L: _x(L).new(5.0), True),
    "err_bool": (lambda L: _x(L).new(True), True),
    "err_numpy_scalar": (lambda L: _x(L).new(np.float64(2.0)), True),
    "err_none": (lambda L: _x(L).new(None), True),
    "err_str": (lambda L: _x(L).new("ab"), True),
    "err_size_float": (lambda L: _x(L).new(2, 3.0), True),
    "err_negative": (lambda L: _x(L).new(-1), True),
    "err_dtype_kw": (lambda L: _x(L).new(2, dtype=L.float32), True),
    "err_requires_grad_kw": (lambda L: _x(L).new([1, 2], requires_grad=True), True),
    "err_device_type": (lambda L: _x(L).new(2, device="cuda"), True),
    "err_tensor_device": (lambda L: _x(L).new(_x(L), device="cpu"), True),
}


@pytest.mark.parametrize("name", list(NEW_CASES))
def test_tensor_new(name):
    f, values = NEW_CASES[name]
    assert_same(f, values)


def test_tensor_new_alias_shares_storage_and_grad():
    for L in (torch, mg):
        x = L.arange(3.0, requires_grad=True)
        base = x * 1
        a = base.new(base)
        assert a._base is base and type(a.grad_fn).__name__ == "AliasBackward0"
        with L.no_grad():
            a[0] = 7
        assert base[0].item() == 7 and a._version == base._version
        a.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_tensor_new_keeps_an_emulated_cuda_device():
    y = mg.ones(2, device="cuda").new(3)
    assert str(y.device) == "cuda:0" and y.dtype is mg.float32
    assert str(mg.ones(2, device="cuda").new([1], device="cuda:0").device) == "cuda:0"
