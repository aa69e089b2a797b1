"""``minigrad.autograd.graph.to_dot`` / ``render``: the drawn graph is PyTorch's graph (the same
nodes by name and the same edges, walked in torch over ``grad_fn.next_functions``), saved tensors
are drawn with torch's shapes and names and without being unpacked."""
from __future__ import annotations

import collections
import re
import sys

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd.graph import render, save_on_cpu, to_dot
from minigrad.testing import from_torch


def _parse(text):
    """(labels by node id, Counter of (source label, target label) solid edges, dashed edges)."""
    labels = {m.group(1): m.group(2).replace("\\l", "\n").strip()
              for m in re.finditer(r'^\t(\w+) \[label="((?:[^"\\]|\\.)*)"', text, re.M)}
    solid, dashed = collections.Counter(), []
    for m in re.finditer(r"^\t(\w+) -> (\w+)( \[style=dashed\])?$", text, re.M):
        a, b = labels[m.group(1)], labels[m.group(2)]
        if m.group(3):
            dashed.append((a, b))
        else:
            solid[(a.split("\n")[0], b.split("\n")[0])] += 1
    return labels, solid, dashed


def _torch_edges(out, params):
    """The same Counter for a torch graph, walked over ``next_functions``."""
    names = {id(p): n for n, p in params.items()}
    edges, seen, stack = collections.Counter(), set(), [(out.grad_fn, "output")]
    while stack:
        fn, consumer = stack.pop()
        var = getattr(fn, "variable", None)
        label = names[id(var)] if var is not None else fn.name()
        edges[(label, consumer)] += 1
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        stack.extend((n, label) for n, _ in fn.next_functions if n is not None)
    return edges


def _pair(params_t):
    return {k: from_torch(v.detach()).requires_grad_() for k, v in params_t.items()}


def test_lecture_graph_is_torchs_and_shows_saved_tensors():
    # the lecture's y = w * x + b; z = y.sum()
    pt = {"x": torch.tensor([2.0, 3.0], requires_grad=True),
          "w": torch.tensor([1.0, 2.0], requires_grad=True),
          "b": torch.tensor(0.5, requires_grad=True)}
    pm = _pair(pt)
    zt = (pt["w"] * pt["x"] + pt["b"]).sum()
    zm = (pm["w"] * pm["x"] + pm["b"]).sum()
    labels, solid, dashed = _parse(to_dot(zm, params=pm, show_saved=True))
    assert solid == _torch_edges(zt, pt)
    mul = zt.grad_fn.next_functions[0][0].next_functions[0][0]
    want = sorted(f"{n}\n({', '.join(map(str, getattr(mul, '_saved_' + n).shape))}) float32\n"
                  f"{getattr(mul, '_saved_' + n).nbytes} bytes" for n in ("self", "other"))
    assert sorted(a for a, b in dashed if b == "MulBackward0") == want
    assert labels["n0"] == "output\n() float32"


def test_mlp_graph_with_shared_use_and_attrs():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 4)
    pt = dict(lin.named_parameters())
    pm = _pair(pt)
    xt = torch.randn(5, 3)
    xm = from_torch(xt)

    def f(lib, p, x):
        h = lib.nn.functional.linear(x, p["weight"], p["bias"]).tanh()
        return lib.nn.functional.cross_entropy(h * h, lib.tensor([0, 1, 2, 3, 0]))

    text = to_dot(f(mg, pm, xm), params=pm, show_attrs=True)
    _, solid, _ = _parse(text)
    assert solid == _torch_edges(f(torch, pt, xt), pt)
    assert solid[("TanhBackward0", "MulBackward0")] == 2           # h * h: two edges
    assert re.search(r'AddmmBackward0\\lalpha: 1\\lbeta: 1\\l', text)


def test_saved_tensors_are_not_unpacked_and_freed_after_backward():
    w = mg.randn(3, requires_grad=True)
    unpacked = []
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: unpacked.append(1) or t):
        y = (w.exp() * 2).sum()
    labels, _, dashed = _parse(to_dot(y, show_saved=True))
    assert ("result\npacked by hooks", "ExpBackward0") in dashed and not unpacked
    y.backward()
    _, _, dashed = _parse(to_dot(y, show_saved=True))
    assert ("saved tensors freed\n(backward ran without retain_graph)", "ExpBackward0") in dashed
    assert len(unpacked) == 1                                     # the backward's own unpack


def test_checkpointed_block_is_drawn_without_recomputing():
    calls = []

    def block(x):
        calls.append(1)
        return (x.sin() * 3).relu()

    x = mg.randn(4, requires_grad=True)
    y = mg.utils.checkpoint.checkpoint(block, x, use_reentrant=False).sum()
    labels, solid, dashed = _parse(to_dot(y, show_saved=True))
    assert len(calls) == 1
    assert {b for _, b in dashed} == {"SinBackward0", "ReluBackward0"}
    assert all("packed by hooks" in a for a, _ in dashed)
    with save_on_cpu():
        z = (x * x).sum()
    _, _, dashed = _parse(to_dot(z, show_saved=True))
    assert len(dashed) == 2 and all("packed by hooks" in a for a, _ in dashed)


def test_several_outputs_and_errors(tmp_path, monkeypatch):
    a = mg.randn(2, 2, requires_grad=True)
    u, v = a.sum(0), a.exp()
    labels, solid, _ = _parse(to_dot((u, v), params={"a": a}))
    assert sorted(k for k, lab in labels.items() if lab.startswith("output")) == ["n0", "n1"]
    assert solid[("a", "SumBackward1")] == 1 and solid[("a", "ExpBackward0")] == 1
    with pytest.raises(TypeError, match="expected a Tensor"):
        to_dot(np.ones(2))
    p = render(v, tmp_path / "g.dot")
    assert open(p).read() == to_dot(v)
    with pytest.raises(ValueError, match="no suffix"):
        render(v, tmp_path / "g")
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        render(v, tmp_path / "g.svg")
