"""``torch.nn.modules.module``'s path with the global module forward hooks and
``torch.typename`` (a new user's trial: the path and both were missing). Global hooks run for
every module, before the module's own hooks, as PyTorch's."""
from __future__ import annotations

import importlib

import pytest

torch = pytest.importorskip("torch")
import minigrad  # noqa: E402


def _run(L):
    mm = importlib.import_module(L.__name__ + ".nn.modules.module")
    log = []
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Linear(3, 2), L.nn.ReLU())
    net[0].register_forward_hook(lambda m, a, o: log.append(("own", type(m).__name__)))
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: log.append(("pre", type(m).__name__))),
        mm.register_module_forward_hook(
            lambda m, a, o: log.append(("post", type(m).__name__, tuple(o.shape)))),
        mm.register_module_forward_hook(
            lambda m, a, k, o: o * 2 if isinstance(m, L.nn.ReLU) else None, with_kwargs=True)]
    y = net(L.ones(1, 3) * 5)
    first = (list(log), [round(v, 5) for v in y.flatten().tolist()])
    for h in handles:
        h.remove()
    log.clear()
    net(L.ones(1, 3))
    return first, list(log), mm.Module is L.nn.Module, L.typename(L.ones(2)).split(".")[1], \
        L.typename(3), L.typename(L.nn.Linear).split(".", 1)[1]


def test_global_forward_hooks_and_typename_as_torch():
    assert _run(minigrad) == _run(torch)


def test_as_strided_function_and_method_as_torch():
    """``torch.as_strided`` / ``Tensor.as_strided`` (only ``as_strided_`` was exposed)."""
    out = []
    for L in (minigrad, torch):
        x = L.arange(6.).requires_grad_()
        y = L.as_strided(x, (2, 2), (1, 2), 1)
        (y * L.tensor([[1., 2.], [3., 4.]])).sum().backward()
        out.append((y.tolist(), y.grad_fn.name(), x.grad.tolist(),
                    L.arange(9.).as_strided((3,), (4,)).tolist()))
    assert out[0] == out[1]


def test_load_state_dict_assign_as_torch():
    """``load_state_dict(assign=True)`` (it raised NotImplementedError): the checkpoint's
    tensors become the module's, dtype kept, parameters wrapped with the module's
    ``requires_grad``."""
    out = []
    for L in (minigrad, torch):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))
        sd = {k: v.double() * 0 + 1 for k, v in m.state_dict().items()}
        r = m.load_state_dict(sd, assign=True)
        first = (str(r), str(m[0].weight.dtype).split(".")[1], type(m[0].weight).__name__,
                 m[0].weight.requires_grad, m[1].running_mean is sd["1.running_mean"])
        m[0].weight.requires_grad_(False)
        m.load_state_dict({k: v.float() * 2 for k, v in m.state_dict().items()}, assign=True)
        out.append((first, m[0].weight.requires_grad, m[0].weight.tolist()))
    assert out[0] == out[1]


def test_T_deprecation_warnings_once_as_torch():
    """``x.T`` on a tensor of more than 2 dims (and on a 0-D one) warns once per process, as
    PyTorch's TORCH_WARN_ONCE; 1-D and 2-D do not. Run in a child: the flag is per process."""
    import subprocess
    import sys
    code = ("import warnings, sys\nL = __import__(sys.argv[1])\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(2):\n"
            "        L.ones(2, 3, 4).T; L.ones(()).T; L.ones(3).T; L.ones(2, 3).T\n"
            "print([str(x.message).split(' (Triggered')[0] for x in w])\n")
    out = [subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                          check=True).stdout.replace("torch.arange", "X").replace(
                              "minigrad.arange", "X") for name in ("minigrad", "torch")]
    assert out[0] == out[1] and out[0].count("deprecated") == 2
