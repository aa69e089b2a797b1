"""Small torch-level helpers against PyTorch 2.13: broadcast_shapes, is_floating_point,
is_nonzero, can_cast, argwhere, atleast_1d/2d/3d, hstack/vstack/row_stack/dstack/column_stack,
hsplit/vsplit/dsplit, frombuffer."""
import array
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

A = np.arange(24.0).reshape(2, 3, 4)


def same(a, b):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, mg.Tensor) and str(a.dtype).split(".")[-1] == \
            str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(b, (tuple, list)):
        assert type(a) is type(b) or (isinstance(a, tuple) and isinstance(b, tuple))
        assert len(a) == len(b)
        for p, q in zip(a, b):
            same(p, q)
    else:
        assert a == b and type(a) is type(b) or tuple(a) == tuple(b)


def run(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib)
        except Exception as e:  # noqa: BLE001
            return ("error", type(e).__name__, str(e).replace("minigrad", "torch"))


CASES = [
    lambda t: t.broadcast_shapes((2, 1), (3, 1, 4), 4),
    lambda t: t.broadcast_shapes(),
    lambda t: t.broadcast_shapes((2, 3), (4, 3)),
    lambda t: t.broadcast_shapes((-1,)),
    lambda t: t.is_floating_point(t.ones(2)),
    lambda t: t.is_floating_point(t.ones(2, dtype=t.int64)),
    lambda t: t.is_floating_point(3),
    lambda t: t.is_nonzero(t.tensor([0.5])),
    lambda t: t.is_nonzero(t.tensor([])),
    lambda t: t.is_nonzero(t.tensor([1, 2])),
    lambda t: [t.can_cast(a, b) for a in (t.float32, t.int32, t.bool, t.bfloat16)
               for b in (t.float16, t.int8, t.bool, t.uint8)],
    lambda t: t.argwhere(t.tensor([[0, 1], [2, 0]])),
    lambda t: t.atleast_1d(t.tensor(1.0)),
    lambda t: t.atleast_1d(t.tensor(1.0), t.ones(2)),
    lambda t: t.atleast_2d([t.tensor(1.0), t.ones(3)]),
    lambda t: t.atleast_3d(t.tensor(1.0), t.ones(3), t.ones(2, 3), t.ones(1, 2, 3)),
    lambda t: t.hstack([t.ones(2), t.zeros(3)]),
    lambda t: t.hstack([t.tensor(A), t.tensor(A)]),
    lambda t: t.hstack([]),
    lambda t: t.vstack([t.ones(3), t.zeros(2, 3)]),
    lambda t: t.row_stack([t.ones(3), t.zeros(3)]),
    lambda t: t.dstack([t.ones(3), t.zeros(3)]),
    lambda t: t.column_stack([t.ones(2), t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.zeros(2)]),
    lambda t: t.hsplit(t.tensor(A), 3),
    lambda t: t.hsplit(t.arange(6), [1, 4]),
    lambda t: t.vsplit(t.tensor(A), [1]),
    lambda t: t.dsplit(t.tensor(A), 2),
    lambda t: t.hsplit(t.tensor(1.0), 2),
    lambda t: t.hsplit(t.ones(3, 5), 2),
    lambda t: t.vsplit(t.ones(3), 2),
    lambda t: t.dsplit(t.ones(3, 2), [1]),
    lambda t: t.frombuffer(bytearray(np.arange(4, dtype=np.float32).tobytes()), dtype=t.float32),
    lambda t: t.frombuffer(array.array("i", [1, 2, 3, 4]), dtype=t.int32, count=2, offset=4),
    lambda t: t.frombuffer(b"", dtype=t.float32),
    lambda t: t.frombuffer(bytearray(8), dtype=t.float32, offset=9),
    lambda t: t.frombuffer(bytearray(8), dtype=t.float32, count=3),
    lambda t: t.frombuffer(bytearray(7), dtype=t.float32),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_torch(case):
    a, b = run(CASES[case], mg), run(CASES[case], torch)
    if isinstance(b, tuple) and b and b[0] == "error":
        assert a == b
    else:
        same(a, b)


def test_stacks_are_differentiable_and_frombuffer_shares_memory():
    x = mg.ones(2, 3, requires_grad=True)
    (mg.hstack([x, x]) * mg.arange(12.0).reshape(2, 6)).sum().backward()
    xt = torch.ones(2, 3, requires_grad=True)
    (torch.hstack([xt, xt]) * torch.arange(12.0).reshape(2, 6)).sum().backward()
    same(x.grad, xt.grad)
    buf = bytearray(8)
    t = mg.frombuffer(buf, dtype=mg.int32)
    buf[0] = 7
    assert t.tolist() == [7, 0]
