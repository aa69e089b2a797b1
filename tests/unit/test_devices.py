"""Devices: ``minigrad.device``, tensors on cpu and the emulated cuda device, moves, factories,
the same-device rule, ``Module.to``, ``minigrad.cuda``.

Differential against PyTorch CPU wherever PyTorch CPU can run the same thing (device parsing,
``.to`` overloads, factories with ``device="cpu"``, errors); for cuda tensors against PyTorch's
documented CUDA semantics (device of results, the mixing error and its 0-dim exception, the
``.numpy()`` error, ``Module.to``), and against a CPU-only PyTorch for the emulation switched off.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import nn

CUDA = mg.device("cuda", 0)
MIXED = ("Expected all tensors to be on the same device, but found at least two devices, "
         "cuda:0 and cpu!")


def _error(fn):
    try:
        fn()
    except BaseException as e:      # noqa: BLE001 - the type is what we compare
        return type(e), str(e)
    return None


def same_error(fm, ft):
    em, et = _error(fm), _error(ft)
    assert et is not None and em is not None, (em, et)
    assert em[0] is et[0] and em[1].split("\n")[0] == et[1].split("\n")[0].replace("torch.",
                                                                                   "minigrad."), \
        (em, et)


# ---------------------------------------------------------------------- device objects
@pytest.mark.parametrize("args", [("cpu",), ("cuda",), ("cuda:0",), ("cuda:3",), ("cuda", 0),
                                  ("cuda", 2), ("cpu", 0), ("cpu:1",), ("meta",), ("mps",)])
def test_device_parsing_repr_str_hash_match_torch(args):
    d, t = mg.device(*args), torch.device(*args)
    assert (d.type, d.index) == (t.type, t.index)
    assert repr(d) == repr(t) and str(d) == str(t) and hash(d) == hash(t)
    assert mg.device(d) is d and mg.device(str(d)) == d
    assert pickle.loads(pickle.dumps(d)) == d


@pytest.mark.parametrize("args", [("banana",), ("CUDA",), (" cuda",), ("cuda:x",), ("cuda:",),
                                  ("cuda:-1",), ("cuda:01",), ("cuda:0:1",), (":0",),
                                  ("cuda:99999999999",), ("cuda", -1), ("cuda:0", 1),
                                  ("cuda:0", None), ("cuda", 1.0), ("cuda", "0"), (None,),
                                  ("banana", 0)])
def test_device_errors_match_torch(args):
    same_error(lambda: mg.device(*args), lambda: torch.device(*args))


def test_device_equality_and_immutability_as_torch():
    assert mg.device("cuda") != mg.device("cuda:0") and mg.device("cpu") != mg.device("cpu:0")
    assert (mg.device("cpu") == "cpu") is (torch.device("cpu") == "cpu") is False
    assert {mg.device("cuda", 0): 1}[mg.device("cuda:0")] == 1
    with pytest.raises(AttributeError):
        mg.device("cuda").type = "cpu"


# ---------------------------------------------------------------------- Tensor.to on the cpu
TO_CASES = {
    "dtype": lambda lib, t: t.to(lib.float16),
    "same dtype": lambda lib, t: t.to(lib.float32),
    "same dtype copy": lambda lib, t: t.to(lib.float32, copy=True),
    "positional copy": lambda lib, t: t.to(lib.float32, False, True),
    "device str": lambda lib, t: t.to("cpu"),
    "device obj": lambda lib, t: t.to(lib.device("cpu")),
    "device dtype": lambda lib, t: t.to("cpu", lib.float64),
    "device copy": lambda lib, t: t.to("cpu", copy=True),
    "keywords": lambda lib, t: t.to(device="cpu", dtype=lib.float16, non_blocking=True),
    "other": lambda lib, t: t.to(lib.zeros(1, dtype=lib.int32)),
    "None": lambda lib, t: t.to(None),
    "nothing": lambda lib, t: t.to(),
    "cpu()": lambda lib, t: t.cpu(),
}


@pytest.mark.parametrize("case", sorted(TO_CASES))
def test_to_overloads_match_torch_on_cpu(case):
    m, t = mg.tensor([1.5, -2.0]), torch.tensor([1.5, -2.0])
    rm, rt = TO_CASES[case](mg, m), TO_CASES[case](torch, t)
    assert (rm is m) == (rt is t)
    assert str(rm.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    assert str(rm.device) == str(rt.device) == "cpu"
    np.testing.assert_array_equal(rm.numpy().astype(np.float64), rt.double().numpy())


@pytest.mark.parametrize("bad", [lambda lib, t: t.to("banana"), lambda lib, t: t.to(foo=1),
                                 lambda lib, t: t.to("cpu", "float16"),
                                 lambda lib, t: lib.zeros(2, device="banana"),
                                 lambda lib, t: lib.tensor([1.0], device="cuda:x")])
def test_to_and_factory_errors_match_torch(bad):
    same_error(lambda: bad(mg, mg.ones(2)), lambda: bad(torch, torch.ones(2)))


def test_to_is_differentiable_through_dtype_and_device():
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.to("cpu", lib.float64)
        assert type(y.grad_fn).__name__ == "ToCopyBackward0"
        (y * y).sum().backward()
        assert x.grad.dtype == lib.float32 and x.grad.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------------- factories
FACTORIES = {
    "tensor": lambda lib, **k: lib.tensor([1, 2], **k),
    "zeros": lambda lib, **k: lib.zeros(2, 3, **k),
    "ones": lambda lib, **k: lib.ones((2,), **k),
    "full": lambda lib, **k: lib.full((2,), 1.5, **k),
    "empty": lambda lib, **k: lib.empty(2, **k),
    "arange": lambda lib, **k: lib.arange(4, **k),
    "eye": lambda lib, **k: lib.eye(2, **k),
    "linspace": lambda lib, **k: lib.linspace(0, 1, 5, **k),
    "randn": lambda lib, **k: lib.randn(2, **k),
    "rand": lambda lib, **k: lib.rand(2, **k),
    "randint": lambda lib, **k: lib.randint(0, 5, (3,), **k),
    "randperm": lambda lib, **k: lib.randperm(4, **k),
    "normal": lambda lib, **k: lib.normal(0.0, 1.0, (2,), **k),
    "zeros_like": lambda lib, **k: lib.zeros_like(lib.ones(2), **k),
    "ones_like": lambda lib, **k: lib.ones_like(lib.ones(2), **k),
    "full_like": lambda lib, **k: lib.full_like(lib.ones(2), 3, **k),
    "empty_like": lambda lib, **k: lib.empty_like(lib.ones(2), **k),
    "randn_like": lambda lib, **k: lib.randn_like(lib.ones(2), **k),
    "rand_like": lambda lib, **k: lib.rand_like(lib.ones(2), **k),
    "new_zeros": lambda lib, **k: lib.ones(2).new_zeros(3, **k),
    "new_ones": lambda lib, **k: lib.ones(2).new_ones((3,), **k),
    "new_full": lambda lib, **k: lib.ones(2).new_full((3,), 2.0, **k),
    "new_empty": lambda lib, **k: lib.ones(2).new_empty(3, **k),
    "new_tensor": lambda lib, **k: lib.ones(2).new_tensor([1.0, 2.0], **k),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_take_device_and_dtype(name):
    f = FACTORIES[name]
    for dev in ("cpu", mg.device("cpu")):
        m = f(mg, device=dev, dtype=mg.float64)
        t = f(torch, device="cpu", dtype=torch.float64)
        assert m.device == mg.device("cpu") and m.dtype is mg.float64 and t.dtype is torch.float64
        assert tuple(m.shape) == tuple(t.shape)
    c = f(mg, device="cuda", dtype=mg.float16)
    assert c.device == CUDA and c.is_cuda and c.dtype is mg.float16
    assert f(mg, device=mg.device("cuda:0")).device == CUDA


def test_like_and_new_factories_follow_their_inputs_device():
    x = mg.ones(2, 3, device="cuda")
    for y in (mg.zeros_like(x), mg.ones_like(x), mg.full_like(x, 2), mg.empty_like(x),
              mg.randn_like(x), mg.rand_like(x), x.new_zeros(2), x.new_ones(2),
              x.new_full((2,), 1.0), x.new_empty(2), x.new_tensor([1.0]), mg.tensor(x)):
        assert y.device == CUDA
    assert mg.zeros_like(x, device="cpu").device == mg.device("cpu")
    assert x.new_zeros(2, device="cpu").device == mg.device("cpu")


def test_cuda_random_factories_share_the_default_generator():
    mg.manual_seed(3)
    a = mg.randn(4)
    mg.manual_seed(3)
    assert mg.randn(4, device="cuda").cpu().tolist() == a.tolist()


# ---------------------------------------------------------------------- cuda tensors
def test_cuda_tensor_metadata_repr_and_moves():
    x = mg.tensor([1.0, 2.0]).cuda()
    assert x.device == CUDA and x.is_cuda and not x.is_cpu and x.get_device() == 0
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    assert repr(x.half().requires_grad_()) == \
        "tensor([1., 2.], device='cuda:0', dtype=minigrad.float16, requires_grad=True)"
    assert x.cuda() is x and x.to("cuda") is x and x.to(CUDA) is x and x.to(0) is x
    c = x.cpu()
    assert c.device == mg.device("cpu") and not c.is_cuda and c.get_device() == -1
    assert x.to("cpu", mg.float16).dtype is mg.float16
    assert mg.ones(1).to(x).device == CUDA
    for y in (x.detach(), x.data, x.clone(), x[0], x.view(2, 1), copy.deepcopy(x),
              pickle.loads(pickle.dumps(x))):
        assert y.device == CUDA


def test_ops_results_and_grads_live_on_cuda():
    x = mg.randn(3, 4, device="cuda", requires_grad=True)
    w = nn.Parameter(mg.randn(5, 4).cuda())
    assert w.device == CUDA
    y = nn.functional.relu(nn.functional.linear(x, w))
    assert y.device == CUDA and y.grad_fn.name() == "ReluBackward0"
    for r in (y.sum(), y.max(dim=1)[1], y > 0, y.argmax(), y.t(), mg.cat([y, y]),
              y.split(2, dim=1)[0], y.float().half(), y.softmax(-1)):
        assert r.device == CUDA
    loss = nn.functional.cross_entropy(y, mg.tensor([0, 1, 2], device="cuda"))
    loss.backward()
    assert loss.device == CUDA and x.grad.device == CUDA and w.grad.device == CUDA
    z = x.cpu()                                     # the move is differentiable
    x.grad = None
    (z * 2).sum().backward()
    assert x.grad.device == CUDA and x.grad.cpu().tolist() == [[2.0] * 4] * 3


def test_unused_outputs_and_implicit_grads_are_on_cuda():
    x = mg.randn(4, device="cuda", requires_grad=True)
    a, b = x.split(2)
    (a * 3).sum().backward()                       # b's gradient is materialised as zeros
    assert x.grad.device == CUDA and x.grad.cpu().tolist() == [3.0, 3.0, 0.0, 0.0]
    y = (x * 2)
    y.backward(mg.ones(4, device="cuda"))
    assert x.grad.device == CUDA


def test_mixing_devices_raises_torch_error():
    x, c = mg.ones(2, 3, device="cuda"), mg.ones(2, 3)
    for fn in (lambda: x + c, lambda: c * x, lambda: mg.matmul(x, c.t()), lambda: mg.cat([x, c]),
               lambda: mg.where(c > 0, x, x), lambda: nn.functional.linear(x, c)):
        with pytest.raises(RuntimeError) as ei:
            fn()
        assert str(ei.value) == MIXED
    with pytest.raises(RuntimeError, match="same device"):
        x.add_(c)


def test_zero_dim_cpu_tensors_mix_freely():
    x = mg.ones(3, device="cuda")
    s = mg.tensor(2.0)
    for r in (x * s, s * x, x + s, mg.where(x > 0, x, s), x.clamp(max=s)):
        assert r.device == CUDA
    x.mul_(s)
    assert x.cpu().tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="same device"):
        s.add_(mg.ones((), device="cuda"))         # an in-place op's output is no operand


def test_cpu_indices_index_a_cuda_tensor_and_copy_crosses_devices():
    x = mg.arange(6.0, device="cuda")
    assert x[mg.tensor([1, 4])].device == CUDA
    y = mg.zeros(6)
    y.copy_(x)
    assert y.device == mg.device("cpu") and y.tolist() == list(range(6))


def test_numpy_on_cuda_raises_torch_error():
    x = mg.ones(2, device="cuda")
    msg = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
           "tensor to host memory first.")
    for fn in (x.numpy, lambda: np.asarray(x)):
        with pytest.raises(TypeError) as ei:
            fn()
        assert str(ei.value) == msg
    assert x.cpu().numpy().tolist() == [1.0, 1.0] and x.tolist() == [1.0, 1.0] and \
        x.sum().item() == 2.0


def test_grad_assignment_checks_the_device():
    x = mg.ones(2, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="device type 'cpu' to a tensor with device type"):
        x.grad = mg.ones(2)
    x.grad = mg.ones(2, device="cuda")


# ---------------------------------------------------------------------- modules
def test_module_to_keeps_parameter_identity_and_moves_grads():
    for lib in (mg, torch):                         # the cpu half is checked against torch
        m = lib.nn.Linear(3, 2)
        w = m.weight
        m(lib.ones(1, 3)).sum().backward()
        assert m.to("cpu") is m and m.to(lib.float64) is m and m.weight is w
        assert w.dtype == lib.float64 and w.grad.dtype == lib.float64
        with pytest.raises(TypeError, match="only accepts floating point"):
            m.to(lib.int64)
    m = nn.Linear(3, 2)
    w = m.weight
    m(mg.ones(1, 3)).sum().backward()
    assert m.cuda() is m and m.weight is w and w.device == CUDA and w.grad.device == CUDA
    m.to("cpu", mg.float16)
    assert w.device == mg.device("cpu") and w.dtype is mg.float16 and w.grad.device == w.device
    m.to(device="cuda")
    assert w.dtype is mg.float16 and w.device == CUDA
    m.cpu()
    m.half().float().bfloat16().double()
    assert w.device == mg.device("cpu") and w.dtype is mg.float64


def test_layer_factory_kwargs_and_a_cuda_training_step():
    import optim
    model = nn.Sequential(nn.Linear(4, 8, device="cuda"), nn.ReLU(),
                          nn.Linear(8, 2, device="cuda", dtype=mg.float64)).to(mg.float32)
    assert all(p.device == CUDA and p.dtype is mg.float32 for p in model.parameters())
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = mg.randn(6, 4, device="cuda"), mg.randint(0, 2, (6,), device="cuda")
    for _ in range(2):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert all(p.device == CUDA for p in model.parameters())
    assert copy.deepcopy(model)[0].weight.device == CUDA


# ---------------------------------------------------------------------- minigrad.cuda
def test_cuda_module_with_the_emulation_on():
    assert mg.cuda.is_available() and mg.cuda.device_count() == 1
    assert mg.cuda.current_device() == 0 and "emulat" in mg.cuda.get_device_name()
    assert mg.cuda.is_bf16_supported() and mg.cuda.synchronize() is None
    mg.cuda.manual_seed(1)
    mg.cuda.manual_seed_all(2)
    assert mg.cuda.initial_seed() == 2
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        mg.ones(1, device="cuda:1")


def test_cuda_empty_cache_returns_as_torch_does_with_nothing_cached():
    # scripts call it between phases; PyTorch's returns None (also on a CPU-only build)
    assert mg.cuda.empty_cache() is None and torch.cuda.empty_cache() is None


@pytest.mark.parametrize("dev,dt", [("cpu:0", "bfloat16"), ("cuda:0", "float16")])
def test_autocast_accepts_a_device_string_with_an_index(dev, dt):
    # torch.autocast("cpu:0", ...) is accepted and takes effect as "cpu"
    kind = dev.split(":")[0]
    outs = []
    for lib in (mg, torch):
        if kind == "cuda" and lib is torch:
            continue
        a = lib.ones(2, 2, device=kind)
        with lib.autocast(dev, dtype=getattr(lib, dt)):
            outs.append(str((a @ a).dtype).split(".")[-1])
    assert set(outs) == {dt}
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="Invalid device string"):
            lib.autocast("cpu:x")


def test_emulation_off_behaves_like_cpu_only_torch(monkeypatch):
    monkeypatch.setenv("MINIGRAD_EMULATE_CUDA", "0")
    assert mg.cuda.is_available() is torch.cuda.is_available() is False
    assert mg.cuda.device_count() == torch.cuda.device_count() == 0
    assert mg.cuda.is_bf16_supported() is False
    assert mg.accelerator.is_available() is False and mg.accelerator.current_accelerator() is None
    for f in (lambda lib: lib.zeros(2, device="cuda"), lambda lib: lib.ones(2).cuda(),
              lambda lib: lib.ones(2).to("cuda"), lambda lib: lib.cuda.current_device(),
              lambda lib: lib.nn.Linear(2, 2).cuda()):
        same_error(lambda: f(mg), lambda: f(torch))


def test_save_load_keeps_devices_and_honours_map_location(tmp_path, monkeypatch):
    m = nn.Linear(2, 2).cuda()
    path = tmp_path / "ckpt.pt"
    mg.save({"sd": m.state_dict(), "p": m.weight}, path)
    for loc, want in ((None, CUDA), ("cpu", mg.device("cpu")), ({"cuda:0": "cpu"},
                                                                mg.device("cpu")),
                      (mg.device("cuda"), CUDA)):
        got = mg.load(path, map_location=loc)
        assert got["sd"]["weight"].device == want and got["p"].device == want
    monkeypatch.setenv("MINIGRAD_EMULATE_CUDA", "0")     # a cuda checkpoint on a CPU-only box
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        mg.load(path)
    assert mg.load(path, map_location="cpu")["p"].device == mg.device("cpu")


@pytest.mark.parametrize("make,fused", [(lambda p, f: mg.optim.Adam(p, fused=f), False),
                                        (lambda p, f: mg.optim.AdamW(p, fused=f), True),
                                        (lambda p, f: mg.optim.SGD(p, lr=0.1, momentum=0.9),
                                         False)])
def test_optimizer_load_state_dict_moves_state_to_the_parameters_device(make, fused):
    # the resume pattern: a cpu checkpoint, the model moved to cuda, the state loaded after.
    # PyTorch moves every state tensor to its parameter's device; "step" stays where it was
    # unless the optimizer is fused/capturable (_process_value_according_to_param_policy).
    m = mg.nn.Linear(2, 2)
    opt = make(m.parameters(), fused)
    m(mg.ones(1, 2)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    m.cuda()
    opt2 = make(m.parameters(), fused)
    opt2.load_state_dict(sd)
    m(mg.ones(1, 2, device="cuda")).sum().backward()
    opt2.step()
    for k, v in opt2.state[m.weight].items():
        want = "cpu" if (k == "step" and not fused) else "cuda"
        assert v.device.type == want, (k, v.device)


TO_CALLS = [lambda L, x: x.to("cpu", device="cpu"), lambda L, x: x.to(L.float16, dtype=L.float32),
            lambda L, x: x.to("cpu", L.float16, dtype=L.float16),
            lambda L, x: x.to(x, device="cpu"), lambda L, x: x.to("cpu", dtype=L.float16),
            lambda L, x: x.to(L.float16, copy=True),
            lambda L, x: x.to(device="cpu", dtype=L.float16)]


@pytest.mark.parametrize("i", range(len(TO_CALLS)))
def test_to_rejects_a_keyword_repeating_a_positional_as_torch(i):
    import torch
    out = []
    for lib in (torch, mg):
        try:
            out.append(str(TO_CALLS[i](lib, lib.ones(2)).dtype).split(".")[1])
        except TypeError:
            out.append("TypeError")
    assert out[0] == out[1]
