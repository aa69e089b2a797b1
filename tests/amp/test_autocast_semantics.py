"""autocast semantics: state, nesting, errors, weight-cast cache, backward, custom_fwd/bwd."""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import torch

import amp_emu
import minigrad as mg
from amp_emu import autocast, custom_bwd, custom_fwd
from amp_emu.autocast import _state as _autocast_state
from minigrad.dispatch import current_modes

W = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
X = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)


def _pair(arr, grad=True):
    return (mg.tensor(arr, requires_grad=grad), torch.tensor(arr, requires_grad=grad))


def _cast_node(y, i=1):
    """The node feeding input ``i`` of ``y``'s mm node (the ToCopyBackward0 of the cast)."""
    return y.grad_fn.next_functions[i][0]


# ---------------------------------------------------------------- state and nesting
def test_alias_and_defaults():
    assert mg.autocast is autocast
    assert amp_emu.get_autocast_dtype("cpu") is mg.bfloat16
    assert amp_emu.get_autocast_dtype("cuda") is mg.float16
    assert not amp_emu.is_autocast_enabled("cpu") and amp_emu.is_autocast_cache_enabled()
    with pytest.raises(RuntimeError) as et:          # an unknown device type: torch's parser
        torch.autocast("tpu")
    with pytest.raises(RuntimeError) as em:
        autocast("tpu")
    assert str(em.value) == str(et.value)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'mps'"):
        autocast("mps")                             # a device type minigrad does not emulate
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        autocast(3)


def test_nesting_restores_state_and_inner_inherits_dtype():
    with autocast("cpu", dtype=mg.float16):
        with autocast("cpu"):                       # dtype=None: inherits fp16, as torch
            assert amp_emu.get_autocast_dtype("cpu") is mg.float16
            with autocast("cpu", enabled=False, cache_enabled=False):
                assert not amp_emu.is_autocast_enabled("cpu")
                assert not amp_emu.is_autocast_cache_enabled()
            assert amp_emu.is_autocast_enabled("cpu") and amp_emu.is_autocast_cache_enabled()
        with autocast("cuda"):
            assert amp_emu.is_autocast_enabled("cuda")
            assert mg.mm(mg.randn(2, 2), mg.randn(2, 2)).dtype is mg.float16   # cuda table
    assert not amp_emu.is_autocast_enabled("cpu") and not amp_emu.is_autocast_enabled("cuda")
    assert amp_emu.get_autocast_dtype("cpu") is mg.bfloat16 and current_modes() == ()


def test_state_restored_after_exception_and_thread_local():
    with pytest.raises(KeyError):
        with autocast("cpu"):
            raise KeyError
    assert current_modes() == () and not amp_emu.is_autocast_enabled("cpu")
    seen = []
    with autocast("cpu"):
        th = threading.Thread(target=lambda: seen.append(amp_emu.is_autocast_enabled("cpu")))
        th.start()
        th.join()
    assert seen == [False]


def test_decorator_form():
    @autocast("cpu")
    def f(a, b):
        return mg.mm(a, b)
    assert f(mg.randn(2, 2), mg.randn(2, 2)).dtype is mg.bfloat16
    assert not amp_emu.is_autocast_enabled("cpu")


def test_cpu_unsupported_dtype_warns_like_torch_and_disables():
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        with torch.autocast("cpu", dtype=torch.float32):
            t_inside = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    with warnings.catch_warnings(record=True) as mw:
        warnings.simplefilter("always")
        with autocast("cpu", dtype=mg.float32):
            m_inside = (amp_emu.is_autocast_enabled("cpu"), amp_emu.get_autocast_dtype("cpu"))
            assert mg.mm(mg.randn(2, 2), mg.randn(2, 2)).dtype is mg.float32
    assert str(mw[0].message) == str(tw[0].message)
    assert m_inside == (False, mg.float32) and t_inside == (False, torch.float32)


def test_enabled_false_region_errors_on_mixed_inputs_like_torch():
    mw, tw = _pair(W)
    with autocast("cpu"):
        m_act = mg.mm(mg.tensor(X), mw)
        with autocast("cpu", enabled=False):
            with pytest.raises(RuntimeError):
                mg.mm(m_act, mw)
            assert mg.mm(m_act.float(), mw).dtype is mg.float32
    with torch.autocast("cpu"):
        t_act = torch.mm(torch.tensor(X), tw)
        with torch.autocast("cpu", enabled=False), pytest.raises(RuntimeError):
            torch.mm(t_act, tw)


# ---------------------------------------------------------------- promote / banned / opt dtype
def test_promote_prioritize_error_is_order_dependent_like_torch():
    msg = "Unexpected floating ScalarType in at::autocast::prioritize"
    h, f = mg.randn(3).half(), mg.randn(3)
    th, tf = torch.randn(3).half(), torch.randn(3)
    with autocast("cpu"), torch.autocast("cpu"):
        with pytest.raises(RuntimeError, match=msg):
            mg.cat([h, f])
        with pytest.raises(RuntimeError, match=msg):
            torch.cat([th, tf])
        assert mg.cat([f, h]).dtype is mg.float32 and torch.cat([tf, th]).dtype is torch.float32
        assert mg.cat([f.bfloat16(), f.bfloat16()]).dtype is mg.bfloat16


def test_banned_binary_cross_entropy_on_cuda():
    a = mg.rand(4, device="cuda")
    with autocast("cuda"), pytest.raises(RuntimeError, match="unsafe to autocast") as ei:
        mg.dispatch.dispatch("binary_cross_entropy", a, a)
    assert "binary_cross_entropy_with_logits" in str(ei.value)


def test_cuda_fp32_set_opt_dtype():
    x = mg.randn(3, 4).half().cuda()
    with autocast("cuda"):
        assert mg.softmax(x, -1).dtype is mg.float32
        assert mg.softmax(x, -1, dtype=mg.float16).dtype is mg.float16
        assert x.sum().dtype is mg.float32
        assert mg.softmax(x.double(), -1).dtype is mg.float64
        assert (x + x).dtype is mg.float16                           # untouched
    with autocast("cpu", dtype=mg.float16):
        assert mg.softmax(x.cpu(), -1).dtype is mg.float16           # not listed on cpu


def test_user_policy_moves_an_op():
    p = amp_emu.get_policy("cpu").set("softmax", "fp32").set("mm", "fp32")
    x = mg.randn(3, 4).bfloat16()
    with autocast("cpu", policy=p):
        assert mg.softmax(x, -1).dtype is mg.float32
        assert mg.mm(x, x.t()).dtype is mg.float32
    with autocast("cpu"):
        assert mg.mm(x, x.t()).dtype is mg.bfloat16


# ---------------------------------------------------------------- weight-cast cache
def test_cache_reuse_in_region_fresh_after_outermost_exit():
    w = mg.tensor(W, requires_grad=True)
    x = mg.tensor(X)
    with autocast("cpu"):
        y1, y2 = mg.mm(x, w), mg.mm(x, w)
        assert _cast_node(y1) is _cast_node(y2)
        assert [k[1] for k in _autocast_state.cache] == [mg.bfloat16]  # only w (x: no grad)
        with autocast("cpu"):
            assert _cast_node(mg.mm(x, w)) is _cast_node(y1)  # inner region reuses
        with autocast("cpu", enabled=False):
            pass                                              # not outermost: cache kept
        assert _cast_node(mg.mm(x, w)) is _cast_node(y1)
    with autocast("cpu"):
        assert _cast_node(mg.mm(x, w)) is not _cast_node(y1)


def test_cache_skips_views_nonleaves_and_disabled_cache():
    w = mg.tensor(W, requires_grad=True)
    x = mg.tensor(X)
    with autocast("cpu"):
        wt = w.t()
        assert _cast_node(mg.mm(x, wt)) is not _cast_node(mg.mm(x, wt))
        w2 = w * 1.0
        assert _cast_node(mg.mm(x, w2)) is not _cast_node(mg.mm(x, w2))
    with autocast("cpu", cache_enabled=False):
        assert _cast_node(mg.mm(x, w)) is not _cast_node(mg.mm(x, w))


def test_no_grad_first_use_does_not_poison_cache():
    w = mg.tensor(W, requires_grad=True)
    with autocast("cpu"):
        with mg.no_grad():
            mg.mm(mg.tensor(X), w)
        y = mg.mm(mg.tensor(X), w)
    assert y.requires_grad
    y.float().sum().backward()
    assert w.grad is not None and w.grad.dtype is mg.float32


def test_stale_cast_after_inplace_update_inside_region_like_torch():
    mw, tw = _pair(W)
    with autocast("cpu"):
        y1 = mg.mm(mg.tensor(X), mw)
        with mg.no_grad():
            mw.mul_(2.0)
        y2 = mg.mm(mg.tensor(X), mw)
    with torch.autocast("cpu"):
        t1 = torch.mm(torch.tensor(X), tw)
        with torch.no_grad():
            tw.mul_(2.0)
        t2 = torch.mm(torch.tensor(X), tw)
    assert torch.equal(t1, t2)                              # torch uses the stale cast
    np.testing.assert_array_equal(y1.detach().numpy(), y2.detach().numpy())
    with autocast("cpu"):
        y3 = mg.mm(mg.tensor(X), mw)                        # new region: fresh cast
    assert not np.array_equal(y3.detach().numpy(), y1.detach().numpy())


def test_cache_used_and_filled_under_no_grad_like_torch():
    """torch 2.13 also reads and fills the cache under no_grad (stale after in-place)."""
    results = []
    for lib, ac in ((mg, autocast), (torch, torch.autocast)):
        w = lib.tensor(W, requires_grad=True)
        x = lib.tensor(X)
        with lib.no_grad():
            with ac("cpu"):
                a = lib.mm(x, w)
                w.mul_(0.0)
                c = lib.mm(x, w)               # the cached (stale) cast is reused
        results.append((float(a.float().sum()), float(c.float().sum())))
        with ac("cpu"):
            a = lib.mm(x, w)
            with lib.no_grad():
                w.add_(1.0)
                c = lib.mm(x, w)               # the grad-mode cast is reused under no_grad
        results.append((float(a.float().sum()), float(c.float().sum())))
    assert results[:2] == results[2:]
    assert results[0][0] == results[0][1] and results[1][0] == results[1][1]


def test_nested_dtypes_do_not_collide_deliberate_difference():
    w = mg.tensor(W, requires_grad=True)
    with autocast("cpu", dtype=mg.float16):
        assert mg.mm(mg.tensor(X), w).dtype is mg.float16
        with autocast("cpu", dtype=mg.bfloat16):
            assert mg.mm(mg.tensor(X), w).dtype is mg.bfloat16   # torch raises here
    tw = torch.tensor(W, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        torch.mm(torch.tensor(X), tw)
        with torch.autocast("cpu", dtype=torch.bfloat16), pytest.raises(RuntimeError):
            torch.mm(torch.tensor(X), tw)


# ---------------------------------------------------------------- backward
def test_grads_flow_back_in_fp32_and_match_torch():
    mw, tw = _pair(W)
    with autocast("cpu"):
        my = mg.mm(mg.tensor(X), mw)
    with torch.autocast("cpu"):
        ty = torch.mm(torch.tensor(X), tw)
    assert my.grad_fn.next_functions[1][0].name() == "ToCopyBackward0"
    my.float().sum().backward()
    ty.float().sum().backward()
    assert mw.grad.dtype is mg.float32
    np.testing.assert_array_equal(mw.grad.numpy(), tw.grad.numpy())    # facts §2: bit-exact


def test_backward_inside_region_is_autocast_like_torch():
    res = {}
    for where in ("inside", "outside"):
        mw, tw = _pair(W)
        my, ty = mg.mm(mg.tensor(X), mw), torch.mm(torch.tensor(X), tw)   # fp32 forward
        g = np.random.default_rng(2).standard_normal((16, 16)).astype(np.float32)
        if where == "inside":
            with autocast("cpu"), torch.autocast("cpu"):
                my.backward(mg.tensor(g))
                ty.backward(torch.tensor(g))
        else:
            my.backward(mg.tensor(g))
            ty.backward(torch.tensor(g))
        res[where] = (mw.grad.numpy().copy(), tw.grad.numpy().copy())
        np.testing.assert_allclose(res[where][0], res[where][1], rtol=2 ** -7, atol=2 ** -6)
    assert not np.array_equal(res["inside"][0], res["outside"][0])
    assert not np.array_equal(res["inside"][1], res["outside"][1])


# ---------------------------------------------------------------- custom_fwd / custom_bwd
class _MyMM(mg.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cpu", cast_inputs=mg.float32)
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.seen = (a.dtype, b.dtype, amp_emu.is_autocast_enabled("cpu"))
        return mg.mm(a, b)

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ctx.bwd_enabled = amp_emu.is_autocast_enabled("cpu")
        return mg.mm(g, b.t()), mg.mm(a.t(), g)


class _Plain(mg.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cpu")
    def forward(ctx, a):
        ctx.fwd_enabled = amp_emu.is_autocast_enabled("cpu")
        return a * 2.0

    @staticmethod
    @custom_bwd(device_type="cpu")
    def backward(ctx, g):
        ctx.bwd_state = (amp_emu.is_autocast_enabled("cpu"), amp_emu.get_autocast_dtype("cpu"))
        return g * 2.0


def test_custom_fwd_cast_inputs_and_custom_bwd():
    a = mg.randn(3, 3).bfloat16().requires_grad_(True)
    b = mg.randn(3, 3, requires_grad=True)
    with autocast("cpu"):
        y = _MyMM.apply(a, b)
    assert y.grad_fn.seen == (mg.float32, mg.float32, False) and y.dtype is mg.float32
    y.sum().backward()
    assert y.grad_fn.bwd_enabled is False and a.grad.dtype is mg.bfloat16
    with pytest.raises(RuntimeError):                      # outside autocast: no cast,
        _MyMM.apply(a, b)                                  # mm(bf16, fp32) fails as in torch
    x = mg.randn(2, requires_grad=True)
    with autocast("cpu", dtype=mg.float16):
        z = _Plain.apply(x)
    assert z.grad_fn.fwd_enabled is True
    z.sum().backward()                                     # outside the region
    assert z.grad_fn.bwd_state == (True, mg.float16)
    assert not amp_emu.is_autocast_enabled("cpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        custom_fwd(device_type=None)
