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
