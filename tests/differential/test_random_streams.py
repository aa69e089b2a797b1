"""PyTorch's random numbers: after ``manual_seed(s)`` every sampling op gives PyTorch CPU's
samples bit for bit (``minigrad.random``'s mt19937 and ``minigrad.ops._distributions``'s
kernels), for many seeds and sizes below, at and above 16 and not multiples of 16, and the
generator state moves between the two frameworks both ways."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

SEEDS = (0, 1, 42, 2 ** 40 + 7)
SIZES = (1, 5, 15, 16, 17, 40, 333)
FLOATS = ("float32", "float64", "float16", "bfloat16")


def _np(t):
    t = t.detach() if hasattr(t, "detach") else t
    if isinstance(t, torch.Tensor):
        return t.float().numpy() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy()
    return np.asarray(t.float().tolist() if t.dtype in (mg.float16, mg.bfloat16) else
                      t.tolist())


def _same(program, seeds=SEEDS):
    for s in seeds:
        torch.manual_seed(s)
        want = program(torch)
        mg.manual_seed(s)
        got = program(mg)
        want = want if isinstance(want, (list, tuple)) else [want]
        got = got if isinstance(got, (list, tuple)) else [got]
        for w, g in zip(want, got, strict=True):
            w, g = _np(w), _np(g)
            assert w.shape == g.shape and np.array_equal(w, g, equal_nan=True), \
                (s, np.flatnonzero(w != g)[:5], w.reshape(-1)[:5], g.reshape(-1)[:5])


@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_rand_and_fills_are_torchs(dtype):
    def program(L):
        dt = getattr(L, dtype)
        out = []
        for n in SIZES:
            out += [L.randn(n, dtype=dt), L.rand(n, dtype=dt)]
        out += [L.randn(3, 7, dtype=dt),                      # 21 elements: one block + tail
                L.empty(37, dtype=dt).normal_(1.5, 2.0), L.empty(3, dtype=dt).normal_(-1, 0.5),
                L.empty(50, dtype=dt).uniform_(-2.5, 7.25),
                L.empty(19, dtype=dt).exponential_(2.5),
                L.normal(L.arange(20.0).to(dt), 0.5), L.normal(2.0, L.arange(20.0).to(dt)),
                L.bernoulli(L.linspace(0, 1, 50).to(dt))]
        return out
    _same(program)


def test_integers_permutations_and_bernoulli_are_torchs():
    def program(L):
        out = [L.randint(0, 7, (30,)), L.randint(10, (5, 5)), L.randint(-5, 2 ** 40, (10,)),
               L.randperm(1), L.randperm(17), L.randperm(200), L.normal(3.0, 2.0, (5, 7))]
        for dt in ("int64", "int32", "uint8", "float32", "float16", "bfloat16", "bool"):
            out.append(L.empty(20, dtype=getattr(L, dt)).random_())
        out += [L.empty(20, dtype=L.int16).random_(3, 9),
                L.empty(100).bernoulli_(0.3), L.empty(100).bernoulli_(L.full((100,), 0.3)),
                L.empty(10).bernoulli_(L.full((10,), 0.3, dtype=L.float64)),
                L.bernoulli(L.empty(30), 0.25),
                L.multinomial(L.tensor([[0.1, 0.2, 0.7, 0.0], [1.0, 1, 1, 1]]), 10, True),
                L.multinomial(L.tensor([[0.1, 0.2, 0.7, 0.05], [1.0, 1, 1, 1]]), 3),
                L.multinomial(L.tensor([0.1, 0.2, 0.7]), 1)]
        return out
    _same(program)


def test_dropout_init_and_shuffling_are_torchs():
    def program(L):
        nn = L.nn
        lin, conv, emb = nn.Linear(7, 5), nn.Conv2d(3, 4, 3), nn.Embedding(10, 6)
        drop = nn.Dropout(0.5)(L.arange(40.0))
        ds = L.utils.data.TensorDataset(L.arange(50))
        batches = [b[0] for b in L.utils.data.DataLoader(ds, batch_size=16, shuffle=True)]
        return [lin.weight, lin.bias, conv.weight, conv.bias, emb.weight, drop,
                nn.functional.dropout(L.ones(6, 50, dtype=L.float16), 0.3),
                nn.init.trunc_normal_(L.empty(40, 30), std=0.02),
                nn.init.trunc_normal_(L.empty(20, 30), mean=0, std=1, a=2, b=3),
                nn.init.sparse_(L.empty(10, 6), 0.3),
                nn.init.xavier_normal_(L.empty(20, 30)),
                nn.init.kaiming_uniform_(L.empty(20, 30))] + batches
    _same(program, seeds=(0, 3))


def test_normal_cache_and_state_cross_both_frameworks():
    # fewer than 16 normals use normal_distribution<double>, whose second Box-Muller value
    # waits in the generator for the next call
    _same(lambda L: [L.randn(3), L.randn(1), L.randn(2), L.randn(17), L.randn(1)])
    torch.manual_seed(5)
    torch.randn(3)                                     # leaves a cached normal
    torch.randint(0, 9, (700,))                        # past one mt19937 regeneration
    state = torch.get_rng_state()
    mg.manual_seed(5)
    mg.randn(3)
    mg.randint(0, 9, (700,))
    mine = mg.get_rng_state()
    assert mine.dtype is mg.uint8 and np.array_equal(_np(mine), state.numpy())
    want = [torch.randn(5).numpy(), torch.rand(20).numpy()]
    mg.manual_seed(99)
    mg.set_rng_state(mg.tensor(state.numpy()))          # a torch state, carried over
    assert np.array_equal(_np(mg.randn(5)), want[0])
    torch.set_rng_state(torch.from_numpy(_np(mg.get_rng_state()).astype(np.uint8)))
    assert np.array_equal(torch.rand(20).numpy(), _np(mg.rand(20)))
    g = mg.Generator().manual_seed(7)
    assert mg.rand(4, generator=g).tolist() == torch.rand(
        4, generator=torch.Generator().manual_seed(7)).tolist()


def test_state_errors_are_torchs():
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        mg.set_rng_state(mg.zeros(10))
    with pytest.raises(RuntimeError, match="CPUGeneratorImplState of size 5056 but found the "
                                           "input RNG state size to be 10"):
        mg.set_rng_state(mg.zeros(10, dtype=mg.uint8))


_LAYOUT_PROGRAMS = {
    "uniform_ on a transposed view": lambda L: L.zeros(3, 4).t().uniform_(),
    "normal_ on a transposed view (serial path)": lambda L: L.zeros(30, 8).t().normal_(),
    "bernoulli_ on a transposed view": lambda L: L.zeros(3, 5).t().bernoulli_(0.3),
    "uniform_ on a sliced transposed view": lambda L: L.zeros(4, 6).t()[::2].uniform_(),
    "randn_like of a transposed tensor": lambda L: L.randn_like(L.ones(30, 40).t()),
    "randn_like of a sliced transposed tensor": lambda L: L.randn_like(L.ones(40, 6).t()[::2]),
    "randn_like of an expanded tensor": lambda L: L.randn_like(L.ones(1, 40).expand(3, 40)),
    "rand_like of a transposed tensor": lambda L: L.rand_like(L.ones(3, 4).t()),
    "dropout of a transposed tensor": lambda L: L.nn.functional.dropout(L.ones(3, 4).t(), 0.5),
    "dropout of a permuted tensor": lambda L: L.nn.functional.dropout(
        L.ones(2, 3, 4).permute(1, 0, 2), 0.5),
    "dropout of an expanded tensor": lambda L: L.nn.functional.dropout(
        L.ones(1, 40).expand(3, 40), 0.5),
}


@pytest.mark.parametrize("name", list(_LAYOUT_PROGRAMS))
def test_fills_follow_the_memory_order_as_torch(name):
    """PyTorch writes random numbers in memory order (and ``empty_like`` keeps a tensor's dim
    order), so a transposed target gets them in transposed places."""
    fn = _LAYOUT_PROGRAMS[name]
    torch.manual_seed(0)
    want = fn(torch).detach().numpy()
    mg.manual_seed(0)
    got = fn(mg).detach().numpy()
    assert got.shape == want.shape and got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_transformer_layer_with_dropout_and_batch_first_matches_torch():
    def run(L):
        L.manual_seed(0)
        layer = L.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        return layer(L.randn(3, 5, 16)).detach().numpy()
    assert np.abs(run(torch) - run(mg)).max() < 1e-5    # dropout1 acts on attention's view
