"""The autocast tables against PyTorch 2.13: its registration lists, its own autocast test lists,
and coverage of every op minigrad registers."""
from __future__ import annotations

import pytest
import torch
from torch.testing._internal import autocast_test_lists as atl

import amp_emu
import minigrad as mg
from amp_emu.policy import CastCategory as C, TORCH_KERNELS, get_policy, explain
from minigrad.dispatch import registered_ops

import optim  # noqa: F401  (registers nothing today, but any op it may register is covered)
import amp_emu.grad_scaler  # noqa: F401  (registers the two _amp_* kernels)

DT = {torch.float32: mg.float32, torch.float16: mg.float16, torch.bfloat16: mg.bfloat16,
      torch.float64: mg.float64, torch.int64: mg.int64, torch.int32: mg.int32,
      torch.bool: mg.bool_}


@pytest.mark.parametrize("dev,key", [("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")])
def test_kernel_names_equal_torch_registrations(dev, key):
    reg = {n.split("::", 1)[1] for n in torch._C._dispatch_get_registrations_for_dispatch_key(key)}
    assert set(TORCH_KERNELS[dev]) == reg


def test_list_sizes_match_the_facts():
    cpu, cuda = TORCH_KERNELS["cpu"], TORCH_KERNELS["cuda"]
    count = lambda tab, c: sum(v is c for v in tab.values())  # noqa: E731
    assert (count(cpu, C.LOWER_PRECISION_FP), count(cpu, C.FP32), count(cpu, C.PROMOTE)) == \
        (24, 100, 3)
    assert len(cuda) == 119
    assert count(cuda, C.BANNED) == 1 and count(cuda, C.FP32_APPEND_DTYPE) == 2
    assert count(cuda, C.PROMOTE) == 11


def test_every_registered_op_is_in_both_tables():
    missing = {dev: [op for op in registered_ops() if not get_policy(dev).knows(op)]
               for dev in ("cpu", "cuda")}
    assert missing == {"cpu": [], "cuda": []}


def _spec(args):
    """Per positional argument: a minigrad dtype, a tuple of them (tensor lists) or None."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append(DT[a.dtype])
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, torch.Tensor) for x in a):
            out.append(tuple(DT[x.dtype] for x in a))
        else:
            out.append(None)
    return out


_METHOD = {"__matmul__": "matmul", "__pow__": "pow"}


def _entries(lists, names):
    for name in names:
        for e in getattr(lists, name):
            yield name, e[0], (e[1] if not isinstance(e[1], str) else (e[1], e[2]))


def test_cuda_table_against_torch_autocast_test_lists():
    lists = atl.AutocastTestLists("cpu")      # the argument tensors are built on CPU
    checked = 0
    for lst, op, args in _entries(lists, ["torch_fp16", "nn_fp16", "linalg_fp16",
                                          "methods_fp16"]):
        d = explain(_METHOD.get(op, op), *_spec(args), device_type="cuda")
        assert d.category is C.LOWER_PRECISION_FP, (lst, op)
        assert d.output_dtype is mg.float16 and d.error is None, (lst, op, d)
        checked += 1
    for lst, op, args in _entries(lists, ["torch_fp32", "nn_fp32", "methods_fp32"]):
        d = explain(_METHOD.get(op, op), *_spec(args), device_type="cuda")
        assert d.output_dtype is mg.float32 and d.error is None, (lst, op, d)
        checked += 1
    for _, op, args in _entries(lists, ["torch_need_autocast_promote"]):
        d = explain(op, *_spec(args), device_type="cuda")
        assert d.category is C.PROMOTE and d.output_dtype is mg.float32, (op, d)
        checked += 1
    for _, op, args in _entries(lists, ["banned"]):
        d = explain(op, *_spec(args), device_type="cuda")
        assert d.category is C.BANNED and "unsafe to autocast" in d.error
        checked += 1
    for _, op, args in _entries(lists, ["torch_expect_builtin_promote"]):
        if op == "equal":
            continue
        d = explain(op, *_spec(args), device_type="cuda")
        exp = {"eq": mg.bool_, "ge": mg.bool_, "gt": mg.bool_, "le": mg.bool_, "lt": mg.bool_,
               "ne": mg.bool_}.get(op, mg.float32)
        if op in ("cat", "stack"):
            assert d.category is C.UNTOUCHED
        assert d.output_dtype is exp, (op, d)
        checked += 1
    assert checked > 90


@pytest.mark.parametrize("low", [mg.bfloat16, mg.float16])
def test_cpu_table_against_torch_autocast_test_lists(low):
    lists = atl.AutocastCPUTestLists("cpu")
    for lst, op, args in _entries(lists, ["torch_16", "nn_16"]):
        d = explain(op, *_spec(args), device_type="cpu", dtype=low)
        assert d.category is C.LOWER_PRECISION_FP and d.output_dtype is low, (lst, op, d)
    for lst, op, args in _entries(lists, ["torch_fp32", "nn_fp32"]):
        d = explain(op, *_spec(args), device_type="cpu", dtype=low)
        assert d.category is C.FP32 and d.output_dtype is mg.float32, (lst, op, d)
    for e in lists.torch_need_autocast_promote:
        op, bf_args, f16_args = e
        args = bf_args if low is mg.bfloat16 else f16_args
        d = explain(op, *_spec(args), device_type="cpu", dtype=low)
        assert d.category is C.PROMOTE and d.output_dtype is mg.float32
        # the same inputs in a region of the *other* 16-bit dtype hit torch's prioritize error
        other = mg.float16 if low is mg.bfloat16 else mg.bfloat16
        d2 = explain(op, *_spec(args), device_type="cpu", dtype=other)
        assert d2.error == "Unexpected floating ScalarType in at::autocast::prioritize"


def test_explain_matches_facts_section_1_4():
    bf, f32, f64, i64 = mg.bfloat16, mg.float32, mg.float64, mg.int64
    e = lambda op, *a, **k: explain(op, *a, device_type="cpu", **k)  # noqa: E731
    assert e("mm", f32, f32).output_dtype is bf
    assert e("mm", bf, f32).output_dtype is bf
    assert e("mm", f64, f64).output_dtype is f64
    assert e("mm", f64, f32).error is not None                 # f32 cast, f64 not: mismatch
    assert e("mm", i64, i64).output_dtype is i64
    assert e("mm", i64, f32).error is not None
    assert e("mm", mg.float16, mg.float16).output_dtype is bf     # other 16-bit recast
    assert e("softmax", bf, None).output_dtype is bf              # not listed on cpu
    assert e("cross_entropy", bf, i64).output_dtype is f32
    assert e("mse_loss", mg.float16, mg.float16).output_dtype is f32
    assert e("mse_loss", f64, f32).output_dtype is f64
    assert e("cat", [bf, f64]).output_dtype is f64
    assert e("cat", [bf, f32]).output_dtype is f32
    assert e("add", bf, f32).output_dtype is f32
    assert e("exp", mg.float16).output_dtype is mg.float16
    c = lambda op, *a, **k: explain(op, *a, device_type="cuda", **k)  # noqa: E731
    assert c("softmax", mg.float16, None).dtype_kwarg is f32
    assert c("softmax", mg.float16, None, dtype_kwarg=mg.float16).output_dtype is mg.float16
    assert c("softmax", f64, None).output_dtype is f64
    assert c("sum", mg.float16).output_dtype is f32
    assert c("cross_entropy", mg.float16, i64).output_dtype is f32
    assert c("binary_cross_entropy", f32, f32).error.startswith(
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.")


def test_policy_is_editable_and_copies_are_independent():
    p = amp_emu.get_policy("cpu")
    assert p.category("softmax") is C.UNTOUCHED
    p.set("softmax", C.FP32).move("mm", "fp32")
    assert p.category("softmax") is C.FP32 and p.category("mm") is C.FP32
    assert get_policy("cpu").category("mm") is C.LOWER_PRECISION_FP
    q = p.copy().set("mm", C.LOWER_PRECISION_FP)
    assert p.category("mm") is C.FP32 and q.category("mm") is C.LOWER_PRECISION_FP
    assert "softmax" in p.ops(C.FP32)
    assert p.explain("mm", mg.bfloat16, mg.bfloat16).output_dtype is mg.float32
    user = amp_emu.Policy("mydev", table={"mm": C.LOWER_PRECISION_FP}, default_dtype=mg.float16)
    assert user.explain("mm", mg.float32, mg.float32).output_dtype is mg.float16
    with pytest.raises(ValueError):
        amp_emu.Policy("tpu")
