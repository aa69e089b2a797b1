"""Op names as PyTorch's dispatcher has them: overloads registered under explicit names, overload
packets resolved before the modes, a name registered once, and the kernels a dispatch mode sees
for an expression equal to those a ``TorchDispatchMode`` sees in PyTorch 2.13.
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as tF
from torch.utils._python_dispatch import TorchDispatchMode

import minigrad as mg
import minigrad.dispatch as D
import minigrad.nn.functional as F
from minigrad.testing import to_torch


class _Record(D.DispatchMode):
    def __init__(self):
        self.names = []

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        self.names.append(op_name)
        return call_next(args, kwargs)


class _TorchRecord(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func).removeprefix("aten.").removesuffix(".default")
        if name != "detach":
            self.names.append(name)
        return func(*args, **(kwargs or {}))


def _same_op(ours, theirs):
    """An op registered once (no overload in its name) stands for all of PyTorch's overloads."""
    return ours == theirs or ("." not in ours and theirs.split(".")[0] == ours)


def _is_subsequence(theirs, ours):
    it = iter(ours)
    return all(any(_same_op(o, t) for o in it) for t in theirs)


def test_subsequence_rule_can_fail():
    assert _is_subsequence(["_softmax"], ["softmax", "_softmax"])
    assert _is_subsequence(["add.Tensor"], ["add"])
    assert not _is_subsequence(["div.Tensor_mode"], ["div.Tensor"])
    assert not _is_subsequence(["_softmax"], ["softmax"])


# expression over (lib, F, x, t): x float (3, 4), t int64 class targets (3,)
CASES = {
    "div": lambda lib, F, x, t: lib.div(x, x),
    "div_scalar": lambda lib, F, x, t: x / 2,
    "div_floor": lambda lib, F, x, t: lib.div(x, 2, rounding_mode="floor"),
    "div_trunc_tensor": lambda lib, F, x, t: lib.div(x, x, rounding_mode="trunc"),
    "div_method": lambda lib, F, x, t: x.div(x),
    "true_divide": lambda lib, F, x, t: lib.true_divide(x, x) if lib is torch else
    D.dispatch("true_divide", x, x),
    "pow_tensor_scalar": lambda lib, F, x, t: x ** 2,
    "pow_tensor_tensor": lambda lib, F, x, t: x ** x,
    "pow_scalar": lambda lib, F, x, t: 2 ** x,
    "pow_fn_scalar": lambda lib, F, x, t: lib.pow(3, x),
    "rsub_scalar": lambda lib, F, x, t: 1 - x,
    "rsub_tensor": lambda lib, F, x, t: lib.rsub(x, x),
    "add_scalar": lambda lib, F, x, t: x + 1,
    "softmax": lambda lib, F, x, t: lib.softmax(x, 1),
    "F.softmax": lambda lib, F, x, t: F.softmax(x, -1),
    "softmax_dtype": lambda lib, F, x, t: lib.softmax(x, 1, dtype=lib.float64),
    "log_softmax": lambda lib, F, x, t: x.log_softmax(1),
    "cross_entropy": lambda lib, F, x, t: F.cross_entropy(x, t),
    "nll_loss": lambda lib, F, x, t: F.nll_loss(x, t),
    "nll_loss_4d": lambda lib, F, x, t: F.nll_loss(x.reshape(3, 4, 1, 1), t.reshape(3, 1, 1)),
    "mse_loss": lambda lib, F, x, t: F.mse_loss(x, x * 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_modes_see_torchs_kernels(case):
    fn = CASES[case]
    x = mg.randn(3, 4)
    t = mg.tensor([0, 3, 1])
    rec = _Record()
    with rec:
        fn(mg, F, x, t)
    tx, tt = to_torch(x), to_torch(t)
    trec = _TorchRecord()
    with trec:
        fn(torch, tF, tx, tt)
    assert _is_subsequence(trec.names, rec.names), (trec.names, rec.names)


@pytest.mark.parametrize("expr, overload", [
    (lambda x: x / x, "div.Tensor"), (lambda x: mg.div(x, 2, rounding_mode="floor"),
                                      "div.Tensor_mode"),
    (lambda x: x ** 2, "pow.Tensor_Scalar"), (lambda x: x ** x, "pow.Tensor_Tensor"),
    (lambda x: 2 ** x, "pow.Scalar"), (lambda x: 1 - x, "rsub.Scalar"),
    (lambda x: mg.rsub(x, x), "rsub.Tensor"),
])
def test_packets_resolve_before_the_modes(expr, overload):
    x = mg.rand(3)
    rec = _Record()
    with rec:
        expr(x)
    assert rec.names[0] == overload
    assert overload in D.registered_ops()
    assert overload.split(".")[0] in D.registered_packets()


def test_resolve_names_the_overload():
    x = mg.rand(2)
    assert D.resolve("div", (x, x), {"rounding_mode": "trunc"})[0] == "div.Tensor_mode"
    assert D.resolve("div", (x, x), {"rounding_mode": None})[0] == "div.Tensor"
    assert D.resolve("rpow", (x, 2.0))[:2] == ("pow.Scalar", (2.0, x))
    assert D.resolve("mm", (x, x))[0] == "mm"
    with pytest.raises(NotImplementedError, match="no op named 'no_such_op'"):
        D.resolve("no_such_op")


def test_a_name_is_registered_once():
    name = "_test_only_dup_op"
    try:
        D.register_op(name, lambda x: x)
        with pytest.raises(RuntimeError, match="already registered"):
            D.register_op(name, lambda x: x)
        with pytest.raises(RuntimeError, match="already registered"):
            D.register_packet(name, lambda a, k: (name, a, k))
        with pytest.raises(RuntimeError, match="already registered"):
            D.register_packet("div", lambda a, k: ("div.Tensor", a, k))
        with pytest.raises(RuntimeError, match="already registered"):
            D.register_op("div.Tensor", lambda x: x)
    finally:
        D._unregister_op(name)


def test_registered_names_are_torchs():
    """Every registered overload name exists in PyTorch (``torch.ops.aten.<op>.<overload>``);
    plain names are checked by the catalogue rule (tests/unit/test_catalogue.py)."""
    wrong = []
    for name in D.registered_ops():
        if "." not in name:
            continue
        base, overload = name.split(".", 1)
        packet = getattr(torch.ops.aten, base, None)
        if packet is None or overload not in packet.overloads():
            wrong.append(name)
    assert not wrong


def test_softmax_half_to_float_is_refused_on_cpu():
    x = mg.rand(2, 3).half()
    with pytest.raises(RuntimeError, match="half to float conversion is not supported on CPU"):
        D.dispatch("_softmax", x, 1, True)
    with pytest.raises(RuntimeError, match="half to float conversion is not supported on CPU"):
        torch._softmax(to_torch(x), 1, True)
