"""The namespaces real scripts touch besides the ops, against PyTorch 2.13: ``__version__`` /
``version``, ``jit``, ``autograd.Variable``, ``autograd.profiler.profile``, ``cpu`` (and its
deprecated ``amp``), ``cuda``'s streams, events, rng state and nvtx, the SDPA backend flags
(``nn.attention.sdpa_kernel``, ``backends.cuda.*_sdp``) and the interop thread count."""
import operator
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _raises_like(mine, theirs):
    with pytest.raises(Exception) as ours:
        mine()
    with pytest.raises(Exception) as ref:
        theirs()
    assert type(ours.value).__name__ == type(ref.value).__name__
    assert str(ours.value) == str(ref.value)


# ---------------------------------------------------------------- version
@pytest.mark.parametrize("other", ["2.13", "2.13.0", (2, 13), (2, 13, 0), "2.14", "1.8.0",
                                   "2.13.0a0", "2.12.9", "2.13.1", "2.13.0.dev20250101",
                                   "2.13.0rc1", "2.13.0.post1", (3,), "10.0"])
def test_version_compares_as_torch_does(other):
    # the local labels differ (+minigrad / +cpu) and both sort after the bare release
    ours, theirs = mg.__version__, torch.__version__
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        assert op(ours, other) == op(theirs, other), (op, other)


def test_version_module():
    assert isinstance(mg.__version__, str) and mg.__version__.startswith("2.13.0")
    assert mg.version.__version__ is mg.__version__
    assert mg.version.minigrad_version == "0.1.0"
    assert mg.version.hip is None and mg.version.debug is False
    assert mg.version.cuda == "12.8"          # the emulated cuda device is on in the suite
    assert int(mg.__version__.split(".")[0]) >= 2
    assert mg.__version__.split("+")[0] == torch.__version__.split("+")[0]
    _raises_like(lambda: mg.__version__ > 3, lambda: torch.__version__ > 3)


def test_version_cuda_none_without_emulation():
    code = "import minigrad; print(minigrad.version.cuda, minigrad.cuda.is_available())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "MINIGRAD_EMULATE_CUDA": "0"},
                         check=True).stdout.split()
    assert out == ["None", "False"]


# ---------------------------------------------------------------- jit
def test_jit_names_run_eagerly():
    assert mg.jit.is_scripting() is torch.jit.is_scripting() is False
    assert mg.jit.is_tracing() is False

    def f(x):
        return x * 2
    assert mg.jit.script(f) is f
    assert mg.jit.trace(f, (mg.ones(2),)) is f
    m = mg.nn.Linear(2, 2)
    assert mg.jit.script(m) is m
    for deco in (mg.jit.ignore, mg.jit.ignore(drop=True), mg.jit.unused, mg.jit.export,
                 mg.jit.script_method, mg.jit.script_if_tracing):
        assert deco(f) is f
    assert mg.jit.annotate(list, [1]) == [1]
    fut = mg.jit.fork(f, mg.ones(2))
    assert mg.equal(mg.jit.wait(fut), mg.full((2,), 2.0))

    class M(mg.nn.Module):
        n: mg.jit.Final[int] = 3

        @mg.jit.ignore
        def helper(self):
            return self.n

        def forward(self, x):
            if not mg.jit.is_scripting():
                return x + self.helper()
            return x
    assert mg.equal(M()(mg.zeros(1)), mg.full((1,), 3.0))
    assert issubclass(mg.jit.ScriptModule, mg.nn.Module)
    assert not isinstance(m, mg.jit.ScriptModule)
    with pytest.raises(NotImplementedError, match="state_dict"):
        mg.jit.save(m, "x.pt")


def test_jit_fork_raises_on_wait():
    def bad():
        raise ValueError("boom")
    fut = mg.jit.fork(bad)
    with pytest.raises(ValueError, match="boom"):
        fut.wait()


# ---------------------------------------------------------------- Variable
def test_variable_as_torch():
    for lib in (mg, torch):
        a = lib.ones(2)
        v = lib.autograd.Variable(a, requires_grad=True)
        assert v is not a and v.requires_grad and not a.requires_grad and v.is_leaf
        v.data[0] = 5.0                                   # shares a's storage
        assert a[0].item() == 5.0
        assert isinstance(a, lib.autograd.Variable)
        assert not isinstance(3, lib.autograd.Variable)
        b = lib.ones(2, requires_grad=True) * 2
        w = lib.autograd.Variable(b)
        assert w.grad_fn is None and not w.requires_grad
        assert tuple(lib.autograd.Variable().shape) == (0,)
        with pytest.warns(UserWarning, match="volatile was removed"):
            assert not lib.autograd.Variable(lib.ones(1), volatile=True).requires_grad
    _raises_like(lambda: mg.autograd.Variable(3), lambda: torch.autograd.Variable(3))
    _raises_like(lambda: mg.autograd.Variable(mg.ones(1, dtype=mg.long), requires_grad=True),
                 lambda: torch.autograd.Variable(torch.ones(1, dtype=torch.long),
                                                 requires_grad=True))


# ---------------------------------------------------------------- legacy autograd profiler
def test_autograd_profiler_profile():
    x = mg.randn(4, 4, requires_grad=True)
    with mg.autograd.profiler.profile(record_shapes=True) as prof:
        (x @ x).relu().sum().backward()
    names = {e.key for e in prof.key_averages()}
    assert {"aten::mm", "aten::relu", "aten::sum"} <= names
    assert prof.function_events is prof.events()
    assert "Self CPU time total" in prof.table(sort_by="self_cpu_time_total", row_limit=5)
    assert prof.self_cpu_time_total > 0
    assert prof.total_average().count == len(prof.function_events)
    with mg.autograd.profiler.profile(enabled=False) as off:
        mg.ones(1) + 1
    assert off.function_events is None
    with pytest.warns(FutureWarning, match="use_device = 'cuda'"):
        mg.autograd.profiler.profile(use_cuda=True)
    with mg.autograd.profiler.emit_nvtx():
        pass


# ---------------------------------------------------------------- torch.cpu
def test_cpu_module():
    for name in ("is_available", "device_count", "current_device", "is_initialized"):
        assert getattr(mg.cpu, name)() == getattr(torch.cpu, name)()
    assert mg.cpu.synchronize() is None
    e = mg.cpu.Event()
    e.record()
    assert e.query()
    s = mg.cpu.current_stream()
    with mg.cpu.stream(s):
        pass


@pytest.mark.parametrize("cls", ["autocast", "GradScaler"])
def test_cpu_amp_deprecated_aliases(cls):
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        obj = getattr(mg.cpu.amp, cls)()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        getattr(torch.cpu.amp, cls)()
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert [w.category for w in ours] == [FutureWarning]
    if cls == "autocast":
        with obj:
            y = mg.nn.functional.linear(mg.ones(2, 2), mg.ones(2, 2))
        assert y.dtype == mg.bfloat16
    else:
        # torch.cpu.amp.GradScaler() is torch.amp.GradScaler("cpu"): both keep the device in _device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            theirs_obj = torch.cpu.amp.GradScaler()
        assert obj._device == theirs_obj._device == "cpu"
        assert obj.get_scale() == theirs_obj.get_scale()


# ---------------------------------------------------------------- torch.cuda extras
def test_cuda_events_time_the_work():
    start = mg.cuda.Event(enable_timing=True)
    end = mg.cuda.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    mg.cuda.synchronize()
    assert 15.0 <= start.elapsed_time(end) < 2000.0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        mg.cuda.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        mg.cuda.Event(enable_timing=True).elapsed_time(end)


def test_cuda_streams_and_device_context():
    s = mg.cuda.Stream()
    assert str(s.device) == "cuda:0" and s.query()
    assert mg.cuda.current_stream() == mg.cuda.default_stream()
    with mg.cuda.stream(s) as entered:
        assert entered is s and mg.cuda.current_stream() is s
        s.wait_stream(mg.cuda.default_stream())
        ev = s.record_event()
        assert ev.query()
    assert mg.cuda.current_stream() is not s
    with mg.cuda.device(0):
        x = mg.ones(1, device="cuda")
    with mg.cuda.device_of(x):
        pass
    with pytest.raises(RuntimeError):
        with mg.cuda.device(1):
            pass


def test_cuda_rng_state_is_the_cpu_stream():
    mg.manual_seed(0)
    state = mg.cuda.get_rng_state()
    a = mg.rand(3, device="cuda")
    mg.cuda.set_rng_state(state)
    assert mg.equal(a, mg.rand(3, device="cuda"))
    states = mg.cuda.get_rng_state_all()
    assert len(states) == 1
    b = mg.rand(2)
    mg.cuda.set_rng_state_all(states)
    assert mg.equal(b, mg.rand(2))
    with mg.random.fork_rng(devices=[]):
        mg.rand(1)


def test_cuda_nvtx_ranges_nest():
    nvtx = mg.cuda.nvtx
    assert nvtx.range_pop() == -1
    assert nvtx.range_push("a") == 0
    assert nvtx.range_push("b") == 1
    assert nvtx.range_pop() == 1 and nvtx.range_pop() == 0
    with nvtx.range("step {}", 3):
        assert nvtx.range_push("inner") == 1
        nvtx.range_pop()
    nvtx.mark("m")
    nvtx.range_end(nvtx.range_start("r"))


# ---------------------------------------------------------------- SDPA backend flags
def _sdpa_outcome(lib, backends, kind):
    F = lib.nn.functional
    q = lib.ones(1, 2, 4, 8) if kind != "3d" else lib.ones(2, 4, 8)
    kw = {"dropout_p": 0.5} if kind == "dropout" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # torch explains why a fused kernel is not used
        with lib.nn.attention.sdpa_kernel([getattr(lib.nn.attention.SDPBackend, b)
                                           for b in backends]):
            flags = (lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.math_sdp_enabled(),
                     lib.backends.cuda.mem_efficient_sdp_enabled(),
                     lib.backends.cuda.cudnn_sdp_enabled())
            try:
                return flags, tuple(F.scaled_dot_product_attention(q, q, q, **kw).shape)
            except RuntimeError as e:
                return flags, str(e)


@pytest.mark.parametrize("backends", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"],
                                      ["CUDNN_ATTENTION"], ["FLASH_ATTENTION", "MATH"], []])
@pytest.mark.parametrize("kind", ["plain", "dropout", "3d"])
def test_sdpa_kernel_as_torch(backends, kind):
    assert _sdpa_outcome(mg, backends, kind) == _sdpa_outcome(torch, backends, kind)
    assert mg.backends.cuda.flash_sdp_enabled() and mg.backends.cuda.math_sdp_enabled()


def test_sdpa_kernel_picks_the_kernel():
    """MATH alone runs the math decomposition and FLASH alone the fused kernel: each gives its
    own path's bits (the default picks the fused one for these inputs)."""
    g = np.random.default_rng(0)
    qn = g.standard_normal((1, 2, 5, 8)).astype(np.float32)
    q = mg.tensor(qn)
    F = mg.nn.functional
    with mg.nn.attention.sdpa_kernel(mg.nn.attention.SDPBackend.MATH):
        math_ = F.scaled_dot_product_attention(q, q, q).numpy()
    with mg.nn.attention.sdpa_kernel(mg.nn.attention.SDPBackend.FLASH_ATTENTION):
        flash = F.scaled_dot_product_attention(q, q, q).numpy()
    default = F.scaled_dot_product_attention(q, q, q).numpy()
    ref = mg.ops.attention_backend._sdpa_math(q, q, q, None, 0.0, False, None).numpy()
    assert math_.tobytes() == ref.tobytes()
    assert flash.tobytes() == default.tobytes()


def test_sdp_kernel_deprecated_context():
    with pytest.warns(FutureWarning, match="sdpa_kernel"):
        with mg.backends.cuda.sdp_kernel(enable_flash=False):
            assert not mg.backends.cuda.flash_sdp_enabled()
    assert mg.backends.cuda.flash_sdp_enabled()
    mg.backends.cuda.enable_math_sdp(False)
    try:
        assert not mg.backends.cuda.math_sdp_enabled()
    finally:
        mg.backends.cuda.enable_math_sdp(True)
    with pytest.raises(AssertionError, match="SDPBackend"):
        mg.nn.attention.sdpa_kernel(["MATH"])


# ---------------------------------------------------------------- interop threads
def test_interop_threads_as_torch():
    code = """
import sys
lib = __import__(sys.argv[1])
out = [str(lib.get_num_interop_threads() >= 1)]
for bad in (0, 1.5):
    try:
        lib.set_num_interop_threads(bad)
    except RuntimeError as e:
        out.append(str(e))
lib.set_num_interop_threads(1)
out.append(str(lib.get_num_interop_threads()))
try:
    lib.set_num_interop_threads(1)
except RuntimeError as e:
    out.append(str(e))
print("|".join(out))
"""
    ours, theirs = (subprocess.run([sys.executable, "-c", code, lib], capture_output=True,
                                   text=True, check=True).stdout for lib in ("minigrad", "torch"))
    assert ours == theirs


# ---------------------------------------------------------------- constants
def test_constants_as_torch():
    for name in ("inf", "pi", "e"):
        assert getattr(mg, name) == getattr(torch, name)
    assert mg.nan != mg.nan and mg.newaxis is None is torch.newaxis
    x = mg.ones(3)
    assert tuple(x[:, mg.newaxis].shape) == (3, 1)
    assert mg.equal(x.masked_fill(x > 0, -mg.inf), mg.full((3,), float("-inf")))


# ---------------------------------------------------------------- torch._foreach_*
def _ema(L):
    L.manual_seed(0)
    ema, params = [L.randn(3, 3), L.randn(5)], [L.randn(3, 3), L.randn(5)]
    with L.no_grad():
        L._foreach_mul_(ema, 0.9)
        L._foreach_add_(ema, params, alpha=0.1)
        L._foreach_lerp_(ema, params, 0.3)
        L._foreach_addcmul_(ema, params, params, value=0.5)
        norms = L._foreach_norm(ema)
        diff = L._foreach_sub(ema, params, alpha=2)
        shifted = L._foreach_sub(ema, [1.0, 2.0])
        roots = L._foreach_sqrt([p.abs() for p in params])
        L._foreach_copy_(params, ema)
        L._foreach_zero_(shifted)
    return [t.numpy() for t in [*ema, *norms, *diff, *shifted, *params]], \
        [type(r) for r in (norms, diff, roots)], [t.numpy() for t in roots]


def test_foreach_functions_as_torch():
    (ours, ours_types, our_roots), (theirs, theirs_types, roots) = _ema(mg), _ema(torch)
    assert ours_types == theirs_types == [tuple] * 3
    for a, b in zip(ours, theirs):
        assert a.tobytes() == b.tobytes()
    for a, b in zip(our_roots, roots):   # fp32 sqrt: within 1 ulp (the README's contract)
        assert np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32)).max() <= 1
    assert mg._foreach_add_.__name__ == "_foreach_add_" and "torch._foreach_add_" in \
        mg._foreach_add_.__doc__


@pytest.mark.parametrize("call", [lambda L: L._foreach_copy_([L.ones(1)], []),
                                  lambda L: L._foreach_copy_([L.ones(1)], [L.ones(1)] * 2),
                                  lambda L: L._foreach_sub([L.ones(1)], [1.0, 2.0]),
                                  lambda L: L._foreach_sub([], 1.0)])
def test_foreach_errors_as_torch(call):
    _raises_like(lambda: call(mg), lambda: call(torch))


def test_foreach_is_dispatched():
    from minigrad.testing import TraceMode
    with TraceMode() as t:
        mg._foreach_mul_([mg.ones(2)], 2.0)
    assert "_foreach_mul_" in [r.name for r in t.records]


# ---------------------------------------------------------------- python -m minigrad.run
def test_run_resolves_every_torch_import(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import sys\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader, TensorDataset\nfrom torch.optim import SGD\n"
        "torch.manual_seed(0)\nm = nn.Linear(4, 2)\nopt = SGD(m.parameters(), lr=0.1)\n"
        "data = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))\n"
        "for x, y in DataLoader(data, batch_size=4):\n"
        "    loss = F.cross_entropy(m(x), y); opt.zero_grad(); loss.backward(); opt.step()\n"
        "print(torch.__name__, type(loss).__module__.split('.')[0], f'{loss.item():.6f}',"
        " sys.argv[1:], __name__)\nsys.exit(3)\n")
    ours = subprocess.run([sys.executable, "-m", "minigrad.run", str(script), "a", "--b"],
                          capture_output=True, text=True)
    theirs = subprocess.run([sys.executable, str(script), "a", "--b"], capture_output=True,
                            text=True)
    assert ours.returncode == theirs.returncode == 3, ours.stderr
    o, t = ours.stdout.split(), theirs.stdout.split()
    assert o[:2] == ["minigrad", "minigrad"] and t[:2] == ["torch", "torch"]
    assert o[2:] == t[2:]                     # the same loss, argv and __name__


def test_run_reprs_say_torch(tmp_path):
    """Under minigrad.run the reprs name ``torch.`` (dtypes, Size, return_types, layouts), so a
    script comparing ``str(x.dtype)`` takes PyTorch's branch and prints what PyTorch prints."""
    script = tmp_path / "reprs.py"
    script.write_text(
        "import torch\nx = torch.ones(2, 3, dtype=torch.float16)\n"
        "print(str(x.dtype) == 'torch.float16', x.dtype, x.shape, torch.strided)\n"
        "print(x)\nprint(x.float().max(1))\nprint(torch.ones(2).type())\n")
    ours = subprocess.run([sys.executable, "-m", "minigrad.run", str(script)],
                          capture_output=True, text=True)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
