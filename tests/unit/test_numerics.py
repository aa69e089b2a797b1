"""minigrad.numerics: the machine constants (ATen's CPU capability, lanes, threads) and the
kernel recipes built on them, checked against the installed PyTorch, also under another
``ATEN_CPU_CAPABILITY`` (in a subprocess, as both libraries read it at import)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
from minigrad import numerics as nx  # noqa: E402
from minigrad.dispatch import dispatch  # noqa: E402

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_capability_matches_torch():
    assert nx.CPU_CAPABILITY == torch.backends.cpu.get_cpu_capability()
    assert nx.VECTOR_BYTES == (64 if nx.CPU_CAPABILITY == "AVX512" else 32)


@pytest.mark.parametrize("env,flags,want", [
    (None, {"avx2", "fma", "avx512vl", "avx512bw", "avx512dq"}, "AVX512"),
    (None, {"avx2", "fma", "avx512vl", "avx512bw"}, "AVX2"),      # no avx512dq
    (None, {"avx2", "fma"}, "AVX2"),
    (None, {"avx2"}, "DEFAULT"),                                   # AVX2 needs fma too
    (None, set(), "DEFAULT"),
    ("avx2", {"avx2", "fma", "avx512vl", "avx512bw", "avx512dq"}, "AVX2"),
    ("default", {"avx2", "fma"}, "DEFAULT"),
    ("avx512", {"avx2", "fma"}, "AVX512"),
    ("AVX2", {"avx2", "fma", "avx512vl", "avx512bw", "avx512dq"}, "AVX512"),   # case matters
    ("banana", {"avx2", "fma"}, "AVX2"),
])
def test_capability_rule(env, flags, want):
    assert nx._capability(env, frozenset(flags)) == want


def test_lanes_and_loop_step():
    # a kernel with an AVX512 build uses the CPU's full vector width ...
    wide = nx.VECTOR_BYTES
    k = "pow_tensor_scalar"
    assert k in nx.AVX512_KERNELS and nx.kernel_capability(k) == nx.CPU_CAPABILITY
    assert nx.lanes(mg.float32, k) == wide // 4 and nx.lanes(mg.float64, k) == wide // 8
    assert nx.lanes(mg.float16, k) == nx.lanes(mg.bfloat16, k) == wide // 2
    assert nx.lanes(np.float32, k) == nx.lanes(4, k) == wide // 4
    assert nx.loop_step(mg.float32, k) == 2 * nx.lanes(mg.float32, k)
    assert nx.loop_step(mg.float16, k) == wide
    # ... a plain REGISTER_DISPATCH kernel (None) runs its AVX2 build on an AVX512 CPU
    plain = {"AVX512": "AVX2"}.get(nx.CPU_CAPABILITY, nx.CPU_CAPABILITY)
    assert nx.kernel_capability() == nx.kernel_capability("maximum") == plain
    assert nx.lanes(mg.float32) == 8 and nx.lanes(mg.float64) == 4 and nx.lanes(2) == 16
    assert nx.loop_step(mg.float32) == 16 and nx.loop_step(mg.float16) == 32


def test_threads_follow_torch_semantics():
    assert nx.get_num_threads() >= 1
    with nx.num_threads(3):
        assert nx.get_num_threads() == 3
        assert nx.parallel_chunks(100_000) == [(0, 33334), (33334, 66668), (66668, 100_000)]
        assert nx.parallel_chunks(40_000) == [(0, 20000), (20000, 40000)]    # 2 grains
        assert nx.parallel_chunks(32768) == [(0, 32768)]                   # not above grain
        assert nx.parallel_chunks(10, 1) == [(0, 4), (4, 8), (8, 10)]
    with nx.num_threads(1):
        assert nx.parallel_chunks(100_000) == [(0, 100_000)]
    import torch
    for bad in (0, -1, 1.5, True):
        with pytest.raises(RuntimeError) as et:
            torch.set_num_threads(bad)
        with pytest.raises(RuntimeError, match=str(et.value)):
            nx.set_num_threads(bad)


def test_tail_mask_rows_and_broadcast():
    m = nx.tail_mask((40,), ((40,),), 16)
    assert m[:32].sum() == 0 and m[32:].all()
    m = nx.tail_mask((3, 37), ((3, 37), (37,)), 32)          # rows: 32 body + 5 tail each
    assert (m.sum(1) == 5).all() and m[:, 32:].all()
    m = nx.tail_mask((4, 8), ((4, 8), (4, 1)), 16)           # (4, 1) breaks coalescing: rows of 8
    assert m.all()
    assert nx.tail_mask((0, 3), ((0, 3),), 16) is None
    # one thread (one parallel_for chunk) and two, on 40000 > GRAIN_SIZE elements in rows of
    # 1000 = 992 body + 8 tail: two chunks of 20000 end on row boundaries, so the same mask
    for threads in (1, 2):
        with nx.num_threads(threads):
            m = nx.tail_mask((40, 1000), ((40, 1000), (1000,)), 16)
        assert m.shape == (40, 1000) and (m.sum(1) == 8).all() and m[:, 992:].all()
    with nx.num_threads(2):    # a chunk boundary inside a row: rows of 30000 + 30000, split
        m = nx.tail_mask((2, 30000), ((2, 30000),), 16)    # at 30000: each 30000 = 1875 * 16
        assert not m.any()
        m = nx.tail_mask((33000,), ((33000,),), 16)        # chunks of 16500 (= 1031*16 + 4)
        assert m.sum() == 8 and m[16496:16500].all() and m[-4:].all()



@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_tail_mask_is_the_elementwise_rule(threads):
    """tail_mask's segment construction gives the reference's element-by-element mask: rows
    shorter / longer than a step, chunk boundaries inside rows and on them, broadcasting that
    breaks coalescing, size-1 dims, scalars; a fresh writable array each time."""
    cases = [((), ((),)), ((1,), ((1,),)), ((5,), ((5,),)), ((40,), ((40,),)),
             ((3, 37), ((3, 37), (37,))), ((4, 8), ((4, 8), (4, 1))), ((7, 1, 33), ((7, 1, 33),)),
             ((8, 64, 512), ((8, 64, 512),)), ((8, 64, 512), ((8, 64, 512), (512,))),
             ((33000,), ((33000,),)), ((2, 30000), ((2, 30000),)), ((3, 17, 1000), ((3, 1, 1000),)),
             ((100, 700), ((100, 700), (100, 1))), ((65, 1031), ((65, 1031),)),
             ((40, 1000), ((40, 1000), (1000,))), ((2, 3, 0), ((2, 3, 0),))]
    with nx.num_threads(threads):
        for shape, ins in cases:
            for step in (8, 16, 32, 64):
                m, ref = nx.tail_mask(shape, ins, step), nx._tail_mask_reference(shape, ins, step)
                if ref is None:
                    assert m is None
                    continue
                assert m.shape == ref.shape and m.dtype == bool and (m == ref).all(), (shape, step)
                assert m.flags.writeable and nx.tail_mask(shape, ins, step) is not m

@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1, 3, 7, 9, 13, 37, 45, 256])
@pytest.mark.parametrize("threads", [1, 2])
def test_reduce_all_is_atens_summation_order(dt, n, threads):
    """_softmax_backward_data's last-dim sum is vec::map2_reduce_all: bit-exact with torch."""
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with nx.num_threads(threads):
            _softmax_bw_case(dt, n)
    finally:
        torch.set_num_threads(old)


def _softmax_bw_case(dt, n):
    rng = np.random.default_rng(n)
    x = torch.tensor(rng.standard_normal((32, n)) * 3, dtype=dt)
    y = torch.softmax(x, -1)
    g = torch.tensor(rng.standard_normal((32, n)), dtype=dt)
    want = torch.ops.aten._softmax_backward_data(g, y, -1, dt).numpy()
    mdt = getattr(mg, str(dt).split(".")[1])
    got = dispatch("_softmax_backward_data", mg.tensor(g.numpy()), mg.tensor(y.numpy()), 1, mdt)
    assert np.array_equal(got.numpy(), want)


def _butterfly_reference(acc):
    """The butterfly as ATen writes it: every lane i becomes lane i + lane (i ^ h)."""
    idx = np.arange(acc.shape[-1])
    h = acc.shape[-1] // 2
    while h:
        acc = acc + acc[..., idx ^ h]
        h //= 2
    return acc[..., :1]


@pytest.mark.parametrize("lanes", [8, 16])
def test_reduce_all_butterfly_slices_same_bits_as_lane_xor(lanes, monkeypatch):
    """reduce_all's butterfly by halving slices gives the bits of the lane-xor form, NaN payloads,
    infinities, signed zeros and subnormals included (non-contiguous and empty-batch inputs)."""
    rng = np.random.default_rng(lanes)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40,
                        3.4e38, -3.4e38, 1.0], np.float32)
    payload = np.array([0x7fc00001, 0xffc12345, 0x7f800001], np.uint32).view(np.float32)
    for n in (lanes, lanes + 3, 3 * lanes + 1, 5 * lanes):
        x = rng.standard_normal((64, n)).astype(np.float32) * 1e3
        hit = rng.random(x.shape) < 0.3
        x[hit] = rng.choice(np.concatenate([special, payload]), size=int(hit.sum()))
        for a in (x, x[::2], x[:, ::-1], x[:0], np.asfortranarray(x)):
            monkeypatch.setattr(nx, "lanes", lambda dtype, kernel=None: lanes)
            got = nx.reduce_all(a, kernel="softmax_backward_lastdim")
            full = n - n % lanes
            acc = a[..., :lanes].copy()
            for d in range(lanes, full, lanes):
                acc += a[..., d:d + lanes]
            if full < n:
                acc[..., :n - full] += a[..., full:]
            want = _butterfly_reference(acc)
            assert got.shape == want.shape
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_reduce_all_plain_sum_row_shorter_than_lanes():
    x = np.array([[1e8, 1.0, -1e8, 1.0]], np.float32)
    left_to_right = ((np.float32(1e8) + np.float32(1)) - np.float32(1e8)) + np.float32(1)
    assert nx.reduce_all(x)[0, 0] == left_to_right == 1.0


def test_fma():
    a = np.float32(1 + 2 ** -12)
    assert nx.fma32(a, a, np.float32(-1)) == np.float32(2 ** -11 + 2 ** -24) or not nx.HAS_FMA
    x = np.float64(1 + 2 ** -30)
    assert nx.fma64(x, x, -1.0) == 2 ** -29 + 2 ** -60 or not nx.HAS_FMA



def _assert_round_to_odd_bits(x, y, z):
    """``fma32(x, y, z)`` and its ``subtract=True`` form (operands broadcast) give the bits of
    the round-to-odd path (``_fma32_exact``) on the float64 product and sums."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    x64, y64, z64 = (np.broadcast_to(np.asarray(v, np.float64), shape) for v in (x, y, z))
    p = x64 * y64
    assert nx.fma32(x, y, z).tobytes() == nx._fma32_exact(p, z64, p + z64).tobytes()
    assert nx.fma32(x, y, z, subtract=True).tobytes() == \
        nx._fma32_exact(-p, z64, z64 - p).tobytes()


def _fma_operands(seed, n, k, sign=1):
    """fp32 ``x, y, z`` of ``n`` random magnitudes whose first ``k`` are halfway cases: z with
    an odd last bit, x*y = half z's ulp times (1 - 2**-30) (times ``sign``) and the exact sum
    just inside the half towards z: the correct fma is z itself, a double rounding (to float64,
    then to even) would give z's neighbour."""
    rng = np.random.default_rng(seed)
    x, y, z = ((rng.standard_normal(n) * 2.0 ** rng.integers(-150, 128, n)).astype(np.float32)
               for _ in range(3))
    zk = (1 + 2.0 ** -23 * (2 * rng.integers(0, 2 ** 21, k) + 1)) * 2.0 ** rng.integers(
        -100, 100, k)
    z[:k] = zk.astype(np.float32)
    x[:k] = sign * (np.spacing(z[:k]).astype(np.float64) / 2 * (1 + 2 ** -15)).astype(np.float32)
    y[:k] = np.float32(1 - 2 ** -15)
    return x, y, z


def test_fma32_shortcut_has_the_round_to_odd_paths_bits():
    """fma32 rounds most elements straight from the float64 sum and sends only fp32 halfway
    points and sub-normal-range sums through the round-to-odd test: every element must equal
    the round-to-odd path's (``_fma32_exact`` on all of them), and the halfway cases the maths'
    correctly rounded fma."""
    if not nx.HAS_FMA:
        pytest.skip("this build has no fma: fma32 rounds twice by design")
    k = 64
    with np.errstate(all="ignore"):
        x, y, z = _fma_operands(0, 4000, k)
        x[k:k + 6] = [np.inf, np.nan, 0.0, -0.0, 3e38, 1e-30]
        y[k:k + 6] = [0.0, 1.0, -0.0, 5.0, 10.0, 1e-30]
        got = nx.fma32(x, y, z)
        p = x.astype(np.float64) * y.astype(np.float64)
        want = nx._fma32_exact(p, z.astype(np.float64), p + z.astype(np.float64))
    assert got.tobytes() == want.tobytes()
    assert got[:k].tobytes() == z[:k].tobytes()     # the maths: |x*y| < ulp(z) / 2
    for args in ((np.float32(0.3), x[:9], np.float32(1)), (x[:9], y[:9], np.float32(2)),
                 (np.float32(3), np.float32(5), np.float32(2 ** -140))):
        p = np.asarray(args[0], np.float64) * np.asarray(args[1], np.float64)
        z64 = np.asarray(args[2], np.float64)
        assert np.asarray(nx.fma32(*args)).tobytes() == np.asarray(
            nx._fma32_exact(p, z64, p + z64)).tobytes()


def test_fma32_broadcast_operands_gather_the_suspects_bits():
    """fma32 with operands broadcast against each other ((n, c) with (n, 1), (1, c) and 0-d,
    as log_softmax's backward calls it: ``g - exp(y) * sum(g)``) gathers each
    halfway suspect's operands without broadcast views: every element must equal the round-to-odd
    path's on the broadcast arrays, for ``x*y + z`` and ``z - x*y``."""
    if not nx.HAS_FMA:
        pytest.skip("this build has no fma: fma32 rounds twice by design")
    rng = np.random.default_rng(3)
    n, c = 32, 10
    e = rng.random((n, c)).astype(np.float32)
    g = np.zeros((n, c), np.float32)
    g[np.arange(n), rng.integers(0, c, n)] = np.float32(-1 / n)   # many fp32 halfway sums
    s = np.full((n, 1), np.float32(-1 / n))
    cases = [(e, s, g), (s, e, g), (e, s.reshape(1, n)[:, :c], g), (e, np.float32(0.3), g),
             (e, np.float32(0.3), g[:1]), (s, s.T[:, :c], g), (e[:1], s, g)]
    with np.errstate(all="ignore"):
        for x, y, z in cases:
            _assert_round_to_odd_bits(x, y, z)


def test_fma32_suspects_of_3d_and_transposed_operands():
    """fma32 finds the halfway suspects of an N-d sum through the flattened mask (C order,
    unravelled): 3-D operands, C-contiguous, transposed (a Fortran-ordered sum) and broadcast,
    give the round-to-odd path's bits on every element, for ``x*y + z`` and ``z - x*y``."""
    if not nx.HAS_FMA:
        pytest.skip("this build has no fma: fma32 rounds twice by design")
    k = 64
    with np.errstate(all="ignore"):
        x, y, z = (v.reshape(4, 25, 40) for v in _fma_operands(5, 4000, k))
        perm = np.random.default_rng(5).permutation(4000).reshape(4, 25, 40)
        x, y, z = (v.reshape(-1)[perm] for v in (x, y, z))     # halfway cases spread out
        cases = [(x, y, z), (x.transpose(2, 1, 0), y.transpose(2, 1, 0), z.transpose(2, 1, 0)),
                 (x, y[:1], z), (x, np.float32(0.7), z[:, :1])]
        for a, b, c in cases:
            _assert_round_to_odd_bits(a, b, c)


def test_fma32_subtract_is_the_fused_difference_and_keeps_nan_signs():
    """``fma32(x, y, z, subtract=True)`` is ``z - x*y`` with one rounding: the bits of
    ``fma32(-x, y, z)`` for non-NaN operands (negation is exact), on arrays, scalars and
    broadcast addends; a NaN operand comes out with its own sign, as from ``z - x*y``."""
    if not nx.HAS_FMA:
        pytest.skip("this build has no fma: fma32 rounds twice by design")
    k = 64
    with np.errstate(all="ignore"):
        x, y, z = _fma_operands(1, 4000, k, sign=-1)      # halfway cases with x's sign flipped
        got = nx.fma32(x, y, z, subtract=True)
        assert got.tobytes() == nx.fma32(-x, y, z).tobytes()
        assert got[:k].tobytes() == z[:k].tobytes()     # the maths: |x*y| < ulp(z) / 2
        assert nx.fma32(x[:9], y[:9], np.float32(2), subtract=True).tobytes() == \
            nx.fma32(-x[:9], y[:9], np.float32(2)).tobytes()
        assert np.float32(nx.fma32(np.float32(3), np.float32(5), np.float32(2 ** -140),
                                   subtract=True)) == np.float32(-15)
        nan = np.array([np.nan], np.float32)
        assert not np.signbit(nx.fma32(nan, np.float32(2), np.float32(1), subtract=True))[0]
        assert np.signbit(nx.fma32(-nan, np.float32(2), np.float32(1), subtract=True))[0]


_SCRIPT = textwrap.dedent("""
    import numpy as np, torch, minigrad as mg
    from minigrad import numerics as nx
    from minigrad.dispatch import dispatch
    torch.set_num_threads(1); nx.set_num_threads(1)
    assert nx.CPU_CAPABILITY == torch.backends.cpu.get_cpu_capability(), nx.CPU_CAPABILITY
    rng = np.random.default_rng(0)
    bad = []
    for n in (7, 37, 100):
        for dt in ("float32", "float64"):
            x = torch.tensor(rng.standard_normal((16, n)), dtype=getattr(torch, dt))
            y = torch.softmax(x, -1); g = torch.tensor(rng.standard_normal((16, n)), dtype=x.dtype)
            want = torch.ops.aten._softmax_backward_data(g, y, -1, x.dtype).numpy()
            got = dispatch("_softmax_backward_data", mg.tensor(g.numpy()), mg.tensor(y.numpy()),
                           1, getattr(mg, dt)).numpy()
            bad += [("softmax_bw", n, dt)] if not np.array_equal(got, want) else []
        for dt in ("float16", "bfloat16", "float32", "float64"):
            sg = rng.integers(0, 2, (2, n))
            a, b = np.where(sg[0] == 1, -0.0, 0.0), np.where(sg[1] == 1, -0.0, 0.0)
            t = torch.maximum(torch.tensor(a, dtype=getattr(torch, dt)),
                              torch.tensor(b, dtype=getattr(torch, dt))).float().numpy()
            m = mg.maximum(mg.tensor(a, dtype=getattr(mg, dt)),
                           mg.tensor(b, dtype=getattr(mg, dt))).float().numpy()
            bad += [("max_zero", n, dt)] if not (np.signbit(t) == np.signbit(m)).all() else []
        for dt in ("float16", "bfloat16"):
            u, v = rng.standard_normal(n), rng.standard_normal(n)
            t = torch.add(torch.tensor(u, dtype=getattr(torch, dt)),
                          torch.tensor(v, dtype=getattr(torch, dt)), alpha=0.3).float().numpy()
            m = mg.add(mg.tensor(u, dtype=getattr(mg, dt)), mg.tensor(v, dtype=getattr(mg, dt)),
                       alpha=0.3).float().numpy()
            bad += [("add_alpha", n, dt)] if not np.array_equal(t, m) else []
        x = torch.tensor(rng.standard_normal((3, 10, n)), dtype=torch.bfloat16)
        t = torch.softmax(x, 1).float().numpy()
        m = mg.softmax(mg.tensor(x.float().numpy(), dtype=mg.bfloat16), 1).float().numpy()
        bad += [("softmax_dim1", n)] if (t != m).sum() > t.size // 1000 else []
    print("BAD", bad)
""")


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_recipes_follow_aten_cpu_capability(cap):
    """Run torch and minigrad with ATEN_CPU_CAPABILITY set: both must agree bit for bit on the
    recipes that depend on the capability (lanes, fma, tails)."""
    if cap == "avx2" and nx.CPU_CAPABILITY == "DEFAULT":
        pytest.skip("this CPU cannot run the AVX2 kernels")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=cap, PYTHONPATH=_ROOT)
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "BAD []" in out.stdout, out.stdout


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_16bit_full_sum_rounds_each_threads_part(threads, dt):
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(threads)
        with nx.num_threads(threads):
            for shape in ((40000,), (100001,), (300, 400), (20000,)):
                for _ in range(4):
                    a = rng.standard_normal(shape).astype(np.float32)
                    t, m = torch.tensor(a).to(getattr(torch, dt)), mg.tensor(a, dtype=getattr(mg, dt))
                    assert t.sum().float().item() == m.sum().float().item()
                    assert t.sum((0,), keepdim=True).float().tolist() == \
                        m.sum((0,), keepdim=True).float().tolist() or len(shape) > 1
    finally:
        torch.set_num_threads(old)
