"""Random sequences of views and in-place ops against PyTorch: ``CopySlices`` and friends.

Hypothesis draws a program: a base (a non-leaf ``a * 1`` of a leaf that requires grad, or a plain
tensor later modified with an operand that requires grad), then steps that either take a view of
one of the tensors so far (slice, select, transpose, ``t``, ``view``/``reshape``, ``unsqueeze``,
``expand``, ``detach``, an output of ``unbind``/``split``) or modify one in place (``mul_``/``add_``/``sub_``/``div_`` by a number or
by a tensor that requires grad, ``relu_``, ``sigmoid_``, ``tanh_``, ``clamp_``, ``zero_``,
``fill_``, ``copy_``, ``t[i] = x``), under grad mode or ``no_grad``. The same program runs in both
frameworks; after every step every tensor's values, ``grad_fn`` name, ``_version``,
``requires_grad`` and ``is_leaf`` must agree, errors must agree (type, and the message for
autograd's in-place errors), and at the end a backward through all tensors must give the same
gradients to the leaves.
"""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg

VIEWS = ("slice", "select", "transpose", "t", "view", "reshape", "unsqueeze", "expand", "detach",
         "unbind", "split")
INPLACE = ("mul_s", "add_s", "sub_s", "div_s", "mul_t", "add_t", "relu_", "sigmoid_", "tanh_",
           "clamp_", "zero_", "fill_", "copy_", "setitem", "setitem_t")


def _step():
    return st.tuples(st.sampled_from(VIEWS + INPLACE), st.integers(0, 7), st.integers(0, 3),
                     st.booleans())


PROGRAMS = st.tuples(st.sampled_from([(3, 4), (2, 3, 2), (4,)]), st.booleans(),
                     st.lists(_step(), min_size=1, max_size=5))


def _view(L, t, kind, k):
    n = t.ndim
    if kind == "slice":
        return t[k % 2:] if n else t[...]
    if kind == "select":
        return t[k % t.shape[0]] if n and t.shape[0] else t[...]
    if kind == "transpose":
        return t.transpose(0, -1) if n else t
    if kind == "t":
        return t.t()
    if kind == "view":
        return t.view(-1)
    if kind == "reshape":
        return t.reshape(-1)
    if kind == "unsqueeze":
        return t.unsqueeze(0)
    if kind == "expand":
        return t.expand(2, *t.shape)
    if kind in ("unbind", "split"):
        if not n or not t.shape[0]:
            return t[...]
        parts = t.unbind(0) if kind == "unbind" else t.split([1, t.shape[0] - 1])
        return parts[k % len(parts)]
    return t.detach()


def _inplace(L, t, kind, k, operand):
    s = (2.0, -0.5, 3.0, 0.25)[k]
    if kind == "mul_s":
        return t.mul_(s)
    if kind == "add_s":
        return t.add_(s)
    if kind == "sub_s":
        return t.sub_(s, alpha=2)
    if kind == "div_s":
        return t.div_(s)
    if kind in ("mul_t", "add_t", "copy_", "setitem_t"):
        o = operand.reshape(-1)[:max(t.numel(), 1)]
        o = o[:t.numel()].reshape(t.shape) if t.numel() else o[:0].reshape(t.shape)
        if kind == "mul_t":
            return t.mul_(o)
        if kind == "add_t":
            return t.add_(o, alpha=s)
        if kind == "copy_":
            return t.copy_(o)
        t[...] = o * s
        return t
    if kind == "clamp_":
        return t.clamp_(-0.5, 0.75)
    if kind == "zero_":
        return t.zero_()
    if kind == "fill_":
        return t.fill_(s)
    if kind == "setitem":
        t[k % t.shape[0] if t.ndim and t.shape[0] else ...] = s
        return t
    return getattr(t, kind)()


def _state(ts, L):
    out = []
    for t in ts:
        try:
            fn = t.grad_fn
        except RuntimeError as e:
            out.append(("grad_fn error", str(e)))
            continue
        out.append((np.round(np.asarray(t.detach().tolist(), np.float64), 9).tolist(),
                    None if fn is None else fn.name(), t._version, t.requires_grad,
                    t.is_leaf))
    return out


def _run(L, program):
    shape, plain_base, steps = program
    rng = np.random.default_rng(0)
    a = L.tensor(rng.normal(size=shape), requires_grad=True)
    operand = L.tensor(rng.normal(size=24), requires_grad=True)
    base = L.tensor(rng.normal(size=shape)) if plain_base else a * 1
    ts = [base]
    log = [("start", _state(ts, L))]
    for kind, which, k, no_grad in steps:
        t = ts[which % len(ts)]
        try:
            if no_grad:
                with L.no_grad():
                    r = _view(L, t, kind, k) if kind in VIEWS else _inplace(L, t, kind, k,
                                                                             operand)
            else:
                r = _view(L, t, kind, k) if kind in VIEWS else _inplace(L, t, kind, k, operand)
        except (RuntimeError, IndexError, TypeError, ValueError) as e:
            msg = str(e).split("\n")[0]
            keep = any(w in msg for w in ("in-place", "inplace", "a view", "Output"))
            log.append(("error", type(e).__name__, msg if keep else ""))
            break
        if kind in VIEWS:
            ts.append(r)
        log.append((kind, _state(ts, L)))
    ws = [L.tensor(np.linspace(-1, 1, max(t.numel(), 1))[:t.numel()].reshape(t.shape))
          for t in ts]
    try:
        outs = [(t * w).sum() for t, w in zip(ts, ws) if t.requires_grad]
    except RuntimeError as e:
        log.append(("loss error", str(e)))
        return log
    if outs:
        loss = outs[0]
        for o in outs[1:]:
            loss = loss + o
        try:
            loss.backward()
            log.append(("grads", [None if g is None else np.round(np.asarray(g.tolist()), 9)
                                  .tolist() for g in (a.grad, operand.grad)]))
        except RuntimeError as e:
            log.append(("backward error", type(e).__name__))
    return log


@settings(max_examples=60)
@given(PROGRAMS)
def test_views_and_inplace_match_torch(program):
    expected = _run(torch, program)
    got = _run(mg, program)
    for e, g in zip(expected, got):
        assert e == g, f"program {program}\ntorch:    {e}\nminigrad: {g}"
    assert len(expected) == len(got)
