"""minigrad's emulated cuda memory figures against PyTorch's on a real GPU: the same small
training script (``bench/check_cuda_memory_vs_torch.py``'s ``measure``) in both, comparing
``memory_allocated()`` and each phase's ``max_memory_allocated()`` after params, inputs, forward,
backward, step and zero_grad. Needs ``torch.cuda.is_available()``: never runs in CI (the issue
says so); run it, or the bench script, on a GPU machine."""
import importlib.util
import os

import pytest
import torch

import minigrad

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "bench",
                     "check_cuda_memory_vs_torch.py")
_spec = importlib.util.spec_from_file_location("check_cuda_memory_vs_torch", _PATH)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

needs_gpu = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="needs a CUDA GPU for PyTorch's side (torch.cuda.is_available() is False); "
           "never run in CI")


def test_mse_script_figures_by_hand():
    """The script's figures on the emulated device, computed by hand from PyTorch's rules
    (512-byte blocks; fp32): W1 256x64 = 65536, b1 1024, W2 10x256 = 10240, b2 40 -> 512."""
    params = 65536 + 1024 + 10240 + 512                  # 77312
    inputs = params + 8192 + 1536                        # x 32x64, target 32x10 (1280 -> 1536)
    h = 32 * 256 * 4                                     # a hidden activation: 32768
    # forward: relu's output (saved; also linear 2's input), linear 2's output (saved by
    # mse_loss), the 0-dim loss; the peak is linear 1's output beside relu's
    forward = inputs + h + 1536 + 512
    # backward: the gradients (one per parameter, same sizes) stay, the saved tensors go;
    # the peak is in linear 1's AddmmBackward0: relu's gradient (h), W1's gradient (65536), b1's
    # (1024, summed over the batch), with the seed ones (512, held by backward's caller as in
    # PyTorch), W2's and b2's gradients
    backward = inputs + 512 + params
    backward_peak = inputs + 512 + 512 + 10240 + 512 + h + 65536 + 1024
    step = backward + 2 * params                          # Adam's exp_avg and exp_avg_sq
    step_peak = step + params                             # foreach sqrt: one temporary each
    assert check.measure(minigrad, "mse_loss") == [
        ("params", params, params), ("inputs", inputs, inputs),
        ("forward", forward, inputs + 2 * h), ("backward", backward, backward_peak),
        ("step", step, step_peak), ("zero_grad", step - params, step)]


@needs_gpu
def test_mse_script_memory_equals_torch_on_cuda():
    ours = check.measure(minigrad, "mse_loss")
    theirs = check.measure(torch, "mse_loss")
    assert [r[0] for r in ours] == list(check.PHASES)
    assert ours == theirs, "\n" + check.table(ours, theirs)


@needs_gpu
def test_cross_entropy_script_memory_equals_torch_on_cuda():
    """One stated difference: PyTorch's ``nll_loss_forward`` returns ``total_weight`` as a 0-dim
    tensor its node saves (one 512-byte block until the backward), where minigrad keeps a Python
    float (``minigrad/ops/loss.py``, ``NllLoss``'s docstring): minigrad's allocated bytes after
    the forward are 512 lower; every other figure is equal."""
    ours = check.measure(minigrad, "cross_entropy")
    theirs = check.measure(torch, "cross_entropy")
    expected = [(p, a + (512 if p == "forward" else 0), pk) for p, a, pk in ours]
    assert expected == theirs, "\n" + check.table(ours, theirs)
