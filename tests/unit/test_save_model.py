"""Saving whole models (PyTorch >= 2.6 semantics), side by side with torch: ``load`` with
``weights_only=True`` refuses a pickled model naming the same classes, one at a time, in the
same order and with PyTorch's text; ``add_safe_globals`` / ``safe_globals(...)`` /
``weights_only=False`` then load it, with its weights, buffers, tying and mode intact."""
from __future__ import annotations

import importlib
import io
import pickle
import re
import sys

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
from tests.unit.test_nn import _copy_params, _np


def _net_class(lnn):
    class Net(lnn.Module):
        """A model using the containers and layers whose classes a checkpoint names."""

        def __init__(self):
            super().__init__()
            self.body = lnn.Sequential(lnn.Flatten(), lnn.Linear(6, 4), lnn.ReLU())
            self.heads = lnn.ModuleDict({"out": lnn.Linear(4, 3)})
            self.scales = lnn.ParameterList([lnn.Parameter(self.heads["out"].bias.detach() * 0
                                                           + 1)])
            self.tied = lnn.Linear(4, 3)
            self.tied.weight = self.heads["out"].weight              # weight tying
            self.loss = lnn.CrossEntropyLoss(label_smoothing=0.1)
            self.register_buffer("steps", self.scales[0].detach() * 0)

        def forward(self, x):
            h = self.body(x)
            return self.heads["out"](h) * self.scales[0] + self.tied(h)

    return Net


Net = _net_class(nn)
Net.__qualname__ = "Net"
TorchNet = _net_class(torch.nn)
TorchNet.__qualname__ = "TorchNet"


def _pair():
    torch.manual_seed(0)
    t = TorchNet()
    m = Net()
    _copy_params(m, t)
    m.eval()
    t.eval()
    return m, t


def _save(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    return buf


def _refusals(lib, buf):
    """The globals ``lib.load`` refuses, in order, allowlisting each one with ``safe_globals``
    until the file loads; returns (names, loaded object)."""
    names, allowed = [], []
    for _ in range(20):
        buf.seek(0)
        try:
            with lib.serialization.safe_globals(allowed):
                return names, lib.load(buf)
        except pickle.UnpicklingError as e:
            name = re.search(r"GLOBAL (\S+) was not an allowed global", str(e)).group(1)
            names.append(name)
            mod, _, attr = name.rpartition(".")
            allowed.append(getattr(sys.modules.get(mod) or importlib.import_module(mod), attr))
    raise AssertionError("never loaded")


def test_weights_only_refuses_the_same_classes_as_torch_then_loads():
    m, t = _pair()
    m_names, loaded = _refusals(minigrad, _save(minigrad, m))
    t_names, t_loaded = _refusals(torch, _save(torch, t))
    assert [n.replace("TorchNet", "Net").replace("torch.", "minigrad.") for n in t_names] == \
        m_names
    assert "minigrad.nn.modules.container.Sequential" in m_names
    assert "minigrad.nn.modules.linear.Linear" in m_names
    assert minigrad.serialization.get_safe_globals() == []      # safe_globals cleaned up
    assert type(loaded) is Net and not loaded.training
    x = np.random.default_rng(0).standard_normal((2, 2, 3)).astype(np.float32)
    assert np.array_equal(_np(loaded(minigrad.tensor(x))), _np(m(minigrad.tensor(x))))
    assert np.allclose(_np(loaded(minigrad.tensor(x))), t_loaded(torch.tensor(x)).detach().numpy(),
                       atol=1e-6)
    assert loaded.tied.weight is loaded.heads["out"].weight     # tying survives, as in torch
    assert t_loaded.tied.weight is t_loaded.heads["out"].weight
    assert list(loaded.state_dict()) == list(t_loaded.state_dict())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in loaded.parameters())
    assert loaded.loss.label_smoothing == 0.1 and list(loaded.named_buffers())[0][0] == "steps"


def test_refusal_message_is_torchs():
    m, t = _pair()
    buf_m, buf_t = _save(minigrad, m), _save(torch, t)
    buf_m.seek(0)
    buf_t.seek(0)
    with pytest.raises(pickle.UnpicklingError) as em:
        minigrad.load(buf_m)
    with pytest.raises(pickle.UnpicklingError) as et:
        torch.load(buf_t)
    tail = (lambda e: str(e.value).split("WeightsUnpickler error: ")[1].split("\n\n")[0])
    assert tail(em) == tail(et).replace("TorchNet", "Net").replace("torch.", "minigrad.")
    assert str(em.value).startswith("Weights only load failed. This file can still be loaded")
    assert "`minigrad.serialization.add_safe_globals([tests.unit.test_save_model.Net])`" in \
        str(em.value)


def test_add_safe_globals_and_weights_only_false_load_the_model(tmp_path):
    m, _ = _pair()
    path = tmp_path / "model.pt"
    minigrad.save(m, path)
    assert type(minigrad.load(path, weights_only=False)) is Net
    classes = [Net, nn.Sequential, nn.Flatten, nn.Linear, nn.ReLU, nn.ModuleDict,
               nn.ParameterList, nn.CrossEntropyLoss]
    minigrad.serialization.add_safe_globals(classes)
    try:
        assert minigrad.serialization.get_safe_globals() == classes
        loaded = minigrad.load(path)
        assert type(loaded.heads["out"]) is nn.Linear
        # safe_globals removes its entries on exit, also ones added before (as torch's)
        with minigrad.serialization.safe_globals([nn.ReLU]):
            pass
        assert nn.ReLU not in minigrad.serialization.get_safe_globals()
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL minigrad.nn.modules.activation"
                                                         ".ReLU was not an allowed global"):
            minigrad.load(path)
    finally:
        minigrad.serialization.clear_safe_globals()
    assert minigrad.serialization.get_safe_globals() == []


def test_safe_globals_pairs_name_the_path():
    buf = _save(minigrad, nn.ReLU())

    def load_with(entries, lib, b):
        b.seek(0)
        with lib.serialization.safe_globals(entries):
            return lib.load(b)

    assert isinstance(load_with([(nn.ReLU, "minigrad.nn.modules.activation.ReLU")],
                                minigrad, buf), nn.ReLU)
    tbuf = _save(torch, torch.nn.ReLU())
    for bad in [(nn.ReLU, "a", "b")], [(nn.ReLU, 3)]:
        with pytest.raises(Exception) as em:
            load_with(bad, minigrad, buf)
        with pytest.raises(Exception) as et:
            load_with([(torch.nn.ReLU,) + b[1:] for b in bad], torch, tbuf)
        assert type(em.value) is type(et.value) and str(em.value) == str(et.value)
    assert minigrad.serialization.get_safe_globals() == []


def test_state_dict_checkpoints_still_load_by_default():
    m, _ = _pair()
    buf = _save(minigrad, {"model": m.state_dict(), "step": 3})
    buf.seek(0)
    ck = minigrad.load(buf)
    fresh = Net()
    fresh.load_state_dict(ck["model"])
    assert ck["step"] == 3 and np.array_equal(_np(fresh.tied.weight), _np(m.tied.weight))
