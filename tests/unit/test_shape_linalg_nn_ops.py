"""Shape/view/indexing, linear algebra and nn ops (softmax family, losses) against PyTorch CPU:
forward values, output dtypes, node names, gradients, and errors (type and message)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad.dispatch import dispatch  # noqa: E402
from minigrad import numerics  # noqa: E402

DTYPES = ["float32", "float64", "float16", "bfloat16"]
TD = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
      "bfloat16": torch.bfloat16}


@pytest.fixture(autouse=True)
def _threads():
    with numerics.num_threads(torch.get_num_threads()):
        yield


def _pair(arr, dt, grad=True):
    m = mg.tensor(arr, dtype=getattr(mg, dt), requires_grad=grad)
    t = torch.tensor(arr).to(TD[dt])
    if grad:
        t.requires_grad_()
    return m, t


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().to(torch.float64).numpy()
    return np.asarray(x.detach()._data, dtype=np.float64)


def _ulps(dt):
    # allowed relative error: a few fp32 ULPs (NumPy vs PyTorch vectorised exp/summation order);
    # exact for 16-bit recipes unless a test says otherwise
    return {"float32": 4e-6, "float64": 1e-12, "float16": 0.0, "bfloat16": 0.0}[dt]


def _close(a, b, rtol, atol=0.0, max_mismatch=0):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    assert bad.sum() <= max_mismatch, (bad.sum(), a[bad][:5], b[bad][:5])


def _run(fm, ft, arrays, dt, rtol=None, atol=0.0, max_mismatch=0, gmax_mismatch=None,
         grad_rtol=None):
    """Run fm on minigrad tensors and ft on torch tensors; compare dtype, node, values, grads."""
    ms, ts = zip(*[_pair(a, dt) for a in arrays])
    ym, yt = fm(*ms), ft(*ts)
    assert ym.dtype.name == str(yt.dtype).split(".")[1]
    assert tuple(ym.shape) == tuple(yt.shape)
    assert ym.grad_fn.name() == yt.grad_fn.name()
    rtol = _ulps(dt) if rtol is None else rtol
    _close(ym, yt, rtol, atol, max_mismatch)
    g = np.random.default_rng(7).standard_normal(tuple(yt.shape)).astype(np.float32)
    ym.backward(mg.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    for a, b in zip(ms, ts):
        assert a.grad.dtype is a.dtype
        _close(a.grad, b.grad, rtol if grad_rtol is None else grad_rtol, atol,
               max_mismatch if gmax_mismatch is None else gmax_mismatch)
    return ym, yt


def _raises(exc, msg, f):
    with pytest.raises(exc) as ei:
        f()
    assert msg in str(ei.value), str(ei.value)


RNG = np.random.default_rng(0)


def _r(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------------- shape / views

SHAPE_CASES = [
    ("view", lambda x: x.view(6, 4), lambda x: x.view(6, 4)),
    ("view-1", lambda x: x.view(-1), lambda x: x.view(-1)),
    ("transpose", lambda x: x.transpose(0, 2), lambda x: x.transpose(0, 2)),
    ("permute", lambda x: x.permute(2, 0, 1), lambda x: x.permute(2, 0, 1)),
    ("unsqueeze", lambda x: x.unsqueeze(-1), lambda x: x.unsqueeze(-1)),
    ("flatten", lambda x: x.flatten(1), lambda x: x.flatten(1)),
    ("mT", lambda x: x.mT, lambda x: x.mT),
    ("reshape_nc", lambda x: x.transpose(0, 1).reshape(-1, 2), None),
]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,fm,ft", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_view_ops_match_torch(dt, name, fm, ft):
    a = _r(2, 3, 4)
    if ft is None:
        ft = fm
        m, t = _pair(a, dt)
        ym, yt = fm(m), ft(t)
        _close(ym, yt, 0)
        return
    ym, yt = _run(fm, ft, [a], dt, rtol=0)
    if name != "flatten":
        assert ym._base is not None          # a view sharing storage


def test_squeeze_variants_and_t():
    a = _r(2, 1, 3, 1)
    for args, node in [((), "SqueezeBackward0"), ((1,), "SqueezeBackward1"),
                       (((1, 3),), "SqueezeBackward2"), ((0,), "SqueezeBackward1")]:
        _run(lambda x: x.squeeze(*args), lambda x: x.squeeze(*args), [a], "float32", rtol=0)
        assert mg.tensor(a, requires_grad=True).squeeze(*args).grad_fn.name() == node
    _run(lambda x: x.t(), lambda x: x.t(), [_r(2, 3)], "float32", rtol=0)
    _run(lambda x: x.t(), lambda x: x.t(), [_r(3)], "float32", rtol=0)


def test_views_share_storage_and_version():
    x = mg.zeros(2, 3)
    v = x.view(6)
    v[1] = 5.0
    assert x.tolist()[0][1] == 5.0
    assert x._version == v._version == 1
    assert x.t()._base is x


def test_shape_errors():
    x = mg.randn(2, 3, 4)
    _raises(RuntimeError, "view size is not compatible with input tensor's size and stride",
            lambda: x.transpose(0, 1).view(6, 4))
    _raises(RuntimeError, "shape '[5, -1]' is invalid for input of size 24", lambda: x.view(5, -1))
    _raises(RuntimeError, "number of dimensions in the tensor input does not match the length "
            "of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to "
            "len(dims) = 2", lambda: x.permute(0, 1))
    _raises(RuntimeError, "permute(): duplicate dims are not allowed.", lambda: x.permute(0, 1, 1))
    _raises(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
            lambda: x.transpose(0, 3))
    _raises(RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D", x.t)
    _raises(IndexError, "Dimension out of range (expected to be in range of [-4, 3], but got 4)",
            lambda: x.unsqueeze(4))
    _raises(RuntimeError, "dim 0 appears multiple times in the list of dims",
            lambda: x.squeeze((0, 0)))
    _raises(RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim",
            lambda: x.flatten(2, 1))


# ---------------------------------------------------------------------------- cat / stack

@pytest.mark.parametrize("dt", DTYPES)
def test_cat_stack_match_torch(dt):
    a, b = _r(2, 3), _r(4, 3)
    _run(lambda x, y: mg.cat([x, y]), lambda x, y: torch.cat([x, y]), [a, b], dt, rtol=0)
    _run(lambda x, y: mg.cat((x, y), dim=-1), lambda x, y: torch.cat((x, y), -1),
         [a, _r(2, 5)], dt, rtol=0)
    _run(lambda x, y: mg.stack([x, y], 1), lambda x, y: torch.stack([x, y], 1), [a, _r(2, 3)],
         dt, rtol=0)


def test_cat_promotes_and_casts_grads_back():
    h = mg.tensor([1.0, 2.0], dtype=mg.float16, requires_grad=True)
    b = mg.tensor([3.0], dtype=mg.bfloat16, requires_grad=True)
    y = mg.cat([h, b])
    assert torch.cat([torch.ones(2).half(), torch.ones(1).bfloat16()]).dtype is torch.float32
    assert y.dtype is mg.float32
    y.sum().backward()
    assert h.grad.dtype is mg.float16 and b.grad.dtype is mg.bfloat16
    assert mg.cat([mg.ones(2, dtype=mg.int64), mg.ones(2, dtype=mg.bool_)]).dtype is mg.int64
    assert mg.cat([mg.ones(2, 3), mg.zeros(0)]).shape == (2, 3)      # legacy empty tensor


def test_cat_stack_errors():
    x = mg.randn(2, 3, 4)
    _raises(RuntimeError, "Tensors must have same number of dimensions: got 3 and 2",
            lambda: mg.cat([x, mg.randn(2, 3)]))
    _raises(RuntimeError, "Sizes of tensors must match except in dimension 0. Expected size 3 "
            "but got size 4 for tensor number 1 in the list.",
            lambda: mg.cat([x, mg.randn(2, 4, 4)]))
    _raises(ValueError, "expected a non-empty list of Tensors", lambda: mg.cat([]))
    _raises(RuntimeError, "zero-dimensional tensor (at position 0) cannot be concatenated",
            lambda: mg.cat([mg.tensor(1.0), mg.tensor(2.0)]))
    _raises(TypeError, "must be tuple of Tensors, not Tensor", lambda: mg.cat(x))
    _raises(RuntimeError, "stack expects each tensor to be equal size, but got [2, 3, 4] at "
            "entry 0 and [2, 3] at entry 1", lambda: mg.stack([x, mg.randn(2, 3)]))
    _raises(RuntimeError, "stack expects a non-empty TensorList", lambda: mg.stack([]))


# ---------------------------------------------------------------------------- indexing

INDEX_CASES = [
    ("int", lambda: 1), ("neg int", lambda: -1), ("slice", lambda: (slice(None), slice(1, 3))),
    ("step", lambda: slice(None, None, 2)), ("none", lambda: (None, 0)),
    ("ellipsis", lambda: (Ellipsis, 1)), ("all ints", lambda: (1, 2)),
    ("list repeats", lambda: [0, 0, 2, 0]), ("tensor 2d", lambda: "T2"),
    ("mask", lambda: "MASK"), ("mixed", lambda: (slice(1, None), [0, 2, 2])),
    ("int+arr", lambda: (1, [0, 3])), ("two arrays", lambda: ([0, 1, 1], [2, 2, 2])),
    ("separated", lambda: ([0, 0], slice(None), [1, 1])),
]


def _mk_index(spec, lib, a):
    if spec == "T2":
        return lib.tensor([[0, 1], [1, 1]])
    if spec == "MASK":
        return lib.tensor(a > 0)
    return spec


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,spec", INDEX_CASES, ids=[c[0] for c in INDEX_CASES])
def test_index_matches_torch(dt, name, spec):
    a = _r(3, 4, 5) if name == "separated" else _r(3, 4)
    s = spec()
    im, it = _mk_index(s, mg, a), _mk_index(s, torch, a)
    if isinstance(it, list):
        it = torch.tensor(it)
    if isinstance(it, tuple):
        it = tuple(torch.tensor(c) if isinstance(c, list) else c for c in it)
    # repeated indices accumulate in the storage dtype in order, as PyTorch: exact in all dtypes
    _run(lambda x: x[im], lambda x: x[it], [a], dt, rtol=0)


def test_index_accumulates_with_rounding_like_torch():
    for dt, tiny in (("float16", 2 ** -11), ("bfloat16", 2 ** -9), ("float32", 2 ** -24)):
        g = np.array([1.0, tiny, tiny, tiny, tiny], np.float32)
        y = mg.zeros(2, dtype=getattr(mg, dt), requires_grad=True)
        y[mg.tensor([0, 0, 0, 0, 0])].backward(mg.tensor(g, dtype=getattr(mg, dt)))
        yt = torch.zeros(2, dtype=TD[dt], requires_grad=True)
        yt[torch.tensor([0, 0, 0, 0, 0])].backward(torch.tensor(g).to(TD[dt]))
        assert y.grad.tolist() == yt.grad.tolist()


def test_index_errors():
    x = mg.randn(3, 4)
    _raises(IndexError, "index 5 is out of bounds for dimension 0 with size 3", lambda: x[5])
    _raises(IndexError, "index -4 is out of bounds for dimension 0 with size 3", lambda: x[-4])
    _raises(IndexError, "index 7 is out of bounds for dimension 1 with size 4", lambda: x[:, 7])
    _raises(IndexError, "too many indices for tensor of dimension 2", lambda: x[0, 0, 0])
    _raises(IndexError, "index 5 is out of bounds for dimension 0 with size 3",
            lambda: x[mg.tensor([0, 5])])
    _raises(IndexError, "tensors used as indices must be long, int, byte or bool tensors",
            lambda: x[mg.tensor([1.0])])
    _raises(IndexError, "The shape of the mask [2, 2] at index 0 does not match the shape of the "
            "indexed tensor [3, 4] at index 0", lambda: x[mg.ones(2, 2, dtype=mg.bool_)])
    _raises(IndexError, "shape mismatch: indexing tensors could not be broadcast together with "
            "shapes [2], [3]", lambda: x[mg.tensor([0, 1]), mg.tensor([0, 1, 2])])
    _raises(ValueError, "step must be greater than zero", lambda: x[::-1])
    _raises(IndexError, "(got float)", lambda: x[1.5])


def test_setitem():
    a = mg.zeros(3)
    a[mg.tensor([0, 0])] = mg.tensor([1.0, 2.0])
    at = torch.zeros(3)
    at[torch.tensor([0, 0])] = torch.tensor([1.0, 2.0])
    assert a.tolist() == at.tolist()
    h = mg.zeros(3, dtype=mg.float16)
    h[0] = 1 / 3
    assert h.tolist() == [float(np.float16(1 / 3)), 0.0, 0.0]
    i = mg.zeros(3, dtype=mg.int64)
    i[0] = 2.7
    assert i.tolist() == [2, 0, 0]
    _raises(IndexError, "index 5 is out of bounds for dimension 0 with size 3",
            lambda: a.__setitem__(5, 1.0))
    with pytest.raises(RuntimeError):
        a[:] = mg.ones(2)
    leaf = mg.zeros(3, requires_grad=True)
    _raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place "
            "operation.", lambda: leaf.__setitem__(0, 1.0))
    # autograd through an assignment into a non-leaf
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = mg.tensor(5.0, requires_grad=True)
    b = w * 2.0
    b[1] = v
    (b * mg.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert w.grad.tolist() == [2.0, 0.0, 200.0] and v.grad.item() == 10.0


# ---------------------------------------------------------------------------- linalg

MATMUL_CASES = [((8, 16), (16, 5)), ((16,), (16,)), ((8, 16), (16,)), ((16,), (16, 5)),
                ((3, 8, 16), (16, 5)), ((3, 8, 16), (16,)), ((16,), (3, 16, 5)),
                ((4, 16), (3, 16, 5)), ((2, 1, 8, 16), (3, 16, 5)), ((3, 8, 16), (3, 16, 5))]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("sa,sb", MATMUL_CASES, ids=[f"{a}@{b}" for a, b in MATMUL_CASES])
def test_matmul_matches_torch(dt, sa, sb):
    # fp32 accumulation + one rounding; summation order may move 16-bit results by 1 ULP
    rtol = {"float32": 1e-5, "float64": 1e-12, "float16": 2 ** -10, "bfloat16": 2 ** -7}[dt]
    ym, yt = _run(lambda a, b: a @ b, lambda a, b: a @ b, [_r(*sa), _r(*sb)], dt, rtol=rtol,
                  atol=1e-6)


@pytest.mark.parametrize("dt", DTYPES)
def test_mm_bmm_addmm_linear(dt):
    rtol = {"float32": 1e-5, "float64": 1e-12, "float16": 2 ** -10, "bfloat16": 2 ** -7}[dt]
    _run(mg.mm, torch.mm, [_r(8, 16), _r(16, 5)], dt, rtol=rtol, atol=1e-6)
    _run(lambda a, b: dispatch("bmm", a, b), torch.bmm, [_r(3, 8, 16), _r(3, 16, 5)], dt,
         rtol=rtol, atol=1e-6)
    _run(lambda i, a, b: mg.addmm(i, a, b, beta=0.5, alpha=2.0),
         lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0),
         [_r(5), _r(8, 16), _r(16, 5)], dt, rtol=rtol, atol=1e-6)
    for sx in [(8, 16), (2, 8, 16), (16,)]:
        _run(lambda x, w, b: dispatch("linear", x, w, b), F.linear, [_r(*sx), _r(5, 16), _r(5)],
             dt, rtol=rtol, atol=1e-6)
        _run(lambda x, w: dispatch("linear", x, w), F.linear, [_r(*sx), _r(5, 16)], dt,
             rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_linear_adds_bias_before_the_single_rounding(dt):
    x, w, b = _r(64, 32), _r(16, 32), _r(16, scale=3)
    ym = dispatch("linear", *[mg.tensor(a, dtype=getattr(mg, dt)) for a in (x, w, b)])
    xs = [torch.tensor(a).to(TD[dt]) for a in (x, w, b)]
    exact = ((xs[0].float() @ xs[1].float().T) + xs[2].float()).to(TD[dt])
    assert (_np(ym) == _np(exact)).mean() > 0.99
    assert (_np(ym) != _np(F.linear(*xs))).sum() <= 8


def test_linalg_errors():
    a = mg.randn(2, 3)
    _raises(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
            lambda: a @ mg.randn(4, 5))
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != "
            "c10::BFloat16", lambda: mg.mm(a, mg.randn(3, 2, dtype=mg.bfloat16)))
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: c10::Half != "
            "float", lambda: mg.randn(2, 2, 3, dtype=mg.float16) @ mg.randn(3, 2))
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double",
            lambda: dispatch("linear", a, mg.randn(5, 3, dtype=mg.float64)))
    _raises(RuntimeError, "self and mat2 must have the same dtype, but got Double and Float",
            lambda: dispatch("linear", a, mg.randn(5, 3), mg.randn(5, dtype=mg.float64)))
    _raises(RuntimeError, "both arguments to matmul need to be at least 1D, but they are 0D and "
            "1D", lambda: mg.tensor(1.0) @ mg.randn(3))
    _raises(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] "
            "but got: [2, 5].", lambda: mg.randn(2, 3, 4) @ mg.randn(2, 5, 3))
    _raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 0", lambda: mg.randn(2, 3, 4) @ mg.randn(3, 4, 3))
    _raises(RuntimeError, "dot : expected both vectors to have same dtype, but found Float and "
            "BFloat16", lambda: mg.randn(3) @ mg.randn(3, dtype=mg.bfloat16))
    _raises(RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4]",
            lambda: mg.randn(3) @ mg.randn(4))
    _raises(RuntimeError, "size mismatch, got input (3), mat (3x4), vec (5)",
            lambda: mg.randn(3, 4) @ mg.randn(5))
    _raises(RuntimeError, "expected scalar type Half but found Float",
            lambda: dispatch("bmm", mg.ones(2, 2, 3, dtype=mg.float16), mg.ones(2, 3, 2)))


# ---------------------------------------------------------------------------- softmax family

SM_CASES = [((64, 256), -1), ((64, 256), 0), ((7, 33, 5), 1), ((3, 10, 50), 1), ((5,), 0),
            ((), 0), ((4, 3, 1), 1)]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,dim", SM_CASES, ids=[f"{s}-{d}" for s, d in SM_CASES])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_family_matches_torch(dt, shape, dim, log):
    fm = mg.log_softmax if log else mg.softmax
    ft = torch.log_softmax if log else torch.softmax
    a = _r(*shape, scale=3)
    n = max(1, a.size)
    # 16-bit: PyTorch's recipes are emulated; allow 1 ULP on <= 0.1% (SIMD summation order)
    tol = {"float32": 2e-6, "float64": 1e-12, "float16": 2 ** -10, "bfloat16": 2 ** -7}[dt]
    mism = 0 if dt in ("float32", "float64") else n // 1000
    ms, ts = _pair(a, dt)
    ym, yt = fm(ms, dim), ft(ts, dim)
    assert ym.dtype.name == dt and ym.grad_fn.name() == yt.grad_fn.name()
    # log_softmax is x - max - log(sum(exp)): it cancels too, so small outputs carry an absolute
    # error of a few eps * max|x| (|x| <~ 12 here)
    atol = {"float32": 1e-6 if log else 1e-7, "float64": 1e-14}.get(dt, 0)
    _close(ym, yt, tol if dt in ("float32", "float64") else 0, atol=atol, max_mismatch=mism)
    g = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ym.backward(mg.tensor(g, dtype=ym.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    # the backward is y * (g - sum(g * y)): the subtraction cancels, so near-zero gradients carry
    # an absolute error of a few eps * |g| (torch's SIMD sum order differs between CPUs: AVX2 vs
    # AVX-512 machines gave a 4e-18 difference on a -4e-6 gradient)
    _close(ms.grad, ts.grad, tol if dt in ("float32", "float64") else 0,
           atol={"float32": 1e-6, "float64": 1e-14}.get(dt, 0), max_mismatch=mism)


def test_softmax_dtype_arg_and_errors():
    x = mg.randn(2, 3, dtype=mg.float16, requires_grad=True)
    y = mg.softmax(x, 1, dtype=mg.float32)
    assert y.dtype is mg.float32 and y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype is mg.float16
    _raises(IndexError, "Dimension out of range", lambda: mg.softmax(x, 2))
    _raises(RuntimeError, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
            lambda: mg.softmax(mg.ones(3, dtype=mg.int64), 0))


def test_softmax_double_backward_fp64():
    a = _r(3, 5).astype(np.float64)
    for fm, ft in ((mg.softmax, torch.softmax), (mg.log_softmax, torch.log_softmax)):
        x = mg.tensor(a, requires_grad=True)
        xt = torch.tensor(a, requires_grad=True)
        w = _r(3, 5).astype(np.float64)
        (gm,) = mg.autograd.grad((fm(x, 1) * mg.tensor(w)).sum(), x, create_graph=True)
        (gt,) = torch.autograd.grad((ft(xt, 1) * torch.tensor(w)).sum(), xt, create_graph=True)
        (gm * gm).sum().backward()
        (gt * gt).sum().backward()
        _close(x.grad, xt.grad, 1e-10, 1e-12)


# ---------------------------------------------------------------------------- losses

def _loss_case(kind, shape, target, dt, **kw):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(shape) * 2).astype(np.float32)
    c = shape[0] if len(shape) == 1 else shape[1]
    if target == "probs":
        p = rng.random(shape).astype(np.float32)
        tm, tt = mg.tensor(p, dtype=getattr(mg, dt)), torch.tensor(p).to(TD[dt])
    else:
        tgt = rng.integers(0, c, target)
        if kw.pop("ignore", False):
            tgt.reshape(-1)[::3] = -100
        tm, tt = mg.tensor(tgt), torch.tensor(tgt)
    wm = wt = None
    if kw.pop("weight", False):
        w = (rng.random(c) + 0.5).astype(np.float32)
        wm, wt = mg.tensor(w, dtype=getattr(mg, dt)), torch.tensor(w).to(TD[dt])
    fm = {"ce": lambda x: dispatch("cross_entropy_loss", x, tm, weight=wm, **kw),
          "nll": lambda x: dispatch("nll_loss", x, tm, weight=wm, **kw)}[kind]
    ft = {"ce": lambda x: F.cross_entropy(x, tt, weight=wt, **kw),
          "nll": lambda x: F.nll_loss(x, tt, weight=wt, **kw)}[kind]
    return a, fm, ft


NLL_CASES = [((300, 7), (300,), {}), ((300, 7), (300,), {"weight": True}),
             ((30, 7), (30,), {"weight": True, "ignore": True}), ((4, 7, 5, 6), (4, 5, 6), {}),
             ((4, 7, 5), (4, 5), {"weight": True}), ((7,), (), {})]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape,tshape,kw", NLL_CASES,
                         ids=[str(c[0]) + str(c[2]) for c in NLL_CASES])
def test_nll_loss_bit_exact(dt, reduction, shape, tshape, kw):
    # PyTorch's cascade summation in the storage dtype is emulated: exact in every dtype
    a, fm, ft = _loss_case("nll", shape, tshape, dt, reduction=reduction, **kw)
    _run(fm, ft, [a], dt, rtol=0)


CE_CASES = [((64, 10), (64,), {}), ((64, 10), (64,), {"label_smoothing": 0.1}),
            ((64, 10), (64,), {"label_smoothing": 0.1, "weight": True, "ignore": True}),
            ((64, 10), "probs", {}),
            ((8, 10, 3), "probs", {"label_smoothing": 0.2, "weight": True}),
            ((8, 10, 3), (8, 3), {}), ((10,), (), {})]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape,tshape,kw", CE_CASES,
                         ids=[str(c[0]) + str(c[2]) for c in CE_CASES])
def test_cross_entropy_matches_torch(dt, reduction, shape, tshape, kw):
    a, fm, ft = _loss_case("ce", shape, tshape, dt, reduction=reduction, **kw)
    if dt in ("float16", "bfloat16"):
        # the composition rounds where PyTorch's does; rare 1-ULP moves via the log_softmax sums
        ms, ts = _pair(a, dt)
        ym, yt = fm(ms), ft(ts)
        assert ym.dtype.name == dt and ym.grad_fn.name() == yt.grad_fn.name()
        _close(ym, yt, 0, max_mismatch=max(1, ym.numel() // 50))
        ym.sum().backward()
        yt.sum().backward()
        _close(ms.grad, ts.grad, 2 ** -7, max_mismatch=max(1, ms.numel() // 100))
    else:
        _run(fm, ft, [a], dt, rtol=_ulps(dt) * 4, atol=1e-7 if dt == "float32" else 0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_bit_exact(dt, reduction):
    _run(lambda a, b: dispatch("mse_loss", a, b, reduction=reduction),
         lambda a, b: F.mse_loss(a, b, reduction=reduction), [_r(37, 29), _r(37, 29)], dt,
         rtol=_ulps(dt) if reduction != "none" else 0)


def test_mse_loss_promotes_and_broadcasts():
    x = mg.randn(4, 3, requires_grad=True)
    y = mg.randn(3, dtype=mg.float64)
    out = dispatch("mse_loss", x, y)
    assert out.dtype is mg.float64 and out.grad_fn.name() == "MseLossBackward0"
    out.backward()
    assert x.grad.shape == (4, 3) and x.grad.dtype is mg.float32
    assert dispatch("mse_loss", mg.randn(2, dtype=mg.bfloat16),
                    mg.randn(2, dtype=mg.float16)).dtype is mg.float32
    _raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (5) at "
            "non-singleton dimension 1", lambda: dispatch("mse_loss", x, mg.randn(5)))


def test_loss_errors():
    x = mg.randn(4, 3, requires_grad=True)
    t = mg.tensor([0, 2, 1, 1])
    _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
            lambda: dispatch("nll_loss", x, t.float()))
    _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
            lambda: dispatch("cross_entropy_loss", x, t.float()))
    _raises(IndexError, "Target 5 is out of bounds.",
            lambda: dispatch("cross_entropy_loss", x, mg.tensor([0, 5, 1, 1])))
    _raises(IndexError, "Target -1 is out of bounds.",
            lambda: dispatch("nll_loss", x, mg.tensor([0, -1, 1, 1])))
    _raises(ValueError, "Expected input batch_size (4) to match target batch_size (3).",
            lambda: dispatch("cross_entropy_loss", x, mg.tensor([0, 1, 1])))
    _raises(RuntimeError, "0D or 1D target tensor expected, multi-target not supported",
            lambda: dispatch("cross_entropy_loss", x, mg.rand(4, 4)))
    _raises(ValueError, "foo is not a valid value for reduction",
            lambda: dispatch("cross_entropy_loss", x, t, reduction="foo"))
    _raises(RuntimeError, "weight tensor should be defined either for all 3 classes or no "
            "classes but got weight tensor of shape: [4]",
            lambda: dispatch("nll_loss", x, t, weight=mg.ones(4)))
    _raises(RuntimeError, "expected scalar type Float but found Double",
            lambda: dispatch("nll_loss", x, t, weight=mg.ones(3, dtype=mg.float64)))
    _raises(RuntimeError, "Expected target size [2, 4], got [2, 3]",
            lambda: dispatch("nll_loss", mg.randn(2, 3, 4), mg.zeros(2, 3, dtype=mg.int64)))
    _raises(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
            lambda: dispatch("cross_entropy_loss", x, t, label_smoothing=1.5))
    _raises(RuntimeError, "ignore_index is not supported for floating point target",
            lambda: dispatch("cross_entropy_loss", x, mg.rand(4, 3), ignore_index=1))


def test_all_ignored_mean_is_nan_like_torch():
    x = mg.randn(4, 3, requires_grad=True)
    out = dispatch("cross_entropy_loss", x, mg.full((4,), -100, dtype=mg.int64))
    ref = F.cross_entropy(torch.randn(4, 3), torch.full((4,), -100))
    assert np.isnan(out.item()) and torch.isnan(ref)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.backward()
    assert x.grad.tolist() == [[0.0] * 3] * 4


def test_loss_double_backward_fp64():
    a = _r(6, 4).astype(np.float64)
    tgt = np.array([0, 3, 1, 1, 2, 0])
    for fm, ft in ((lambda x: dispatch("cross_entropy_loss", x, mg.tensor(tgt), label_smoothing=0.1),
                    lambda x: F.cross_entropy(x, torch.tensor(tgt), label_smoothing=0.1)),
                   (lambda x: dispatch("mse_loss", x, mg.tensor(a.T.copy()[:4].T * 0 + 0.5)),
                    lambda x: F.mse_loss(x, torch.full((6, 4), 0.5, dtype=torch.float64)))):
        x = mg.tensor(a, requires_grad=True)
        xt = torch.tensor(a, requires_grad=True)
        (gm,) = mg.autograd.grad(fm(x), x, create_graph=True)
        (gt,) = torch.autograd.grad(ft(xt), xt, create_graph=True)
        _close(gm, gt, 1e-12, 1e-14)
        (gm * gm).sum().backward()
        (gt * gt).sum().backward()
        _close(x.grad, xt.grad, 1e-10, 1e-12)


def test_index_and_cat_double_backward_fp64():
    a = _r(4, 3).astype(np.float64)
    x = mg.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    idx = [0, 2, 2]
    ym = mg.cat([x[idx] * x[idx], x[1:]])
    yt = torch.cat([xt[idx] * xt[idx], xt[1:]])
    (gm,) = mg.autograd.grad(ym.sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(yt.sum(), xt, create_graph=True)
    _close(gm, gt, 1e-12)
    (gm * gm).sum().backward()
    (gt * gt).sum().backward()
    _close(x.grad, xt.grad, 1e-12)


# ---------------------------------------------------------------- regressions (harness findings)
def _graph_names(y):
    """Multiset of node names reachable from y.grad_fn (torch's prefix stripped)."""
    seen, out, stack = set(), [], [y.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f.name().replace("torch::autograd::", ""))
        stack.extend(g for g, _ in f.next_functions)
    return sorted(out)


def _mt(lib, shape, rg, dt="float32", seed=0):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    t = lib.tensor(arr).to(getattr(lib, dt))
    return t.requires_grad_() if rg else t


ZERO_K = [("linear", (0,), (3, 0), (3,)), ("linear", (4, 0), (3, 0), (3,)),
          ("linear", (2, 4, 0), (3, 0), (3,)), ("linear", (2, 4, 0), (3, 0), None),
          ("matmul", (5, 5, 0), (0, 5), None), ("matmul", (0, 0), (5, 0, 0), None),
          ("matmul", (3, 0), (2, 0, 4), None), ("matmul", (2, 3, 0), (2, 0, 4), None)]


@pytest.mark.parametrize("op,sa,sb,sc", ZERO_K, ids=[str(c) for c in ZERO_K])
def test_zero_size_contraction_matches_torch(op, sa, sb, sc):
    outs = {}
    for lib, f in ((torch, F), (mg, mg.nn.functional)):
        a, b = _mt(lib, sa, True), _mt(lib, sb, True)
        c = _mt(lib, sc, True, seed=1) if sc else None
        y = f.linear(a, b, c) if op == "linear" else lib.matmul(a, b)
        y.sum().backward()
        outs[lib] = (y, a.grad, b.grad, c.grad if c is not None else None, _graph_names(y))
    t, m = outs[torch], outs[mg]
    assert m[4] == t[4]
    for x, y in zip(m[:4], t[:4]):
        if y is not None:
            _close(x, y, 0.0)


MATMUL_GRAPHS = [((2, 3, 4), (2, 4, 5), 1, 1), ((2, 3, 4), (1, 4, 5), 1, 1),
                 ((5, 5, 5), (1, 5, 5), 1, 0), ((1, 5, 5), (5, 5, 5), 1, 1),
                 ((3, 4), (2, 4, 5), 0, 1), ((3, 4), (2, 4, 5), 1, 0), ((1, 3), (2, 3, 4), 1, 1),
                 ((3, 3), (2, 3, 1), 1, 1), ((4,), (2, 4, 5), 0, 1), ((4,), (2, 4, 5), 1, 1),
                 ((2, 2, 3, 4), (4,), 1, 0), ((5, 2, 3), (3, 4), 0, 1),
                 ((2, 5, 5, 5), (1, 5, 5), 1, 1), ((2, 1, 5, 5), (1, 3, 5, 5), 1, 1)]


@pytest.mark.parametrize("sa,sb,ra,rb", MATMUL_GRAPHS, ids=[str(c) for c in MATMUL_GRAPHS])
def test_matmul_graph_and_16bit_grads_match_torch(sa, sb, ra, rb):
    # torch's matmul folds / squeezes / expands per should_fold; the 16-bit gradient of a
    # broadcast operand is then bit-exact (one fp32-accumulated mm, or per-batch bmm + sum)
    for dt in ("float32", "float16", "bfloat16"):
        res = {}
        for lib in (torch, mg):
            a, b = _mt(lib, sa, ra, dt), _mt(lib, sb, rb, dt, seed=1)
            y = lib.matmul(a, b)
            g = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(np.float32)
            y.backward(lib.tensor(g).to(getattr(lib, dt)))
            res[lib] = (y, [x.grad for x in (a, b) if x.requires_grad], _graph_names(y))
        assert res[mg][2] == res[torch][2]
        if dt != "float32":
            _close(res[mg][0], res[torch][0], 0.0)
            for x, y in zip(res[mg][1], res[torch][1]):
                _close(x, y, 0.0)


@pytest.mark.parametrize("case", ["mm", "matmul", "matmul3", "bmm", "dot", "mv", "addmm",
                                  "linear", "linear_bias", "bool@u8", "mm_empty", "mm_k0"])
def test_linalg_bool_inputs_raise_like_torch(case):
    def run(lib, f):
        B = lib.bool
        o = lambda *s, dt=B: lib.ones(s, dtype=dt)  # noqa: E731
        mm = (lambda a, b: dispatch(case if case in ("bmm", "dot", "mv") else "mm", a, b)) \
            if lib is mg else getattr(torch, case if case in ("bmm", "dot", "mv") else "mm")
        calls = {"mm": lambda: mm(o(2, 2), o(2, 2)), "matmul": lambda: lib.matmul(o(2, 2), o(2, 2)),
                 "matmul3": lambda: lib.matmul(o(2, 2, 2), o(2, 2, 2)),
                 "bmm": lambda: mm(o(2, 2, 2), o(2, 2, 2)), "dot": lambda: mm(o(2), o(2)),
                 "mv": lambda: mm(o(2, 2), o(2)),
                 "addmm": lambda: lib.addmm(o(2, 2), o(2, 2), o(2, 2)),
                 "linear": lambda: f.linear(o(2, 2), o(3, 2)),
                 "linear_bias": lambda: f.linear(o(2,), o(3, 2), o(3)),
                 "bool@u8": lambda: lib.matmul(o(2, 2), o(2, 2, dt=lib.uint8)),
                 "mm_empty": lambda: mm(o(0, 2), o(2, 3)), "mm_k0": lambda: mm(o(2, 0), o(0, 3))}
        try:
            r = calls[case]()
            return ("ok", tuple(r.shape), np.asarray(r.tolist()).tolist())
        except Exception as e:  # noqa: BLE001 - compared with torch
            return (type(e), str(e))
    assert run(mg, mg.nn.functional) == run(torch, F)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dt,dim", [("int64", 1), ("int64", 0), ("bool", 1), ("uint8", -1),
                                    ("int32", 0)])
def test_softmax_integer_input_raises_not_implemented(fn, dt, dim):
    with pytest.raises(NotImplementedError) as tex:
        getattr(torch, fn)(torch.ones(2, 3, dtype=getattr(torch, dt)), dim)
    with pytest.raises(NotImplementedError) as mex:
        getattr(mg, fn)(mg.ones((2, 3), dtype=getattr(mg, dt)), dim)
    assert str(mex.value) == str(tex.value)
    # an empty integer input is returned as is, as in torch
    assert getattr(mg, fn)(mg.ones((0, 3), dtype=getattr(mg, dt)), 1).dtype.name == dt


CE_GRAPH = [((10,), (), dict(label_smoothing=0.1, ignore_index=0)),
            ((10,), (), dict(label_smoothing=0.1, ignore_index=3, weight=True)),
            ((6, 10), (6,), dict(label_smoothing=0.1, ignore_index=0, weight=True)),
            ((6, 10), "probs", {}), ((6, 10), "probs", dict(label_smoothing=0.2)),
            ((4, 10, 3), "probs", dict(label_smoothing=0.2, weight=True)),
            ((10,), "probs", dict(weight=True))]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape,tshape,kw", CE_GRAPH, ids=[str(c) for c in CE_GRAPH])
def test_cross_entropy_graph_and_values_match_torch(dt, reduction, shape, tshape, kw):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    c = shape[1] if len(shape) > 1 else shape[0]
    tgt = rng.random(shape).astype(np.float32) if tshape == "probs" else \
        np.asarray(rng.integers(0, c, tshape) if tshape else 0)
    w = rng.random(c).astype(np.float32)
    res = {}
    for lib, f in ((torch, F), (mg, mg.nn.functional)):
        xi = lib.tensor(x).to(getattr(lib, dt)).requires_grad_()
        ti = lib.tensor(tgt).to(getattr(lib, dt) if tshape == "probs" else lib.int64)
        k = dict(kw)
        if k.pop("weight", False):
            k["weight"] = lib.tensor(w).to(getattr(lib, dt))
        y = f.cross_entropy(xi, ti, reduction=reduction, **k)
        y.sum().backward()
        res[lib] = (y, xi.grad, _graph_names(y))
    assert res[mg][2] == res[torch][2]
    _close(res[mg][0], res[torch][0], _ulps(dt) * 4, 1e-7)
    _close(res[mg][1], res[torch][1], _ulps(dt) * 4, 1e-7)


def test_reshape_nodes_match_torch():
    cases = {"contiguous": lambda x: x.reshape(12), "copy": lambda x: x.t().reshape(12),
             "alias": lambda x: x.t().reshape(2, 2, 3),
             "expand_copy": lambda x: x.expand(2, 3, 4).reshape(6, 4),
             "expand_alias": lambda x: x.unsqueeze(0).expand(2, 3, 4).reshape(2, 12)}
    for name, f in cases.items():
        got = []
        for lib in (torch, mg):
            x = _mt(lib, (3, 4), True)
            y = f(x)
            (y * y).sum().backward()
            got.append((y.grad_fn.name(), y.grad_fn.next_functions[0][0].name().split("::")[-1],
                        _np(y).tolist(), _np(x.grad).tolist()))
        assert got[0] == got[1], name


@pytest.mark.parametrize("dt", ["uint8", "int8", "int64"])
def test_addmm_integer_alpha_beta_like_torch(dt):
    # c10 checked_convert: floats truncate, out-of-range raises, uint8 wraps negative ints;
    # an empty output or an empty contraction returns before the conversion
    def run(lib, a, b, shapes):
        o = lambda *s: lib.ones(s, dtype=getattr(lib, dt))  # noqa: E731
        try:
            return lib.addmm(o(*shapes[0]) * 3, o(*shapes[1]), o(*shapes[2]), alpha=a,
                             beta=b).tolist()
        except Exception as e:  # noqa: BLE001 - compared with torch
            return (type(e), str(e))
    for a, b in [(-0.5, 1), (2.5, 1), (1, -0.5), (-1, 1), (1, 2.5), (300, 1), (-255, 1),
                 (1, -256), (127.5, 1), (0, 0)]:
        for shapes in [((2, 2), (2, 2), (2, 2)), ((2, 2), (2, 0), (0, 2)), ((0,), (4, 0), (0, 0))]:
            assert run(mg, a, b, shapes) == run(torch, a, b, shapes), (a, b, shapes)


def test_bmm_bool_checked_before_dtype_like_torch():
    for lib in (torch, mg):
        bmm = torch.bmm if lib is torch else (lambda a, b: dispatch("bmm", a, b))
        with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
            bmm(lib.ones((1, 1, 1), dtype=lib.bool), lib.ones((1, 1, 2), dtype=lib.uint8))
        with pytest.raises(RuntimeError, match="expected scalar type Byte but found Bool"):
            bmm(lib.ones((1, 1, 1), dtype=lib.uint8), lib.ones((1, 1, 2), dtype=lib.bool))


@pytest.mark.parametrize("n, ia, ib, isx", [(3, 0, 1, 2), (16, 0, 8, 1), (64, 0, 32, 1)])
def test_log_softmax_backward_fp32_fma_rounds_once_on_a_halfway_point(n, ia, ib, isx):
    """fp32 log_softmax backward along the last dim is ``fma(-exp(y), sum(g), g)`` in PyTorch's
    vectorised kernel: one rounding. With g = 1 + 2**-23 where exp(y) = 1 + 2**-20 and
    sum(g) = 2**-24 (1 - 2**-20), the exact result is just above the fp32 halfway point
    1 + 2**-24; its float64 rounding lands on that point, and a second rounding breaks the tie
    to even (0x3F800000) where torch gives 0x3F800001."""
    f = np.float32
    a, s = f(1 + 2 ** -23), f(2 ** -24 * (1 - 2 ** -20))
    g = np.zeros((1, n), f)
    g[0, ia] += a
    g[0, ib] += -a
    g[0, isx] += s
    y = np.zeros((1, n), f)
    y[0, ia] = f(2 ** -20)
    want = torch.ops.aten._log_softmax_backward_data(torch.tensor(g), torch.tensor(y), 1,
                                                     torch.float32).numpy()
    got = mg.dispatch.dispatch("_log_softmax_backward_data", mg.tensor(g), mg.tensor(y), 1,
                               mg.float32).numpy()
    assert want.view(np.uint32)[0, ia] == 0x3F800001
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
