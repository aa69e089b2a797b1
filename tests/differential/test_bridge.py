"""``minigrad.testing.to_torch`` / ``from_torch`` on the objects of a training run: modules
(twins and ``into=`` by state_dict names), optimizer state and GradScaler state. The check is
PyTorch itself: the converted objects give PyTorch's results in PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import amp_emu
import minigrad as mg
import optim
from minigrad.testing import from_torch, to_torch

torch = pytest.importorskip("torch")


class _Net(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = mg.nn.Linear(4, 3)
        self.bn = mg.nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.fc(x)).relu()


class _TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.fc(x)).relu()


def test_module_twins_both_ways_compute_alike():
    mg.manual_seed(0)
    m = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.GELU(), mg.nn.LSTM(8, 3, batch_first=True))
    x = mg.randn(2, 5, 4)
    tm = to_torch(m)
    assert isinstance(tm, torch.nn.Sequential) and isinstance(tm[2], torch.nn.LSTM)
    assert tm[0].weight.dtype == torch.float32 and tm[0].weight.requires_grad
    ours = m(x)[0].detach().numpy()
    np.testing.assert_allclose(ours, tm(to_torch(x))[0].detach().numpy(), rtol=0, atol=1e-6)
    back = from_torch(tm)
    assert type(back) is mg.nn.Sequential and type(back[2]) is mg.nn.LSTM
    np.testing.assert_array_equal(back(x)[0].detach().numpy(), ours)    # same weights, bits


def test_user_modules_go_through_into_by_state_dict_names():
    mg.manual_seed(1)
    n = _Net()
    with pytest.raises(TypeError, match="into="):
        to_torch(n)
    tn = to_torch(n, into=_TNet())
    for k, v in n.state_dict().items():
        assert np.array_equal(tn.state_dict()[k].numpy(), v.numpy()), k
    x = mg.randn(6, 4)
    np.testing.assert_allclose(n(x).detach().numpy(), tn(to_torch(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    tn.fc.weight.data.mul_(2)
    assert from_torch(tn, into=n) is n
    assert np.array_equal(n.fc.weight.detach().numpy(), tn.fc.weight.detach().numpy())
    with pytest.raises(TypeError, match="into="):
        from_torch(_TNet())
    with pytest.raises(RuntimeError):           # PyTorch's own strict-loading error
        to_torch(n, into=torch.nn.Linear(4, 3))


def test_optimizer_state_carries_over_and_steps_alike():
    mg.manual_seed(2)
    # (no BatchNorm here: the gradient of a bias before it is rounding noise, which Adam
    # amplifies; the comparison needs gradients that mean something)
    n = mg.nn.Sequential(mg.nn.Linear(4, 6), mg.nn.Tanh(), mg.nn.Linear(6, 2))
    tn = to_torch(n)
    opt = optim.Adam(n.parameters(), lr=1e-2)
    topt = torch.optim.Adam(tn.parameters(), lr=1e-2)
    x = mg.randn(8, 4)
    for _ in range(2):
        opt.zero_grad()
        n(x).pow(2).sum().backward()
        opt.step()
    sd = to_torch(opt)
    assert isinstance(sd["state"][0]["exp_avg"], torch.Tensor)
    to_torch(n, into=tn)
    assert to_torch(opt, into=topt) is topt
    assert float(topt.state_dict()["state"][0]["step"]) == 2.0
    # one more step in each framework from the same state: the same parameters
    opt.zero_grad()
    n(x).pow(2).sum().backward()
    opt.step()
    topt.zero_grad()
    tn(to_torch(x)).pow(2).sum().backward()
    topt.step()
    for k, v in n.state_dict().items():
        np.testing.assert_allclose(v.numpy(), tn.state_dict()[k].numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=k)
    fresh = optim.Adam(mg.nn.Sequential(mg.nn.Linear(4, 6), mg.nn.Tanh(),
                                        mg.nn.Linear(6, 2)).parameters(), lr=1.0)
    from_torch(topt, into=fresh)
    assert fresh.param_groups[0]["lr"] == 1e-2
    assert np.array_equal(fresh.state_dict()["state"][0]["exp_avg"].numpy(),
                          topt.state_dict()["state"][0]["exp_avg"].numpy())


def test_grad_scaler_state_both_ways():
    sc = amp_emu.GradScaler("cuda", init_scale=1024.0, growth_interval=7)
    ts = torch.amp.GradScaler("cpu", init_scale=5.0)
    assert to_torch(sc) == {"scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                            "growth_interval": 7, "_growth_tracker": 0}
    to_torch(sc, into=ts)
    assert ts.get_scale() == 1024.0 and ts.get_growth_interval() == 7
    ts2 = torch.amp.GradScaler("cpu", init_scale=8.0, growth_factor=4.0)
    back = amp_emu.GradScaler("cuda")
    assert from_torch(ts2, into=back) is back
    assert back.get_scale() == 8.0 and back.get_growth_factor() == 4.0


def test_containers_and_refusals():
    t = mg.tensor([1.5, -2.0]).bfloat16()
    out = to_torch({"a": [t, 3], "b": (t,)})
    assert out["a"][1] == 3 and out["b"][0].dtype == torch.bfloat16
    assert from_torch(out)["a"][0].dtype is mg.bfloat16
    with pytest.raises(TypeError, match="cannot convert"):
        to_torch(object())
    with pytest.raises(TypeError, match="cannot convert"):
        from_torch("x")
