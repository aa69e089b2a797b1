"""Memory formats (``torch.channels_last``...): strides and contiguity of clone / contiguous /
to / *_like / empty / Module.to, side by side with torch 2.13; values never change."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

X4 = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)


def _cl(L):
    return L.tensor(X4).contiguous(memory_format=L.channels_last)


PROGRAMS = {
    "contiguous_cl": lambda L: _cl(L),
    "cl_3d": lambda L: L.tensor(X4[..., None]).contiguous(memory_format=L.channels_last_3d),
    "clone_transposed": lambda L: L.tensor(X4).transpose(0, 1).clone(),
    "clone_sliced": lambda L: L.tensor(X4)[:, :, ::2].clone(),
    "clone_expanded": lambda L: L.tensor(X4)[:1].expand(2, 3, 4, 5).clone(),
    "clone_t": lambda L: L.tensor(X4[0, 0]).t().clone(),
    "clone_size1": lambda L: L.tensor(X4[0, :1]).transpose(0, 2).clone(),
    "clone_to_cl": lambda L: L.tensor(X4).clone(memory_format=L.channels_last),
    "clone_cl_to_contig": lambda L: _cl(L).clone(memory_format=L.contiguous_format),
    "empty_like_cl": lambda L: L.empty_like(_cl(L)),
    "zeros_like_contig": lambda L: L.zeros_like(_cl(L), memory_format=L.contiguous_format),
    "ones_like_cl": lambda L: L.ones_like(L.tensor(X4), memory_format=L.channels_last),
    "empty_cl": lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last),
    "to_double_cl": lambda L: L.tensor(X4).to(L.float64, memory_format=L.channels_last),
    "to_back": lambda L: _cl(L).to(memory_format=L.contiguous_format),
    "reshape_of_cl": lambda L: _cl(L).reshape(2, -1),
    "conv_weight": lambda L: L.nn.Conv2d(3, 4, 3).to(memory_format=L.channels_last).weight,
    "conv_bias": lambda L: L.nn.Conv2d(3, 4, 3).to(memory_format=L.channels_last).bias,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_layout_matches_torch(name):
    ours, theirs = PROGRAMS[name](mg), PROGRAMS[name](torch)
    assert ours.stride() == theirs.stride()
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert ours.is_contiguous(memory_format=getattr(mg, fmt)) == \
            theirs.is_contiguous(memory_format=getattr(torch, fmt)), fmt
    if not name.startswith(("empty", "conv")):
        assert np.array_equal(ours.detach().numpy(), theirs.detach().numpy())


def test_no_copy_when_already_in_the_format_and_errors():
    y = _cl(mg)
    assert y.to(memory_format=mg.channels_last) is y
    assert y.contiguous(memory_format=mg.channels_last) is y
    assert y.contiguous() is not y and y.contiguous().is_contiguous()
    for L in (mg, torch):
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
            L.ones(3, 4).contiguous(memory_format=L.channels_last)
        with pytest.raises(RuntimeError, match="required rank 5 tensor to use "
                                               "channels_last_3d"):
            L.ones(3, 4).clone(memory_format=L.channels_last_3d)
        with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
            L.empty(2, 3, memory_format=L.preserve_format)
    assert repr(mg.channels_last) == repr(torch.channels_last) == "torch.channels_last"
    assert pickle.loads(pickle.dumps(mg.channels_last)) is mg.channels_last
    assert isinstance(mg.channels_last, mg.memory_format)


def test_channels_last_trains_like_contiguous():
    mg.manual_seed(0)
    conv = mg.nn.Conv2d(3, 4, 3)
    x = mg.tensor(X4)
    ref = conv(x).sum()
    ref.backward()
    g = conv.weight.grad.numpy().copy()
    conv.weight.grad = None
    conv.to(memory_format=mg.channels_last)
    out = conv(x.contiguous(memory_format=mg.channels_last)).sum()
    out.backward()
    assert out.item() == ref.item() and np.array_equal(conv.weight.grad.numpy(), g)
