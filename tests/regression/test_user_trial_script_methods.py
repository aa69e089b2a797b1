"""Tensor methods and torch-level aliases that public scripts call and minigrad lacked (a new
user's trial, session 21): ``x.bmm``, ``x.dot``, ``x.mv``, ``x.inner``/``torch.inner``,
``x.byte()``/``char()``/``short()``, ``x.argwhere``, ``x.cov``/``x.corrcoef``,
``x.hsplit``/``vsplit``/``dsplit``, ``fliplr``/``flipud``, ``torch.concat``/``concatenate``,
``torch.tril_indices``/``triu_indices``, ``torch.cartesian_prod``, ``torch.is_complex``.
Each is checked against torch: values, dtype, shape, errors and the node name."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

from ._oracle import assert_same_as_torch

# small integers: every product and sum is exact, so fp32 summation order cannot show
_A = np.array([3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3, 2, -3, 8, 4, -6, 2, 6, 4],
              dtype=np.float32).reshape(2, 3, 4)


def _t(lib, a=_A):
    return lib.tensor(a)


CASES = {
    "bmm": lambda T: _t(T).bmm(_t(T).transpose(1, 2)),
    "bmm_2d_error": lambda T: _t(T)[0].bmm(_t(T)[0]),
    "mv": lambda T: _t(T)[0].mv(_t(T)[1, 0]),
    "mv_size_error": lambda T: _t(T)[0].mv(_t(T)[1, :, 0]),
    "dot": lambda T: _t(T)[0, 0].dot(_t(T)[1, 2]),
    "dot_dtype_error": lambda T: _t(T)[0, 0].dot(_t(T)[1, 2].double()),
    "inner": lambda T: _t(T).inner(_t(T)[1]),
    "inner_0d": lambda T: T.inner(_t(T)[0, 0, 1], _t(T)[0]),
    "inner_size_error": lambda T: T.inner(_t(T)[0], _t(T)[0, :, :2]),
    "byte": lambda T: (_t(T) * 20).byte(),
    "char": lambda T: (_t(T) * 10).char(),
    "short": lambda T: (_t(T) * 1000).short(),
    "argwhere": lambda T: (_t(T) > 0).argwhere(),
    "cov": lambda T: _t(T)[0].cov(correction=0),
    # rows that are exactly (anti)correlated: fp32 corrcoef is not bit-exact in general (its
    # ``mm`` sums in MKL's order; tests/specs/scans.py allows 8 ulp)
    "corrcoef": lambda T: T.tensor([[1., 2., 3., 4.], [2., 4., 6., 8.], [4., 3., 2., 1.]]).corrcoef(),
    "hsplit": lambda T: T.stack(_t(T).hsplit([1])[1:] + _t(T).hsplit([2])[:1], 0),
    "vsplit": lambda T: T.stack(_t(T).vsplit(2)),
    "dsplit": lambda T: T.stack(_t(T).dsplit(2)),
    "fliplr": lambda T: _t(T).fliplr(),
    "fliplr_1d_error": lambda T: T.fliplr(_t(T)[0, 0]),
    "flipud": lambda T: T.flipud(_t(T)[0]),
    "flipud_0d_error": lambda T: _t(T)[0, 0, 0].flipud(),
    "concat": lambda T: T.concat([_t(T), _t(T)[:1]], dim=0),
    "concatenate": lambda T: T.concatenate((_t(T), _t(T)[:, :1]), axis=1),
    "tril_indices": lambda T: T.tril_indices(3, 4, 1),
    "tril_indices_int32_neg_offset": lambda T: T.tril_indices(4, 3, -1, dtype=T.int32),
    "tril_indices_empty": lambda T: T.tril_indices(0, 3),
    "tril_indices_all": lambda T: T.tril_indices(3, 3, 100),
    "triu_indices": lambda T: T.triu_indices(4, 3, -1),
    "triu_indices_none": lambda T: T.triu_indices(3, 3, 10),
    "tril_indices_negative_error": lambda T: T.tril_indices(-1, 3),
    "triu_indices_col_error": lambda T: T.triu_indices(3, -2),
    "tril_indices_float_error": lambda T: T.tril_indices(3, 3, dtype=T.float32),
    "triu_indices_int16_error": lambda T: T.triu_indices(3, 3, dtype=T.int16),
    "tril_indices_row_type_error": lambda T: T.tril_indices(3.0, 3),
    "cartesian_prod": lambda T: T.cartesian_prod(_t(T)[0, 0], _t(T)[1, 1, :3], _t(T)[0, 2, :2]),
    "cartesian_prod_one": lambda T: T.cartesian_prod(_t(T)[0, 0]),
    "cartesian_prod_2d_error": lambda T: T.cartesian_prod(_t(T)[0]),
    "cartesian_prod_0d_error": lambda T: T.cartesian_prod(_t(T)[0, 0, 0], _t(T)[0, 0]),
    "cartesian_prod_dtype_error": lambda T: T.cartesian_prod(_t(T)[0, 0], T.ones(2).long()),
    "cartesian_prod_empty_error": lambda T: T.cartesian_prod(),
    "is_complex": lambda T: T.tensor(T.is_complex(_t(T))),
    "is_complex_type_error": lambda T: T.is_complex([1.0]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_same_as_torch(name):
    assert_same_as_torch(CASES[name], torch, mg)


@pytest.mark.parametrize("name", ["bmm", "mv", "dot", "inner", "fliplr", "concat",
                                  "cartesian_prod"])
def test_node_names_match_torch(name):
    # one autograd-tracked operand per method, as a script's parameter would be
    makers = {
        "bmm": lambda T, x: x.bmm(x.transpose(1, 2)),
        "mv": lambda T, x: x[0].mv(x[1, 0]),
        "dot": lambda T, x: x[0, 0].dot(x[1, 2]),
        "inner": lambda T, x: x.inner(x[1]),
        "fliplr": lambda T, x: x.fliplr(),
        "concat": lambda T, x: T.concat([x, x[:1]]),
        "cartesian_prod": lambda T, x: T.cartesian_prod(x[0, 0], x[1, 1] * 2),
    }
    names = []
    for T in (torch, mg):
        x = _t(T).requires_grad_()
        y = makers[name](T, x)
        y.sum().backward()
        names.append((type(y.grad_fn).__name__, x.grad.numpy().tolist()))
    assert names[0] == names[1]
