"""Check (GPU machine): minigrad's emulated cuda memory figures beside PyTorch's on a real GPU.

The same small training script (a 64-256-10 MLP, batch 32, cross entropy, Adam with
``foreach=True``) runs in PyTorch on real CUDA and in minigrad on its emulated cuda device, and
after each phase (params, inputs, forward, backward, step, zero_grad) both report
``torch.cuda.memory_allocated()`` and the phase's ``max_memory_allocated()`` (the peak is reset
after every phase), in bytes over the figure before the script. minigrad's figures come from its
model of PyTorch's caching allocator (512-byte blocks), so they should be equal.

Before the baseline, PyTorch's side runs a tiny Linear forward and backward once: cuBLAS / cuBLASLt
take their workspaces from the caching allocator on first use (per handle, and the backward
runs on the autograd engine's own thread, so its handle too), which minigrad does not model; the
warm-up takes them out of the comparison.

Run: python bench/check_cuda_memory_vs_torch.py       (seconds; needs a CUDA GPU for the torch
     column; without one only minigrad's column is printed)
``tests/unit/test_cuda_memory_vs_torch.py`` runs ``measure`` for both and asserts equality when
``torch.cuda.is_available()`` (never in CI).
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = ("params", "inputs", "forward", "backward", "step", "zero_grad")
LOSSES = ("mse_loss", "cross_entropy")


def warm_up(lib) -> None:
    """Make the library's one-time cuda allocations (cuBLAS/cuBLASLt workspaces of the forward
    and the backward thread) before the baseline; a no-op in effect for minigrad."""
    w = lib.ones(8, 8, device="cuda", requires_grad=True)
    b = lib.zeros(8, device="cuda", requires_grad=True)
    lib.nn.functional.linear(lib.ones(4, 8, device="cuda"), w, b).sum().backward()
    del w, b
    lib.cuda.synchronize()


def measure(lib, loss_fn="mse_loss") -> list:
    """Run the script with ``lib`` (``torch`` or ``minigrad``) on its cuda device.

    Args:
        loss_fn: ``"mse_loss"`` (against a 32x10 random target) or ``"cross_entropy"``
            (against 32 class indices).

    Returns:
        ``[(phase, allocated, peak)]``: after each phase of ``PHASES``, the bytes allocated and
        the phase's peak, both relative to ``memory_allocated()`` before the script.
    """
    cuda = lib.cuda
    warm_up(lib)
    lib.manual_seed(0)
    cuda.synchronize()
    base = cuda.memory_allocated()
    cuda.reset_peak_memory_stats()
    rows = []

    def mark(phase):
        cuda.synchronize()
        rows.append((phase, cuda.memory_allocated() - base, cuda.max_memory_allocated() - base))
        cuda.reset_peak_memory_stats()

    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).to("cuda")
    opt = lib.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    mark("params")
    x = lib.randn(32, 64, device="cuda")
    if loss_fn == "mse_loss":
        y = lib.randn(32, 10, device="cuda")
    else:
        y = lib.randint(0, 10, (32,), device="cuda")
    mark("inputs")
    loss = getattr(nn.functional, loss_fn)(model(x), y)
    mark("forward")
    loss.backward()
    mark("backward")
    opt.step()
    mark("step")
    opt.zero_grad()
    mark("zero_grad")
    del model, opt, x, y, loss
    return rows


def table(ours, theirs) -> str:
    """The two measurements side by side (``theirs`` None: minigrad's column only)."""
    head = f"{'phase':<10}{'minigrad alloc':>16}{'minigrad peak':>15}"
    if theirs is not None:
        head += f"{'torch alloc':>13}{'torch peak':>12}{'equal':>7}"
    lines = [head, "-" * len(head)]
    for i, (phase, a, p) in enumerate(ours):
        line = f"{phase:<10}{a:>16}{p:>15}"
        if theirs is not None:
            _, ta, tp = theirs[i]
            line += f"{ta:>13}{tp:>12}{'yes' if (a, p) == (ta, tp) else 'NO':>7}"
        lines.append(line)
    return "\n".join(lines)


def main() -> int:
    sys.path.insert(0, ROOT)
    import minigrad
    import torch
    gpu = torch.cuda.is_available()
    if not gpu:
        print("torch.cuda.is_available() is False: minigrad's column only (run on a GPU machine "
              "for the comparison)")
    else:
        print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    same = True
    for loss_fn in LOSSES:
        ours = measure(minigrad, loss_fn)
        theirs = measure(torch, loss_fn) if gpu else None
        print(f"\n{loss_fn}: bytes over the start of the script (peak: within the phase)")
        print(table(ours, theirs))
        if theirs is not None:
            same = same and ours == theirs
            print("all phases equal" if ours == theirs else "figures differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
