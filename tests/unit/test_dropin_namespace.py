"""The drop-in namespace: ``import minigrad as torch`` carries a CUDA-style training script.

``minigrad.optim`` / ``minigrad.amp`` are the ``optim`` / ``amp_emu`` packages themselves,
resolved lazily (minigrad's core imports neither), ``minigrad.cuda``, ``minigrad.accelerator``
and ``minigrad.backends`` mirror PyTorch's; the script runs on the emulated cuda device and,
with ``MINIGRAD_EMULATE_CUDA=0``, takes its CPU path and prints what PyTorch CPU prints.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest
import torch

import minigrad as mg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
import sys
import numpy as np
import {lib} as torch
import {lib}.nn as nn
import {lib}.optim
from {lib}.optim.lr_scheduler import StepLR

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
assert not torch.backends.mps.is_available()
rng = np.random.default_rng(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
model.to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = StepLR(opt, step_size=2, gamma=0.5)
scaler = torch.amp.GradScaler(device, init_scale=2.0 ** 10)
x = torch.from_numpy(rng.standard_normal((8, 6)).astype(np.float32)).to(device)
y = torch.from_numpy(rng.integers(0, 3, 8)).to(device)
for step in range(4):
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    sched.step()
    print(step, logits.dtype, f"{{loss.item():.5f}}", scaler.get_scale(), sched.get_last_lr())
print(device, torch.accelerator.is_available(), str(next(model.parameters()).device))
'''


def _run(lib, env_extra=None):
    env = dict(os.environ, PYTHONPATH=ROOT, **(env_extra or {}))
    r = subprocess.run([sys.executable, "-c", SCRIPT.format(lib=lib)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.replace("torch.", "").replace("minigrad.", "")


def test_import_minigrad_does_not_import_optim_or_amp_emu():
    code = ("import sys, minigrad\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('optim', 'amp_emu')]\n"
            "assert not bad, bad\n"
            "minigrad.cuda.is_available(); minigrad.backends.cudnn.benchmark\n"
            "assert 'amp_emu' not in sys.modules\n"
            "import minigrad.optim, minigrad.amp\n"
            "assert minigrad.optim is sys.modules['optim'] and minigrad.amp is sys.modules['amp_emu']\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr


def test_aliases_are_the_packages_themselves():
    import amp_emu
    import optim
    import optim.lr_scheduler
    import minigrad.optim.lr_scheduler as sched
    from minigrad.amp import GradScaler, autocast, custom_bwd, custom_fwd
    assert mg.optim is optim and sched is optim.lr_scheduler and mg.optim.SGD is optim.SGD
    assert mg.amp is amp_emu and GradScaler is amp_emu.GradScaler
    assert autocast is amp_emu.autocast is mg.autocast
    assert (custom_fwd, custom_bwd) == (amp_emu.custom_fwd, amp_emu.custom_bwd)


def test_cuda_amp_aliases_warn_as_torch():
    for name, make in [("autocast", lambda m: m.cuda.amp.autocast()),
                       ("GradScaler", lambda m: m.cuda.amp.GradScaler()),
                       ("custom_fwd", lambda m: m.cuda.amp.custom_fwd(lambda ctx, x: x)),
                       ("custom_bwd", lambda m: m.cuda.amp.custom_bwd(lambda ctx, g: g))]:
        got = {}
        for lib in (mg, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                make(lib)
            got[lib] = [str(x.message) for x in w if x.category is FutureWarning]
        assert got[mg] == got[torch] and len(got[mg]) == 1, (name, got)
    assert mg.cuda.amp.autocast.__mro__[1] is mg.amp.autocast


def test_accelerator_and_backends_flags():
    assert mg.accelerator.is_available() and mg.accelerator.current_accelerator() == \
        mg.device("cuda")
    assert mg.accelerator.device_count() == 1 and mg.accelerator.current_device_index() == 0
    b, t = mg.backends, torch.backends
    for flag in ("allow_tf32", "benchmark", "deterministic", "enabled"):
        assert getattr(b.cudnn, flag) == getattr(t.cudnn, flag), flag
    assert b.cuda.matmul.allow_tf32 == t.cuda.matmul.allow_tf32
    assert b.mps.is_available() == t.mps.is_available() is False
    old = b.cudnn.benchmark
    try:
        b.cudnn.benchmark = True
        import minigrad.backends.cudnn as cudnn
        assert cudnn.benchmark is True
    finally:
        b.cudnn.benchmark = old


@pytest.mark.parametrize("lib", ["minigrad"])
def test_cuda_script_runs_on_the_emulated_device(lib):
    out = _run(lib)
    assert out.splitlines()[-1] == "cuda True cuda:0"
    assert all(" bfloat16 " in line for line in out.splitlines()[:4])


def test_cuda_script_with_emulation_off_prints_what_pytorch_cpu_prints():
    mine = _run("minigrad", {"MINIGRAD_EMULATE_CUDA": "0"}).splitlines()
    theirs = _run("torch").splitlines()
    assert mine[-1] == theirs[-1] == "cpu False cpu"
    for a, b in zip(mine[:-1], theirs[:-1]):
        sa, sb = a.split(), b.split()
        assert sa[:2] == sb[:2] and sa[3:] == sb[3:], (a, b)        # dtype, scale, lr
        assert abs(float(sa[2]) - float(sb[2])) <= 2e-2 * abs(float(sb[2])), (a, b)  # bf16 loss


def test_train_digits_on_the_emulated_cuda_device_prints_the_cpu_numbers():
    """The same kernels on both devices, and both autocast tables run this MLP's linear layers
    in low precision and its loss in fp32: every printed number but the time agrees (fp16 with
    GradScaler: the precision where the most device-dependent machinery runs). The table's
    "peak" column is a cuda figure only (minigrad.cuda.max_memory_allocated; "-" on the cpu)."""
    def table(device):
        r = subprocess.run([sys.executable, "examples/train_digits.py", "--epochs", "1",
                            "--precision", "fp16",
                            "--no-progress", "--device-type", device], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        rows = [line.split()[:7] + line.split()[8:9]   # less the time and peak columns
                for line in r.stdout.splitlines() if line.startswith("minigrad ")]
        assert len(rows) == 1
        return rows
    assert table("cuda") == table("cpu")
