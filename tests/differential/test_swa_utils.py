"""torch.optim.swa_utils (AveragedModel, SWALR, update_bn, the averaging functions) against
PyTorch 2.13: averaged weights bit for bit, lr trajectories, BatchNorm statistics."""
import numpy as np
import pytest
import torch
from torch.optim import swa_utils as TS

import minigrad as mg
import optim
from optim import swa_utils as MS


def make(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2))


def same(a, b):
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_multi", "swa_multi", "buffers"])
def test_averaged_model_bitwise(kind):
    # the model's tensors are set from the same arrays in both frameworks before each update,
    # so only the averaging arithmetic is compared (bit for bit, fp32)
    runs = []
    for lib, S, opt_mod in ((mg, MS, optim), (torch, TS, torch.optim)):
        model = make(lib)
        kw = {"swa": {}, "ema": {"avg_fn": S.get_ema_avg_fn(0.9)},
              "ema_multi": {"multi_avg_fn": S.get_ema_multi_avg_fn(0.9)},
              "swa_multi": {"multi_avg_fn": S.get_swa_multi_avg_fn()},
              "buffers": {"use_buffers": True}}[kind]
        avg = S.AveragedModel(model, **kw)
        opt = opt_mod.SGD(model.parameters(), lr=0.1)
        sched = S.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
        lrs = []
        rng = np.random.default_rng(1)
        for _ in range(4):
            with lib.no_grad():
                for t in list(model.parameters()) + list(model.buffers()):
                    if t.is_floating_point():
                        t.copy_(lib.tensor(rng.standard_normal(tuple(t.shape)),
                                           dtype=t.dtype))
            opt.step()
            avg.update_parameters(model)
            sched.step()
            lrs.append(sched.get_last_lr())
        runs.append((avg, lrs))
    (ma, mlrs), (ta, tlrs) = runs
    assert mlrs == tlrs
    assert list(ma.state_dict()) == list(ta.state_dict())
    for k, v in ta.state_dict().items():
        same(ma.state_dict()[k], v)


def test_update_bn():
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((5, 3)) for _ in range(3)]
    res = []
    for lib, S in ((mg, MS), (torch, TS)):
        model = make(lib).double()
        model.eval()
        S.update_bn([(lib.tensor(b), 0) for b in batches], model)
        bn = model[1]
        assert not model.training and bn.momentum == 0.1
        res.append((bn.running_mean, bn.running_var, bn.num_batches_tracked))
    for a, b in zip(*res):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_cos_schedule_state_dict_and_errors():
    for lib, S, opt_mod in ((mg, MS, optim), (torch, TS, torch.optim)):
        p = lib.nn.Parameter(lib.ones(2))
        opt = opt_mod.SGD([p], lr=1.0)
        with pytest.raises(ValueError, match="anneal_strategy must be one of"):
            S.SWALR(opt, 0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
            S.SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="Invalid decay value"):
            S.get_ema_avg_fn(2.0)
    res = []
    for lib, S, opt_mod in ((mg, MS, optim), (torch, TS, torch.optim)):
        p = lib.nn.Parameter(lib.ones(2))
        opt = opt_mod.SGD([p], lr=1.0)
        sched = S.SWALR(opt, 0.1, anneal_epochs=4)
        lrs = []
        for _ in range(6):
            opt.step()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        sd = sched.state_dict()
        res.append((lrs, sorted(k for k in sd if k != "_last_lr")))
    assert res[0][0] == res[1][0]
