"""The kernel base (``minigrad/ops/kernel.py``): every elementwise op declares a rule, and each
rule gives PyTorch's result dtype and rounding. Kernels defined here (not registered) are compared
with the torch op that has the same rule."""
import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import dispatch as D
from minigrad.ops import kernel as K
from minigrad.testing import from_torch, to_torch

# the elementwise ops that must be declared on the kernel base (a name PyTorch has; its rule)
DECLARED = {
    "neg": K.KEEP_DTYPE, "abs": K.KEEP_DTYPE, "relu": K.KEEP_DTYPE, "sign": K.PROMOTE_OPMATH,
    "reciprocal": K.FLOAT_OPMATH, "sqrt": K.FLOAT_OPMATH, "sigmoid": K.FLOAT_OPMATH,
    "exp": K.FLOAT_FP64, "log": K.FLOAT_FP64, "tanh": K.FLOAT_FP64,
    "add": K.PROMOTE_OPMATH, "sub": K.PROMOTE_OPMATH, "rsub.Scalar": K.PROMOTE_OPMATH,
    "mul": K.SCALAR_OPMATH, "div.Tensor": K.TRUE_DIVIDE, "div.Tensor_mode": K.SCALAR_OPMATH,
    "maximum": K.PROMOTE_OPMATH, "minimum": K.PROMOTE_OPMATH,
    "tanh_backward": K.PROMOTE_OPMATH, "sigmoid_backward": K.PROMOTE_OPMATH,
    "threshold_backward": K.EXACT,
    "eq": K.BOOL_RESULT, "ne": K.BOOL_RESULT, "lt": K.BOOL_RESULT, "le": K.BOOL_RESULT,
    "gt": K.BOOL_RESULT, "ge": K.BOOL_RESULT,
    "isfinite": K.BOOL_RESULT, "isnan": K.BOOL_RESULT, "isinf": K.BOOL_RESULT,
    "logical_not": K.BOOL_RESULT, "logical_and": K.BOOL_RESULT, "logical_or": K.BOOL_RESULT,
    "pow.Tensor_Scalar": K.PROMOTE_OPMATH, "pow.Tensor_Tensor": K.PROMOTE_OPMATH,
    "pow.Scalar": K.PROMOTE_OPMATH, "remainder": K.ROUNDED_SCALAR, "fmod": K.ROUNDED_SCALAR,
    "bitwise_and": K.EXACT, "bitwise_or": K.EXACT, "bitwise_xor": K.EXACT,
    "bitwise_left_shift": K.EXACT, "bitwise_right_shift": K.EXACT,
    "bitwise_not": K.KEEP_DTYPE, "clamp": K.PROMOTE_OPMATH,
}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_op_declares_its_rule(name):
    op = D.get_op(name)
    assert op.rule is DECLARED[name]
    if isinstance(op, type):
        assert issubclass(op, K.Kernel)


def test_every_kernel_subclass_has_a_rule_and_a_kernel():
    for name in D.registered_ops():
        op = D.get_op(name)
        if isinstance(op, type) and issubclass(op, K.Kernel):
            assert isinstance(op.rule, K.Rule), name
            assert op.kernel is not K.Kernel.kernel or op.forward is not K.Kernel.forward, name


# ------------------------------------------------------------ rules against torch, via new ops
class _Fma(K.Kernel):
    """x * 3 + 1 computed in opmath and rounded once (the shape of every PyTorch kernel)."""
    rule = K.PROMOTE_OPMATH

    @staticmethod
    def kernel(dtype, a):
        return a * np.float32(3) + np.float32(1) if a.dtype == np.float32 else a * 3 + 1


def test_round_once_in_opmath():
    # 16-bit: fp32 maths then one rounding, checked against maths (NumPy in fp32 and one cast)
    for dt, npd in ((mg.float16, np.float16), (mg.bfloat16, mg.bfloat16.np)):
        x = mg.randn(1000).to(dt)
        got = _Fma.apply(x)
        assert got.dtype is dt
        want = (x._data.astype(np.float32) * np.float32(3) + np.float32(1)).astype(npd)
        assert np.array_equal(got._data.view(np.uint16), want.view(np.uint16))


class _Sqrt(K.Kernel):
    rule = K.FLOAT_OPMATH

    @staticmethod
    def kernel(dtype, a):
        return np.sqrt(a)


class _Abs(K.Kernel):
    rule = K.KEEP_DTYPE

    @staticmethod
    def kernel(dtype, a):
        return np.abs(a)


class _Less(K.Kernel):
    rule = K.BOOL_RESULT
    operands = 2

    @staticmethod
    def kernel(dtype, a, b):
        return a < b


class _Add(K.Kernel):
    rule = K.PROMOTE_OPMATH
    operands = 2

    @staticmethod
    def kernel(dtype, a, b):
        return a + b


class _Mul(K.Kernel):
    rule = K.SCALAR_OPMATH
    operands = 2

    @staticmethod
    def kernel(dtype, a, b):
        return a * b


DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def _pair(dt):
    t = torch.tensor([0.0, 1.5, 2.0, 7.0]).to(getattr(torch, dt))
    return t, from_torch(t)


@pytest.mark.parametrize("dt", DTYPES)
def test_unary_rules_give_torch_dtypes(dt):
    t, m = _pair(dt)
    assert _Sqrt.apply(m).dtype.name == str(torch.sqrt(t).dtype).split(".")[1]
    if dt != "bool":
        assert _Abs.apply(m).dtype.name == str(torch.abs(t).dtype).split(".")[1]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_binary_rules_give_torch_dtypes_and_values(a, b):
    ta, ma = _pair(a)
    tb, mb = _pair(b)
    assert _Less.apply(ma, mb).dtype is mg.bool_
    assert np.array_equal(_Less.apply(ma, mb)._data, torch.lt(ta, tb).numpy())
    if "bool" in (a, b):
        return
    want = torch.add(ta, tb)
    got = _Add.apply(ma, mb)
    assert got.dtype.name == str(want.dtype).split(".")[1]
    assert torch.equal(to_torch(got), want)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("s", [0.1, 1 / 3, 1e-5, 3.0001])
def test_scalar_rules_match_torch(dt, s):
    """add rounds a number to the 16-bit dtype first; mul takes it (and a 0-dim fp32 tensor)
    unrounded in fp32."""
    t = torch.linspace(-4, 4, 257).to(getattr(torch, dt))
    m = from_torch(t)
    assert torch.equal(to_torch(_Add.apply(m, s)), t + s)
    assert torch.equal(to_torch(_Mul.apply(m, s)), t * s)
    z = torch.tensor(s)
    assert torch.equal(to_torch(_Mul.apply(m, from_torch(z))), t * z)


def test_operand_errors_are_torch_types():
    with pytest.raises(TypeError, match="argument 'input'"):
        _Add.apply(1.0, mg.ones(2))
    with pytest.raises(TypeError, match="must be Tensor or Number"):
        _Add.apply(mg.ones(2), "x")
    with pytest.raises(RuntimeError, match="must match the size"):
        _Add.apply(mg.ones(2), mg.ones(3))


def test_saves_and_keeps_are_declared_by_name():
    class _Scale(K.Kernel):
        rule = K.PROMOTE_OPMATH
        args = ("input", "factor")
        saves = ("input", "result")
        keeps = ("factor",)

        @staticmethod
        def kernel(dtype, a, factor):
            return a * factor

        @staticmethod
        def backward(ctx, grad):
            x, out = ctx.saved_tensors
            assert out.shape == x.shape
            return grad * ctx.factor, None

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = _Scale.apply(x, 3.0)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


FAST_CASES = [("mul", 2), ("add", 2), ("div", 2), ("sub", 2), ("maximum", 2), ("eq", 2),
              ("lt", 2), ("remainder", 2), ("pow", 2), ("sqrt", 1), ("exp", 1), ("log", 1),
              ("tanh", 1), ("sigmoid", 1), ("relu", 1), ("neg", 1), ("abs", 1), ("sign", 1),
              ("reciprocal", 1), ("bitwise_and", 2), ("logical_and", 2), ("isfinite", 1)]


@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "int32", "bool"])
@pytest.mark.parametrize("name,n", FAST_CASES)
def test_fast_path_agrees_with_the_general_path(name, n, dt, monkeypatch):
    rng = np.random.default_rng(0)
    vals = [rng.normal(size=(3, 4)) * 4 for _ in range(n)]
    ops = [mg.tensor(v).to(getattr(mg, dt)) for v in vals]
    if dt == "bool" and name in ("sub", "neg", "abs", "relu", "pow", "remainder", "div",
                                  "bitwise_and"):
        return
    if name in ("bitwise_and",) and dt.startswith("float"):
        return
    if name == "remainder" and not dt.startswith("float"):
        ops[1] = ops[1].abs() + 1
    fast = D.dispatch(name, *ops)
    monkeypatch.setattr(K.Rule, "_fast_load", lambda self, operands: None)
    slow = D.dispatch(name, *ops)
    assert fast.dtype is slow.dtype
    assert np.array_equal(fast._data, slow._data, equal_nan=True)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", ["mul", "add", "sub", "div", "eq", "lt", "maximum", "pow",
                                  "remainder", "rsub"])
@pytest.mark.parametrize("s", [2, -3, 0.1, 1e-30, 3.5e38, float("inf"), float("nan")])
def test_fast_number_path_agrees_with_the_general_path(name, dt, s, monkeypatch):
    x = mg.tensor([[-2.5, 0.0, 1.0, 7.0], [3.0, -0.0, 1e-3, 1e30]]).to(getattr(mg, dt))
    if name == "maximum":
        return      # maximum takes no number (a TypeError on both paths)
    fast = D.dispatch(name, x, s)
    monkeypatch.setattr(K.Rule, "_fast_load", lambda self, operands: None)
    slow = D.dispatch(name, x, s)
    assert fast.dtype is slow.dtype
    assert np.array_equal(fast._data, slow._data, equal_nan=True)


@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "float16", "bfloat16"])
@pytest.mark.parametrize("other", [2, -3, 0.1, 1e-30, 3.5e38, 10 ** 40, float("inf"),
                                   float("nan"), True, "tensor", "tensor0d"])
@pytest.mark.parametrize("shape", [(2, 4), ()])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_add_mul_fast_paths_agree_with_the_kernel_base(op, dt, other, shape):
    """``Add.forward``'s and ``Mul.forward``'s own fast paths (same dtype and shape; add: a
    Python number) give what the kernel base's general path gives, bit for bit and dtype for
    dtype, without a warning."""
    import warnings
    from minigrad.ops._binary import add_kernel
    from minigrad.ops.elementwise import Add, Mul, _mul_kernel
    general = (lambda a, b: Add.rule.run(add_kernel, (a, b), (1,), op="add")) if op == "add" \
        else (lambda a, b: Mul.rule.run(_mul_kernel, (a, b), op="mul"))
    rng = np.random.default_rng(1)
    vals = np.array([-np.inf, -2.5, 0.0, -0.0, 1e-3, 7.0, 1e30, np.nan])
    x = mg.tensor(vals[:int(np.prod(shape))].reshape(shape) if shape else vals[1])
    x = x.to(getattr(mg, dt))
    if other == "tensor":
        other = mg.tensor(rng.normal(size=shape) * 1e38).to(x.dtype)
    elif other == "tensor0d":
        other = mg.tensor(-np.inf).to(x.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            fast = getattr(mg, op)(x, other)
        except Exception as e:      # (e.g. 10**40 into an integer tensor): the same error
            with pytest.raises(type(e)):
                general(x, other)
            return
        slow = general(x, other)
    assert fast.dtype is slow.dtype
    assert fast._data.shape == slow._data.shape
    assert np.array_equal(fast._data.reshape(-1).view(np.uint8),
                          slow._data.reshape(-1).view(np.uint8))
