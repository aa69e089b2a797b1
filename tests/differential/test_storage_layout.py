"""``Tensor.stride()``, ``storage_offset()``, ``data_ptr()``, ``untyped_storage().nbytes()``
against PyTorch for the views both libraries make, and ``minigrad.tensor`` / ``as_tensor`` of a
real ``torch.Tensor``."""
from __future__ import annotations

import warnings

import pytest
import torch

import minigrad as mg

VIEWS = {
    "contiguous": lambda L, x: x,
    "t": lambda L, x: x.t(),
    "slice": lambda L, x: x[1:, 1:],
    "step": lambda L, x: x[:, ::2],
    "row": lambda L, x: x[2],
    "expand": lambda L, x: x[:, :1].expand(3, 4),
    "view": lambda L, x: x.view(2, 6),
    "unsqueeze": lambda L, x: x.unsqueeze(1),
    "permute3d": lambda L, x: x.view(3, 2, 2).permute(2, 0, 1),
    "scalar": lambda L, x: x[1, 2],
}


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", list(VIEWS))
def test_layout_matches_torch(case, dtype):
    xt = torch.arange(12.0, dtype=getattr(torch, dtype)).reshape(3, 4)
    xm = mg.arange(12.0, dtype=getattr(mg, dtype)).reshape(3, 4)
    vt, vm = VIEWS[case](torch, xt), VIEWS[case](mg, xm)
    assert vm.stride() == vt.stride()
    assert vm.storage_offset() == vt.storage_offset()
    assert vm.untyped_storage().nbytes() == vt.untyped_storage().nbytes()
    assert vm.data_ptr() - xm.data_ptr() == vt.data_ptr() - xt.data_ptr()
    for d in range(-vt.dim(), vt.dim()):
        assert vm.stride(d) == vt.stride(d)


def test_stride_errors_match_torch():
    for dims, d in ((2, 2), (0, 0), (0, -1)):
        t, m = torch.ones((2,) * dims), mg.ones((2,) * dims)
        with pytest.raises(IndexError) as te:
            t.stride(d)
        with pytest.raises(IndexError) as me:
            m.stride(d)
        assert str(me.value) == str(te.value)


def test_distinct_storages_have_distinct_pointers():
    a, b = mg.ones(3), mg.ones(3)
    assert a.data_ptr() != b.data_ptr()
    assert a.untyped_storage().data_ptr() == a.data_ptr()
    assert a[1:].untyped_storage().data_ptr() == a.data_ptr()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "bool"])
def test_tensor_and_as_tensor_convert_a_real_torch_tensor(dtype):
    t = torch.tensor([[1.5, -2.0], [0.0, 3.25]]).to(getattr(torch, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # a conversion, not a copy-construct warning
        m = mg.tensor(t)
    assert m.dtype is getattr(mg, dtype) and list(m.shape) == [2, 2]
    assert m.tolist() == t.tolist() and not m.requires_grad
    assert mg.tensor(t, dtype=mg.float64, requires_grad=True).requires_grad
    a = mg.as_tensor(t)
    assert a.dtype is getattr(mg, dtype) and a.tolist() == t.tolist()
    assert mg.as_tensor(t, dtype=mg.float64).dtype is mg.float64
    g = mg.tensor(torch.ones(2, requires_grad=True) * 2)   # non-leaf with grad: detached copy
    assert g.tolist() == [2.0, 2.0] and g.grad_fn is None


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (1, 0), (0, 0, 5)])
@pytest.mark.parametrize("make", ["empty", "zeros", "reshape", "slice"])
def test_empty_tensor_strides_match_torch(shape, make):
    """An empty tensor reports its sizes' contiguous strides (a dim of size 0 counted as 1), as
    PyTorch's, where NumPy gives zero strides."""
    def build(L):
        if make == "empty":
            return L.empty(shape)
        if make == "zeros":
            return L.zeros(shape, dtype=L.bfloat16)
        if make == "reshape":
            return L.ones(0).reshape(shape)
        return L.ones(tuple(n or 2 for n in shape))[tuple(slice(0, n) for n in shape)]
    t, m = build(torch), build(mg)
    assert m.stride() == t.stride()
    assert m.is_contiguous() and t.is_contiguous()
