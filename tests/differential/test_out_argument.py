"""PyTorch's ``out=`` keyword on torch-level functions: values, dtype rules, resizing, errors and
warnings, side by side with torch 2.13."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad._functional.out_argument import OUT_FUNCTIONS

torch = pytest.importorskip("torch")

A = np.array([[1.5, -2.5, 3.25], [0.5, 4.0, -1.0]], np.float32)
V = np.array([1.5, 2.5, 3.5], np.float32)


def _both(np_arr, dtype="float32"):
    return mg.tensor(np_arr).to(getattr(mg, dtype)), torch.tensor(np_arr).to(getattr(torch, dtype))


def _outcome(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn()
        except (RuntimeError, TypeError) as e:
            return ("error", type(e).__name__, str(e).split("\n")[0]), []
    msgs = [re.sub(r" \(Triggered internally.*", "", str(x.message)) for x in w]
    return r, msgs


CASES = {   # name -> (program of (lib, a, v), out shape, out dtype)
    "add": (lambda L, a, v: L.add(a, a, alpha=2, out=L.empty(2, 3)), None),
    "add_resized": (lambda L, a, v: L.add(v, v, out=L.empty(2)), None),
    "add_to_double": (lambda L, a, v: L.add(v, v, out=L.empty(3, dtype=L.float64)), None),
    "add_to_half": (lambda L, a, v: L.add(v, v, out=L.empty(3, dtype=L.float16)), None),
    "add_to_long": (lambda L, a, v: L.add(v, v, out=L.empty(3, dtype=L.int64)), None),
    "exp": (lambda L, a, v: L.exp(a, out=L.empty(0)), None),
    "eq_to_float": (lambda L, a, v: L.eq(v, v, out=L.empty(3)), None),
    "sum_to_long": (lambda L, a, v: L.sum(v, 0, out=L.empty((), dtype=L.int64)), None),
    "mean_to_long": (lambda L, a, v: L.mean(v, 0, out=L.empty((), dtype=L.int64)), None),
    "cumsum_to_double": (lambda L, a, v: L.cumsum(v, 0, out=L.empty(3, dtype=L.float64)),
                         None),
    "mm": (lambda L, a, v: L.mm(a, a.t(), out=L.empty(2, 2)), None),
    "mm_double": (lambda L, a, v: L.mm(a, a.t(), out=L.empty(2, 2, dtype=L.float64)), None),
    "dot_double": (lambda L, a, v: L.dot(v, v, out=L.empty((), dtype=L.float64)), None),
    "amax_double": (lambda L, a, v: L.amax(v, 0, out=L.empty((), dtype=L.float64)), None),
    "matmul": (lambda L, a, v: L.matmul(a, v, out=L.empty(5)), None),
    "cat": (lambda L, a, v: L.cat([v, v], out=L.empty(6, dtype=L.float64)), None),
    "stack": (lambda L, a, v: L.stack([v, v], out=L.empty(0)), None),
    "clamp": (lambda L, a, v: L.clamp(a, -1, 1, out=L.empty(2, 3)), None),
    "where": (lambda L, a, v: L.where(v > 2, v, v * 2, out=L.empty(3)), None),
    "softmax_double": (lambda L, a, v: L.softmax(v, 0, out=L.empty(3, dtype=L.float64)), None),
    "overlap": (lambda L, a, v: L.add(v, v, out=v[:2]), None),
    "alias": (lambda L, a, v: L.mul(v, 2, out=v), None),
    "not_a_tensor": (lambda L, a, v: L.add(v, v, out="x"), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_out_matches_torch(case):
    prog = CASES[case][0]
    (a, ta), (v, tv) = _both(A), _both(V)
    ours, our_w = _outcome(lambda: prog(mg, a, v))
    theirs, their_w = _outcome(lambda: prog(torch, ta, tv))
    if isinstance(theirs, tuple) and theirs[0] == "error":
        assert ours[:2] == theirs[:2], (ours, theirs)
        if case != "not_a_tensor":          # (torch's parser lists every signature)
            assert ours[2] == theirs[2], (ours, theirs)
        return
    assert not (isinstance(ours, tuple) and ours[0] == "error"), ours
    assert our_w == their_w
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=2e-7, atol=1e-7)


def test_out_is_returned_written_in_place_and_versioned():
    v = mg.tensor(V)
    out = mg.zeros(3)
    view = out[:]
    before = out._version
    assert mg.sub(v, 1, out=out) is out
    assert out._version == before + 1 and np.array_equal(view.numpy(), V - 1)


def test_out_refuses_autograd_like_torch():
    for L in (mg, torch):
        w = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"^mul\(\): functions with out=\.\.\. arguments "
                                               "don't support automatic differentiation"):
            L.mul(w, 2, out=L.empty(3))
        with L.no_grad():
            assert L.mul(w, 2, out=L.empty(3)).tolist() == [2.0, 2.0, 2.0]


def test_values_and_indices_outs():
    (a, ta) = _both(A)
    for name, args in (("max", (1,)), ("sort", (1,)), ("topk", (2,)), ("kthvalue", (2,))):
        mine = (mg.empty(0), mg.empty(0, dtype=mg.int64))
        theirs = (torch.empty(0), torch.empty(0, dtype=torch.int64))
        r = getattr(mg, name)(a, *args, out=mine)
        t = getattr(torch, name)(ta, *args, out=theirs)
        assert r[0] is mine[0] and r[1] is mine[1]
        for x, y in zip(mine, theirs):
            assert np.array_equal(x.numpy(), y.numpy()), name


def test_every_out_function_takes_out_in_torch_too():
    class Bad:
        pass
    t = torch.ones(3, 3)
    calls = [(t,), (t, t), (t, 0), (t, t, t), (t, 0, 0), ([t, t],), (t, 3),
             (t, torch.tensor([0])), (t, 0, torch.tensor([[0]])),
             (t, 0, torch.tensor([0]), t[:1]), (t, 0, torch.tensor([[0]]), t[:1], "sum")]
    for name in sorted(OUT_FUNCTIONS):
        assert hasattr(mg, name), name
        ok = False
        for args in calls:
            try:
                getattr(torch, name)(*args, out=Bad())
            except TypeError as e:
                m = str(e)
                if "'out'" in m and "unexpected" not in m or re.search(r"Tensors? out\b", m):
                    ok = True
                    break
            except Exception:
                pass
        assert ok, f"torch.{name} takes no out= here"


def _same_outcome(prog):
    ours, our_w = _outcome(lambda: prog(mg))
    theirs, their_w = _outcome(lambda: prog(torch))
    if isinstance(theirs, tuple) and theirs[0] == "error":
        assert ours == theirs
        return
    assert not (isinstance(ours, tuple) and ours[0] == "error"), ours
    assert our_w == their_w
    for x, y in zip(ours if isinstance(ours, tuple) else [ours],
                    theirs if isinstance(theirs, tuple) else [theirs]):
        assert x.dtype.name == str(y.dtype).split(".")[1] and tuple(x.shape) == tuple(y.shape)
        assert np.array_equal(x.float().numpy(), y.float().numpy())


_X = [[1.0, 5.0], [3.0, 2.0]]
_PAIR_CALLS = {"max": (1,), "min": (1,), "median": (1,), "kthvalue": (1, 1), "sort": (1,),
               "topk": (1, 1)}


@pytest.mark.parametrize("name", sorted(_PAIR_CALLS))
@pytest.mark.parametrize("dts", [("float32", "float32"), ("float32", "int32"),
                                 ("float64", "int64"), ("float64", "float32"),
                                 ("float32", "int64")])
def test_values_and_indices_outs_want_their_dtypes(name, dts):
    _same_outcome(lambda L: getattr(L, name)(
        L.tensor(_X), *_PAIR_CALLS[name],
        out=tuple(L.empty(0, dtype=getattr(L, d)) for d in dts)))


@pytest.mark.parametrize("prog", [
    lambda L: L.sum(L.tensor(_X), 1, dtype=L.float64, out=L.empty(2)),
    lambda L: L.cumsum(L.tensor(_X), 1, dtype=L.float64, out=L.empty(0)),
    lambda L: L.cumprod(L.tensor(_X), 1, dtype=L.float64, out=L.empty(0, dtype=L.float64)),
    lambda L: L.cat([L.tensor(_X)], out=L.empty(0, dtype=L.int32)),
    lambda L: L.stack([L.tensor(_X)], out=L.empty(0, dtype=L.bool)),
    lambda L: L.cat([L.tensor(_X).long()], out=L.empty(0)),
], ids=["sum_dtype_not_out", "cumsum_dtype_not_out", "cumprod_dtype_out", "cat_to_int",
        "stack_to_bool", "cat_long_to_float"])
def test_dtype_argument_and_cat_rules(prog):
    _same_outcome(prog)


_FACTORIES = {
    "zeros": lambda L, o: L.zeros(2, 3, out=o),
    "ones_size_kw": lambda L, o: L.ones(size=(3,), out=o),
    "full": lambda L, o: L.full((2, 3), 2.5, out=o),
    "empty_shape": lambda L, o: L.empty(2, 3, out=o).shape,
    "arange": lambda L, o: L.arange(6, out=o),
    "arange_float": lambda L, o: L.arange(0.5, 5, out=o),
    "randn": lambda L, o: (L.manual_seed(0), L.randn(2, 3, out=o))[1],
    "rand": lambda L, o: (L.manual_seed(0), L.rand(5, out=o))[1],
    "eye": lambda L, o: L.eye(2, 3, out=o),
    "linspace": lambda L, o: L.linspace(-1, 2, 7, out=o),
    "logspace": lambda L, o: L.logspace(-1, 2, 7, base=2.0, out=o),
    "randint": lambda L, o: (L.manual_seed(0), L.randint(1, 9, (5,), out=o))[1],
    "randperm": lambda L, o: (L.manual_seed(0), L.randperm(6, out=o))[1],
    "normal": lambda L, o: (L.manual_seed(0), L.normal(1.0, 2.0, (2, 2), out=o))[1],
    "normal_tensor_float": lambda L, o: (L.manual_seed(0),
                                         L.normal(L.arange(3.0), 2.0, out=o))[1],
    "normal_float_tensor": lambda L, o: (L.manual_seed(0),
                                         L.normal(0.5, L.ones(2, 2), out=o))[1],
    "normal_tensor_tensor": lambda L, o: (L.manual_seed(0),
                                          L.normal(L.zeros(4), L.ones(4), out=o))[1],
}
_INTEGER_FACTORIES = ("randint", "randperm")     # rand*/normal* on int64: not implemented


@pytest.mark.parametrize("name", sorted(_FACTORIES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64"])
@pytest.mark.parametrize("shape", [(0,), (4,), (2, 3)])
def test_factories_write_into_out(name, dtype, shape):
    # the values are made in out's dtype and written into it (it was ignored: a fresh tensor
    # came back, out untouched); arange keeps out's shape when the count fits, else warns
    if dtype == "int64" and name.startswith(("rand", "normal")) \
            and name not in _INTEGER_FACTORIES:
        return          # (PyTorch: not implemented for Long; test_factory_out_errors)
    outs = {}

    def prog(L):
        o = outs[L.__name__] = L.zeros(*shape, dtype=getattr(L, dtype))
        r = _FACTORIES[name](L, o)
        return o if name == "empty_shape" else (r, o)
    ours, our_w = _outcome(lambda: prog(mg))
    theirs, their_w = _outcome(lambda: prog(torch))
    assert our_w == their_w
    if theirs[0] == "error":        # normal(mean, std=float): out's shape broadcasts with mean's
        assert ours == theirs and name == "normal_tensor_float"
        return
    if name == "empty_shape":
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype.name == dtype
        return
    assert ours[0] is ours[1] and theirs[0] is theirs[1]
    x, y = ours[1], theirs[1]
    assert x.dtype.name == str(y.dtype).split(".")[1] and tuple(x.shape) == tuple(y.shape)
    assert np.array_equal(x.float().numpy(), y.float().numpy())


@pytest.mark.parametrize("prog", [
    lambda L: L.zeros(2, dtype=L.float64, out=L.empty(2)),
    lambda L: L.arange(3, dtype=L.int64, out=L.empty(3)),
    lambda L: L.ones(2, out=L.zeros(2, requires_grad=True)),
    lambda L: L.eye(3, out=L.zeros(3, 3, requires_grad=True)),
    lambda L: L.linspace(0, 1, 5, dtype=L.float32, out=L.empty(2, dtype=L.int64)),
    lambda L: L.randperm(5, out=L.empty(3, dtype=L.bool)),
    lambda L: L.normal(0.0, 1.0, (4,), out=L.empty(4, dtype=L.int64)),
    lambda L: L.normal(L.zeros(4), L.ones(4), out=L.empty(4, dtype=L.int64)),
    lambda L: L.normal(L.zeros(4), L.ones(4), out=L.empty(4, requires_grad=True)),
])
def test_factory_out_errors(prog):
    ours, _ = _outcome(lambda: prog(mg))
    theirs, _ = _outcome(lambda: prog(torch))
    assert ours == theirs and theirs[0] == "error"


@pytest.mark.parametrize("prog", [
    lambda L: L.arange(3, dtype=L.bool),
    lambda L: L.arange(0, 1, 0.5, dtype=L.bool),
    lambda L: L.linspace(0, 1, 3, dtype=L.bool),
    lambda L: L.randperm(3, dtype=L.bool),
    lambda L: L.randint(3, (2,), dtype=L.bool),
    lambda L: L.randint(-1, 2, (2,), dtype=L.bool),
    lambda L: L.randint(1000, (2,), dtype=L.int8),
    lambda L: L.randint(-1000, 3, (2,), dtype=L.int8),
    lambda L: L.randint(-3, 3, (2,), dtype=L.uint8),
    lambda L: L.randint(40000, (2,), dtype=L.int16),
    lambda L: L.randint(2 ** 31 + 1, (2,), dtype=L.int32),
    lambda L: L.randint(70000, (2,), dtype=L.float16),
], ids=["arange", "arange_float", "linspace", "randperm", "randint_bool_high", "randint_bool_low",
        "randint_int8_high", "randint_int8_low", "randint_uint8_low", "randint_int16",
        "randint_int32", "randint_half_overflow"])
def test_factory_dtype_errors(prog):
    # kernels PyTorch does not have for the dtype, and random_'s from/to bounds
    ours, _ = _outcome(lambda: prog(mg))
    theirs, _ = _outcome(lambda: prog(torch))
    assert ours == theirs and theirs[0] == "error"


@pytest.mark.parametrize("prog", [
    lambda L: L.randint(2, (4,), dtype=L.bool),
    lambda L: L.randint(256, (3,), dtype=L.uint8),
    lambda L: L.randint(-128, 128, (3,), dtype=L.int8),
    lambda L: L.randint(1000, (3,), dtype=L.float16),
])
def test_randint_bounds_within_dtype(prog):
    # values in the dtype's range are drawn
    def seeded(L):
        L.manual_seed(0)
        r = prog(L)
        return repr(r.dtype).split(".")[-1], r.double().tolist()
    ours, our_w = _outcome(lambda: seeded(mg))
    theirs, their_w = _outcome(lambda: seeded(torch))
    assert our_w == their_w == []
    assert ours == theirs


@pytest.mark.parametrize("prog", [
    lambda L: L.randint(3000, (3,), dtype=L.float16),          # beyond +-2**11: a warning
    lambda L: L.randint(-3000, 3, (3,), dtype=L.float16),
    lambda L: L.randint(2 ** 40, (3,), dtype=L.bfloat16),
    lambda L: L.randint(1000, (8,), dtype=L.bfloat16),         # draws below 996
    lambda L: L.randint(2 ** 20, 2 ** 20 + 100, (3,), dtype=L.bfloat16),
    lambda L: L.randint(2 ** 24 + 10, (3,), dtype=L.float32),
])
def test_randint_precision_warning(prog):
    # PyTorch's warning for a float dtype's range beyond the integers it holds exactly, and the
    # same draws (ATen's update_from/update_to move the bounds inwards first)
    def seeded(L):
        L.manual_seed(0)
        return prog(L).double().tolist()
    ours, our_w = _outcome(lambda: seeded(mg))
    theirs, their_w = _outcome(lambda: seeded(torch))
    assert their_w and our_w == their_w
    assert ours == theirs
