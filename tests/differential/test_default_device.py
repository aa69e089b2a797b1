"""``set_default_device`` / ``get_default_device`` and ``with device(...)`` against PyTorch
2.13: which functions take the default device when called without ``device=`` (torch's
``meta`` device stands in for minigrad's emulated ``cuda``: CPU-only torch has no cuda), what
``get_default_device`` reports, and that blocks nest and restore."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import minigrad as mg

DEV = {mg: "cuda", torch: "meta"}

MAKERS = {
    "zeros": lambda L: L.zeros(2, 3), "ones": lambda L: L.ones(size=(2,)),
    "empty": lambda L: L.empty(2), "full": lambda L: L.full((2,), 1.5),
    "arange": lambda L: L.arange(4), "eye": lambda L: L.eye(2),
    "linspace": lambda L: L.linspace(0, 1, 5), "logspace": lambda L: L.logspace(0, 1, 5),
    "rand": lambda L: L.rand(2), "randn": lambda L: L.randn(2, 2),
    "randint": lambda L: L.randint(0, 5, (3,)), "randperm": lambda L: L.randperm(4),
    "tensor": lambda L: L.tensor([1.0, 2.0]), "as_tensor": lambda L: L.as_tensor([1, 2]),
    "as_tensor of a tensor": lambda L: L.as_tensor(L.ones(2, device="cpu")),
    "zeros_like": lambda L: L.zeros_like(L.ones(2, device="cpu")),
    "randn_like": lambda L: L.randn_like(L.ones(2, device="cpu")),
    "normal": lambda L: L.normal(0.0, 1.0, size=(2,)),
    "from_numpy": lambda L: L.from_numpy(np.ones(2)),
    "Tensor()": lambda L: L.Tensor(2),
    "explicit cpu": lambda L: L.zeros(2, device="cpu"),
    "explicit None": lambda L: L.zeros(2, device=None),
    "nn.Linear": lambda L: L.nn.Linear(2, 3).weight,
    "nn.BatchNorm1d buffer": lambda L: L.nn.BatchNorm1d(3).running_mean,
}


def _on_default(L, name):
    return MAKERS[name](L).device.type == DEV[L]


@pytest.mark.parametrize("name", list(MAKERS))
def test_which_functions_take_the_default_device(name):
    got = {}
    for L in (mg, torch):
        L.set_default_device(DEV[L])
        try:
            got[L] = _on_default(L, name)
        finally:
            L.set_default_device(None)
        assert MAKERS[name](L).device.type == "cpu"
    assert got[mg] == got[torch]


@pytest.mark.parametrize("name", ["zeros", "tensor", "nn.Linear", "normal", "zeros_like"])
def test_with_device_block_as_torch(name):
    got = {}
    for L in (mg, torch):
        with L.device(DEV[L]) as d:
            got[L] = (_on_default(L, name), isinstance(d, L.device))
        assert MAKERS[name](L).device.type == "cpu"
    assert got[mg] == got[torch]


def test_get_default_device_nesting_and_reset():
    seen = {}
    for L in (mg, torch):
        dev = DEV[L]
        out = [L.get_default_device()]
        with L.device(dev):
            out.append(L.get_default_device())
            with L.device("cpu"):
                out.append(L.get_default_device())
                out.append(L.ones(1).device)
            out.append(L.get_default_device())
        out.append(L.get_default_device())
        L.set_default_device(dev)
        try:
            out.append(L.get_default_device())
            out.append(L.zeros(1, device="cpu").device)
        finally:
            L.set_default_device(None)
        out.append(L.get_default_device())
        # (a meta tensor has no index; an emulated cuda one reports cuda:0)
        seen[L] = [str(d).replace(":0", "").replace(dev, "DEV") for d in out]
        assert all(isinstance(d, L.device) for d in out)
    assert seen[mg] == seen[torch]


def test_cuda_default_device_reports_its_index():
    mg.set_default_device("cuda")
    try:
        assert mg.get_default_device() == mg.device("cuda", 0)
        assert mg.zeros(2).device == mg.device("cuda:0")
    finally:
        mg.set_default_device(None)
    assert mg.get_default_device() == mg.device("cpu")


def test_default_device_is_per_thread():
    for L in (mg, torch):
        L.set_default_device(DEV[L])
        try:
            seen = []
            th = threading.Thread(target=lambda: seen.append(str(L.get_default_device())))
            th.start()
            th.join()
            assert seen == ["cpu"] and L.get_default_device().type == DEV[L]
        finally:
            L.set_default_device(None)


def test_out_argument_keeps_out_device():
    mg.set_default_device("cuda")
    try:
        out = mg.empty(3, device="cpu")
        assert mg.zeros(3, out=out) is out and out.device.type == "cpu"
    finally:
        mg.set_default_device(None)
