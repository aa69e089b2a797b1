"""Every public factory is one dispatched op (so a mode sees every tensor a script creates), and
the factories without a catalogue spec agree with torch's."""
import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.dispatch import DispatchMode

CALLS = {
    "tensor": (lambda: mg.tensor([1.0, 2.0]), "tensor"),
    "zeros": (lambda: mg.zeros(2, 3), "zeros"),
    "ones": (lambda: mg.ones(2), "ones"),
    "full": (lambda: mg.full((2,), 3.0), "full"),
    "empty": (lambda: mg.empty(2, 2), "empty"),
    "zeros_like": (lambda: mg.zeros_like(mg.ones(2)), "zeros_like"),
    "ones_like": (lambda: mg.ones_like(mg.ones(2)), "ones_like"),
    "full_like": (lambda: mg.full_like(mg.ones(2), 7), "full_like"),
    "empty_like": (lambda: mg.empty_like(mg.ones(2)), "empty_like"),
    "arange": (lambda: mg.arange(5), "arange"),
    "eye": (lambda: mg.eye(3), "eye"),
    "linspace": (lambda: mg.linspace(0, 1, 5), "linspace"),
    "logspace": (lambda: mg.logspace(0, 1, 5), "logspace"),
    "tril_indices": (lambda: mg.tril_indices(3, 3), "tril_indices"),
    "triu_indices": (lambda: mg.triu_indices(3, 3), "triu_indices"),
    "randn": (lambda: mg.randn(3), "randn"),
    "rand": (lambda: mg.rand(3), "rand"),
    "randint": (lambda: mg.randint(0, 5, (3,)), "randint"),
    "randperm": (lambda: mg.randperm(4), "randperm"),
    "randn_like": (lambda: mg.randn_like(mg.ones(2)), "randn_like"),
    "rand_like": (lambda: mg.rand_like(mg.ones(2)), "rand_like"),
    "normal": (lambda: mg.normal(0.0, 1.0, (3,)), "normal.float_float"),
}


class _Record(DispatchMode):
    def __init__(self):
        self.ops = []

    def __minigrad_dispatch__(self, op, args, kwargs, call_next):
        self.ops.append(op)
        return call_next(args, kwargs)


def test_every_public_factory_is_covered_here():
    from minigrad._functional import factories
    # (the four that wrap existing memory, as PyTorch's do, and run no op)
    assert set(CALLS) == set(factories.__all__) - {"as_tensor", "asarray", "from_numpy",
                                                   "frombuffer"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_factory_is_seen_by_a_mode(name):
    fn, op = CALLS[name]
    with _Record() as r:
        fn()
    assert op in r.ops


@pytest.mark.parametrize("n,m", [(3, None), (2, 4), (4, 2), (0, 3)])
@pytest.mark.parametrize("dt", ["float32", "float16", "int64", "bool"])
def test_eye_matches_torch(n, m, dt):
    kw = {"dtype": getattr(mg, dt)}
    got = mg.eye(n, m, **kw) if m is not None else mg.eye(n, **kw)
    want = torch.eye(n, m, dtype=getattr(torch, dt)) if m is not None else \
        torch.eye(n, dtype=getattr(torch, dt))
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert np.array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("size", [(2, 3), (0,), (1, 0, 2)])
def test_empty_shape_and_dtype_match_torch(size):
    assert tuple(mg.empty(*size).shape) == tuple(torch.empty(*size).shape)
    assert mg.empty(*size, dtype=mg.int32).dtype is mg.int32
    x = mg.ones(2, 3, dtype=mg.float16)
    assert mg.empty_like(x).dtype is mg.float16 and tuple(mg.empty_like(x).shape) == (2, 3)


def test_randperm_argument_errors_match_torch():
    for bad in (2.0, mg.tensor([1.0, 2.0])):
        with pytest.raises(TypeError, match="argument 'n' .* must be int"):
            mg.randperm(bad)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        mg.randperm(-1)
    assert sorted(mg.randperm(mg.tensor(4)).tolist()) == [0, 1, 2, 3]
