"""Gradient accumulation as property tests: N micro-batches with ``loss / N`` give the gradient
of one batch N times as large, in fp32 and under bf16 / fp16 autocast, with a GradScaler, and
with an LR scheduler stepping with the optimizer; minigrad and PyTorch run the same program from
the same weights.

The bound. Each gradient element is a sum over samples, g = sum_i g_i / n. Both programs (the
accumulated one and the big batch) compute the same per-sample terms, summed in another order
and with other intermediate roundings, so they differ by rounding only. Forward error analysis
(Higham, ch. 3) bounds the rounding error of any evaluation order of such sums of products by a
multiple of u * G, where u is the unit roundoff of the compute format (fp32 2**-24, fp16
2**-11, bf16 2**-8: autocast rounds every matmul output to it, accumulating in fp32) and G the
same gradient computed on absolute values (``magnitudes``: |W|, |x|, |p - y|, float64), not |g|,
which may cancel to ~0. The worst case multiple is about (sum of the layers' dot lengths + n)
per path (56 for the shapes here). Measured over 100 draws per format (25 seeds x 4 shapes,
N = 2..4), the largest |accumulated - big batch| is 1.34 u G in fp32, 0.64 in bf16, 0.54 in
fp16 (minigrad vs torch: 1.34 in fp32, 0 in bf16 and fp16), so the tests assert

    |accumulated - big batch| <= 4 u_fmt G + n * tiny_fmt

that is 2 ulps of the format at the magnitude G (for fp32: "a few ulps"), where tiny_fmt, the
format's smallest subnormal step, covers gradients near underflow, which lose absolute rather
than relative precision. A missing ``/ N`` is off by a factor N and fails it. The same bound
holds between minigrad and PyTorch running the same program.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import amp_emu
import minigrad as mg
import optim

from ._optim_util import threads_like_torch  # noqa: F401

pytestmark = pytest.mark.usefixtures("threads_like_torch")

U = {"fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8}      # unit roundoff
TINY = {"fp32": 2.0 ** -149, "fp16": 2.0 ** -24, "bf16": 2.0 ** -133}  # smallest subnormal
IN, OUT = 4, 3


class Frame:
    """minigrad (with amp_emu and optim) or PyTorch: one program runs on either."""

    def __init__(self, name):
        self.name = name
        if name == "minigrad":
            self.lib, self.amp, self.optim = mg, amp_emu, optim
        else:
            self.lib, self.amp, self.optim = torch, torch.amp, torch.optim

    def tensor(self, a):
        return self.lib.from_numpy(np.ascontiguousarray(a))

    def model(self, state, sizes):
        """Linear-ReLU-...-Linear loaded with ``state`` (NumPy float32 arrays)."""
        nn = self.lib.nn
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        model.load_state_dict({k: self.tensor(v.copy()) for k, v in state.items()})
        return model

    def autocast(self, precision):
        dtype = {"bf16": self.lib.bfloat16, "fp16": self.lib.float16}.get(precision)
        return self.amp.autocast("cpu", dtype=dtype, enabled=dtype is not None)


def init_state(seed, sizes):
    """Seeded float32 weights, named as nn.Sequential's state_dict names them."""
    rng = np.random.default_rng(seed)
    state = {}
    for i in range(len(sizes) - 1):
        bound = 1 / np.sqrt(sizes[i])
        j = 2 * i  # ReLUs sit between the Linears
        state[f"{j}.weight"] = rng.uniform(-bound, bound, (sizes[i + 1], sizes[i])).astype(np.float32)
        state[f"{j}.bias"] = rng.uniform(-bound, bound, sizes[i + 1]).astype(np.float32)
    return state


def data(seed, n):
    rng = np.random.default_rng(seed + 1)
    return rng.standard_normal((n, IN)).astype(np.float32), rng.integers(0, OUT, n)


def micro_batches(x, y, n_micro):
    size = len(x) // n_micro
    return [(x[k * size:(k + 1) * size], y[k * size:(k + 1) * size]) for k in range(n_micro)]


def accumulated_grads(frame, state, sizes, x, y, n_micro, precision):
    """One accumulated step's gradients: forward/backward per micro-batch with loss / N."""
    model = frame.model(state, sizes)
    criterion = frame.lib.nn.CrossEntropyLoss()
    for xb, yb in micro_batches(x, y, n_micro):
        with frame.autocast(precision):
            loss = criterion(model(frame.tensor(xb)), frame.tensor(yb))
        (loss / n_micro).backward()
    return [p.grad.detach().float().numpy().astype(np.float64) for p in model.parameters()]


def magnitudes(state, sizes, x, y):
    """Per element, the gradient computed on absolute values (float64): the weights and inputs
    replaced by |W|, |b|, |x| and the loss gradient by |p - y| plus the softmax's sensitivity to
    the logits' forward error (2 p max_j Z_j), with the real forward's ReLU masks. Rounding
    error of any order of the same sums is bounded by a multiple of u times this."""
    ws = [(state[f"{2 * i}.weight"].astype(np.float64), state[f"{2 * i}.bias"].astype(np.float64))
          for i in range(len(sizes) - 1)]
    a, mag, masks, mags = x.astype(np.float64), np.abs(x.astype(np.float64)), [], []
    for i, (w, b) in enumerate(ws):
        mags.append(mag)
        z, mag = a @ w.T + b, mag @ np.abs(w).T + np.abs(b)
        if i < len(ws) - 1:
            masks.append(z > 0)
            a, mag = np.maximum(z, 0), mag * masks[-1]
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    d = (np.abs(p - np.eye(sizes[-1])[y]) + 2 * p * mag.max(1, keepdims=True)) / len(x)
    grads = []
    for i in reversed(range(len(ws))):
        grads[:0] = [d.T @ mags[i], d.sum(0)]
        if i:
            d = (d @ np.abs(ws[i][0])) * masks[i - 1]
    return grads


def bound(precision, n, mag):
    """4 u G + n tiny: see the module docstring."""
    return 4 * U[precision] * mag + n * TINY[precision]


def assert_within(got, want, bounds, what):
    for i, (g, w, b) in enumerate(zip(got, want, bounds)):
        excess = np.abs(g - w) - b
        assert (excess <= 0).all(), (
            f"{what}, parameter {i}: |diff| exceeds the bound by {excess.max():.3e} "
            f"(diff {np.abs(g - w).max():.3e}, bound there {b.flat[excess.argmax()]:.3e})")


# ------------------------------------------------------------------ one accumulated step
@settings(max_examples=12)
@given(seed=st.integers(0, 2**16), n_micro=st.sampled_from([2, 3, 4]),
       micro=st.sampled_from([1, 2, 3]), hidden=st.sampled_from([3, 6]),
       precision=st.sampled_from(["fp32", "bf16", "fp16"]))
def test_accumulated_gradient_equals_big_batch_gradient(seed, n_micro, micro, hidden, precision):
    sizes = [IN, hidden, OUT]
    n = n_micro * micro
    state, (x, y) = init_state(seed, sizes), data(seed, n)
    bounds = [bound(precision, n, a) for a in magnitudes(state, sizes, x, y)]
    mgf, tf = Frame("minigrad"), Frame("torch")

    acc = accumulated_grads(mgf, state, sizes, x, y, n_micro, precision)
    big = accumulated_grads(mgf, state, sizes, x, y, 1, precision)
    assert_within(acc, big, bounds, f"minigrad {precision}: {n_micro} x {micro} vs one batch")

    torch_acc = accumulated_grads(tf, state, sizes, x, y, n_micro, precision)
    assert_within(acc, torch_acc, bounds, f"{precision} accumulation: minigrad vs torch")


def test_the_bound_catches_a_missing_division():
    """The bound is tight enough that forgetting ``loss / N`` (gradient N times too large)
    fails it: summing the micro-batch means without the division."""
    sizes, n_micro = [IN, 6, OUT], 4
    state, (x, y) = init_state(7, sizes), data(7, 8)
    bounds = [bound("fp32", 8, a) for a in magnitudes(state, sizes, x, y)]
    mgf = Frame("minigrad")
    big = accumulated_grads(mgf, state, sizes, x, y, 1, "fp32")
    acc = accumulated_grads(mgf, state, sizes, x, y, n_micro, "fp32")
    assert_within(acc, big, bounds, "fp32")
    with pytest.raises(AssertionError, match="exceeds the bound"):
        assert_within([n_micro * a for a in acc], big, bounds, "without / N")


# ------------------------------------------------------------------ K steps: GradScaler, scheduler
def train(frame, state, sizes, steps, n_micro, precision, init_scale=None, gamma=None, lr=0.1):
    """K accumulated SGD steps. With ``init_scale``: fp16 GradScaler, ``scale(loss / N)`` per
    micro-batch, ``unscale_`` / ``step`` / ``update`` once per step. With ``gamma``: a StepLR
    stepping right after the optimizer. Returns (params, scales, lrs, first step's grads)."""
    model = frame.model(state, sizes)
    opt = frame.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sched = frame.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=gamma) if gamma else None
    scaler = (frame.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=2)
              if init_scale else None)
    criterion = frame.lib.nn.CrossEntropyLoss()
    scales, lrs, first = [], [], None
    for step, (x, y) in enumerate(steps):
        for xb, yb in micro_batches(x, y, n_micro):
            with frame.autocast(precision):
                loss = criterion(model(frame.tensor(xb)), frame.tensor(yb))
            (scaler.scale(loss / n_micro) if scaler else loss / n_micro).backward()
        if scaler:
            scaler.unscale_(opt)
        if step == 0:
            first = [p.grad.detach().numpy().astype(np.float64) for p in model.parameters()]
        if scaler:
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        else:
            opt.step()
        if sched:
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        opt.zero_grad(set_to_none=True)
    params = [p.detach().numpy().astype(np.float64) for p in model.parameters()]
    return params, scales, lrs, first


def param_bounds(state, sizes, steps, precision, lr, momentum=0.9):
    """|Δparams| after K SGD-momentum steps whose gradients differ by at most ``bound`` each:
    lr * sum_k (1 + m + ... + m^(K-1-k)) * gbound, with gbound from the first step's data
    (doubled: the weights, hence G, drift a little over K steps)."""
    n_steps = len(steps)
    factor = sum(sum(momentum ** j for j in range(n_steps - k)) for k in range(n_steps))
    per_step = [[bound(precision, len(x), a) for a in magnitudes(state, sizes, x, y)]
                for x, y in steps]
    worst = [np.max([s[i] for s in per_step], axis=0) for i in range(len(per_step[0]))]
    return [2 * lr * factor * w for w in worst]


@settings(max_examples=4)
@given(seed=st.integers(0, 2**16), n_micro=st.sampled_from([2, 4]),
       init_scale=st.sampled_from([2.0 ** 4, 2.0 ** 16, 2.0 ** 24]))
def test_grad_scaler_once_per_accumulated_step_matches_torch(seed, n_micro, init_scale):
    """fp16 autocast, GradScaler: scale per micro-batch, unscale_/step/update once per step.
    The scale trajectory (growth every 2 steps, backoff on overflow: 2**24 overflows fp16) is
    PyTorch's exactly; parameters after K steps agree within the bound carried through SGD; the
    first step's unscaled gradient equals the big batch's when neither overflowed."""
    sizes, micro, k_steps, lr = [IN, 5, OUT], 2, 3, 0.1
    state = init_state(seed, sizes)
    steps = [data(seed + 10 * k, n_micro * micro) for k in range(k_steps)]
    mg_params, mg_scales, _, mg_first = train(Frame("minigrad"), state, sizes, steps, n_micro,
                                              "fp16", init_scale=init_scale, lr=lr)
    t_params, t_scales, _, _ = train(Frame("torch"), state, sizes, steps, n_micro, "fp16",
                                     init_scale=init_scale, lr=lr)
    assert mg_scales == t_scales
    assert_within(mg_params, t_params, param_bounds(state, sizes, steps, "fp16", lr),
                  "fp16 + GradScaler, params after K steps, minigrad vs torch")

    _, big_scales, _, big_first = train(Frame("minigrad"), state, sizes, steps[:1], 1, "fp16",
                                        init_scale=init_scale, lr=lr)
    if mg_scales[0] >= init_scale and big_scales[0] >= init_scale:  # no overflow in step 1
        x, y = steps[0]
        bounds = [bound("fp16", len(x), a) for a in magnitudes(state, sizes, x, y)]
        assert_within(mg_first, big_first, bounds, "fp16 + GradScaler, unscaled step-1 grads")


@settings(max_examples=6)
@given(seed=st.integers(0, 2**16), n_micro=st.sampled_from([2, 3, 4]),
       gamma=st.sampled_from([0.5, 0.9]))
def test_scheduler_steps_with_the_optimizer(seed, n_micro, gamma):
    """StepLR(step_size=1) stepped with the optimizer, once per accumulated step: after K steps
    the lr is lr0 * gamma**K (not gamma**(K N)), as in PyTorch, and the parameters equal the
    big-batch run's and PyTorch's within the bound carried through SGD."""
    sizes, micro, k_steps, lr = [IN, 5, OUT], 2, 3, 0.1
    state = init_state(seed, sizes)
    steps = [data(seed + 10 * k, n_micro * micro) for k in range(k_steps)]
    acc, _, lrs, _ = train(Frame("minigrad"), state, sizes, steps, n_micro, "fp32",
                           gamma=gamma, lr=lr)
    big, _, big_lrs, _ = train(Frame("minigrad"), state, sizes, steps, 1, "fp32",
                               gamma=gamma, lr=lr)
    t_acc, _, t_lrs, _ = train(Frame("torch"), state, sizes, steps, n_micro, "fp32",
                               gamma=gamma, lr=lr)
    assert lrs == big_lrs == t_lrs
    assert lrs[-1] == pytest.approx(lr * gamma ** k_steps, rel=1e-12)
    bounds = param_bounds(state, sizes, steps, "fp32", lr)
    assert_within(acc, big, bounds, "fp32 + StepLR, accumulated vs big batch")
    assert_within(acc, t_acc, bounds, "fp32 + StepLR, minigrad vs torch")
