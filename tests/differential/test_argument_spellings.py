"""Argument spellings PyTorch's parser accepts, against PyTorch 2.13: NumPy's ``axis=`` /
``keepdims=`` for ``dim=`` / ``keepdim=``, the keyword forms of varargs shapes
(``reshape(shape=)``, ``view(size=)``, ``permute(dims=)``, ``expand(size=)``...),
``randint(low=, high=, size=)``, and ``type_as`` following the other tensor's device."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

X = np.arange(1, 13, dtype=np.float32).reshape(3, 4) / 7


def _same(a, b, ulp=0):
    """Equal results: bit for bit, or within ``ulp`` units in the last place (the fp32
    transcendentals: softmax, logsumexp, see the README's numerics contract)."""
    if isinstance(a, tuple):                   # (values, indices) results
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v, ulp)
        return
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split(".")[-1] == \
        str(b.dtype).split(".")[-1]
    an, bn = a.numpy(), b.numpy()
    if ulp == 0 or an.dtype != np.float32:
        assert an.tobytes() == bn.tobytes()
    else:
        gap = np.abs(an.view(np.int32).astype(np.int64) - bn.view(np.int32).astype(np.int64))
        assert gap.max(initial=0) <= ulp


@pytest.mark.parametrize("call", [
    lambda L, x: x.sum(axis=0), lambda L, x: x.sum(axis=1, keepdims=True),
    lambda L, x: x.mean(axis=0), lambda L, x: x.mean(dim=0, keepdims=True),
    lambda L, x: x.max(axis=0), lambda L, x: x.min(axis=1, keepdims=True),
    lambda L, x: x.argmax(axis=1), lambda L, x: x.argmin(axis=0),
    lambda L, x: x.std(axis=0), lambda L, x: x.var(axis=1, keepdims=True),
    lambda L, x: x.prod(axis=1), lambda L, x: x.cumsum(axis=1),
    lambda L, x: x.softmax(axis=1), lambda L, x: x.log_softmax(axis=0),
    lambda L, x: x.amax(axis=0), lambda L, x: x.logsumexp(axis=1),
    lambda L, x: x.sort(axis=1, descending=True), lambda L, x: x.median(axis=0),
    lambda L, x: x.count_nonzero(axis=0), lambda L, x: x.diff(axis=1),
    lambda L, x: (x > 0.5).any(axis=1), lambda L, x: (x > 0.1).all(axis=0),
    lambda L, x: L.sum(x, axis=0), lambda L, x: L.mean(x, axis=1, keepdims=True),
    lambda L, x: L.cat([x, x], axis=1), lambda L, x: L.stack([x, x], axis=0),
    lambda L, x: L.argmax(x, axis=0), lambda L, x: L.cumsum(x, axis=0),
])
def test_numpy_names_as_torch(call):
    _same(call(mg, mg.tensor(X)), call(torch, torch.tensor(X)), ulp=2)


def test_numpy_names_both_spellings_raise():
    with pytest.raises(TypeError):
        torch.tensor(X).sum(axis=0, dim=0)
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        mg.tensor(X).sum(axis=0, dim=0)


def test_numpy_names_keep_docs_and_signature():
    import inspect
    assert "torch.Tensor.sum" in mg.Tensor.sum.__doc__
    assert "dim" in inspect.signature(mg.Tensor.sum).parameters
    assert mg.sum.__name__ == "sum"


@pytest.mark.parametrize("name,kw", [
    ("reshape", {"shape": (4, 3)}), ("view", {"size": (12,)}), ("permute", {"dims": (1, 0)}),
    ("expand", {"size": (2, 3, 4)}), ("repeat", {"repeats": (1, 2)}), ("tile", {"dims": (2, 1)}),
    ("flip", {"dims": (0,)}), ("new_zeros", {"size": (2,)}), ("new_ones", {"size": (2, 1)}),
    ("new_empty", {"size": (0,)}), ("view", {"dtype": "int32"}),
])
def test_shape_keywords_as_torch(name, kw):
    def run(L):
        k = {n: getattr(L, v) if n == "dtype" else v for n, v in kw.items()}
        out = getattr(L.tensor(X), name)(**k)
        return out if name != "new_empty" else out.shape
    ours, theirs = run(mg), run(torch)
    if name == "new_empty":
        assert tuple(ours) == tuple(theirs)
    else:
        _same(ours, theirs)


def test_shape_keyword_twice_raises():
    with pytest.raises(TypeError, match="multiple values"):
        mg.tensor(X).view(12, size=(12,))
    with pytest.raises(TypeError, match="unexpected keyword argument 'shape'"):
        mg.tensor(X).view(shape=(12,))
    with pytest.raises(TypeError):
        torch.tensor(X).view(shape=(12,))


@pytest.mark.parametrize("args,kw", [((), {"low": 0, "high": 5, "size": (3,)}),
                                     ((5,), {"size": (3,)}), ((2, 9), {"size": (2, 2)}),
                                     ((), {"high": 5, "size": (4,)}), ((0, 5, (3,)), {}),
                                     ((3,), {"high": 7, "size": (3,)})])
def test_randint_keywords_as_torch(args, kw):
    mg.manual_seed(11)
    torch.manual_seed(11)
    assert mg.randint(*args, **kw).tolist() == torch.randint(*args, **kw).tolist()


def test_type_as_follows_device_and_dtype():
    cuda = mg.ones(2, dtype=mg.float16, device="cuda")
    a = mg.zeros(2).type_as(cuda)
    assert a.device.type == "cuda" and a.dtype == mg.float16
    b = mg.zeros(2, dtype=mg.long, device="cuda").type_as(mg.zeros(1))
    assert b.device.type == "cpu" and b.dtype == mg.float32
    c = mg.zeros(2)
    assert c.type_as(mg.ones(3)) is c is c.type(c.type())
    # torch, on its CPU: dtype follows as ours
    assert torch.zeros(2, dtype=torch.long).type_as(torch.ones(1)).dtype == torch.float32


@pytest.mark.parametrize("size", [lambda L: np.int64(12), lambda L: np.prod((3, 4)),
                                  lambda L: L.tensor(12), lambda L: -1])
def test_view_one_int_like_is_a_size(size):
    ours = mg.tensor(X).view(size(mg))
    theirs = torch.tensor(X).view(size(torch))
    _same(ours, theirs)
    assert mg.tensor(X).view(mg.int32).dtype == mg.int32
