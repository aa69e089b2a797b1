"""``nn.Buffer`` (``torch.nn.Buffer``, PyTorch >= 2.5) side by side with torch: what
``Buffer(...)`` returns, module registration by assignment with ``persistent=``, errors, and
state dicts holding buffers across both libraries' checkpoints."""
from __future__ import annotations

import pytest
import torch

import minigrad as mg


def _module(L):
    class M(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.kept = L.nn.Buffer(L.arange(3.0))
            self.scratch = L.nn.Buffer(L.zeros(2), persistent=False)
            self.plain = L.ones(2)                    # a plain tensor: an attribute only
            self.register_buffer("old", L.ones(1))

    return M()


def _describe(L, m):
    b = L.nn.Buffer(L.ones(2, requires_grad=True))
    e = L.nn.Buffer()
    return (type(b).__name__, isinstance(b, L.nn.Buffer), isinstance(L.ones(1), L.nn.Buffer),
            b.persistent, b.requires_grad, b.is_leaf, tuple(e.shape), str(e.dtype)[-7:],
            list(m.state_dict()), [n for n, _ in m.named_buffers()], type(m.kept).__name__,
            L.nn.Buffer(L.ones(1), persistent=False).persistent)


def test_buffer_matches_torch():
    assert _describe(mg, _module(mg)) == _describe(torch, _module(torch))


def test_buffer_shares_storage_and_reassignment_as_torch():
    for L in (mg, torch):
        x = L.zeros(3)
        b = L.nn.Buffer(x)
        b[0] = 5.0
        assert x[0].item() == 5.0
        m = _module(L)
        m.kept = L.nn.Buffer(L.ones(4), persistent=False)        # now non-persistent
        assert "kept" not in m.state_dict() and m.kept.shape == (4,)
        m.scratch = L.ones(1)                 # a plain tensor into a buffer slot keeps it one
        assert [n for n, _ in m.named_buffers()] == ["kept", "scratch", "old"]
    errs = []
    for L in (mg, torch):
        m = _module(L)
        with pytest.raises(TypeError) as e:
            m.kept = 3
        errs.append(str(e.value))
        m.attr = 1
        with pytest.raises(KeyError) as e:
            m.attr = L.nn.Buffer(L.ones(1))
        errs.append(str(e.value))
    assert errs[:2] == errs[2:]


def test_state_dict_with_buffers_across_checkpoints(tmp_path):
    mg.save(_module(mg).state_dict(), tmp_path / "m.pt")
    sd = torch.load(tmp_path / "m.pt")
    assert list(sd) == ["kept", "old"] and sd["kept"].tolist() == [0.0, 1.0, 2.0]
    torch.save(_module(torch).state_dict(), tmp_path / "t.pt")
    sd = mg.load(tmp_path / "t.pt")
    assert list(sd) == ["kept", "old"] and sd["kept"].tolist() == [0.0, 1.0, 2.0]
    m = _module(mg)
    m.load_state_dict(sd)
