"""A small CNN on the digits scans, fp32 / bf16 autocast / fp16 autocast + GradScaler side by side.

The same job as ``train_digits.py`` (same data, split, batches, optimizer, clipping, table,
``--compare-torch`` and ``--plot``), with a convolutional model instead of the MLP:

    Unflatten(8x8) -> Conv2d(1, C1, 3, padding=1, bias=False) -> BatchNorm2d -> ReLU
                   -> MaxPool2d(2)
                   -> Conv2d(C1, C2, 3, padding=1, bias=False) -> BatchNorm2d -> ReLU
                   -> MaxPool2d(2)
                   -> Flatten -> Dropout(p) -> Linear(4 * C2, 10)

with ``--widths C1 C2`` (default 24 48). Its own defaults (train_digits.py's options otherwise):
Adam lr 3e-3 with a cosine schedule to 0 over the run (``--scheduler cosine``,
``CosineAnnealingLR`` stepped after every step), 20 epochs of batch 64 (420 steps), dropout
0.25: >= 97% test accuracy in every precision on seeds 0-3 (the README has the table).

The convolutions have no bias, as is standard for a convolution followed by batch norm: the
norm subtracts each channel's batch mean, so a per-channel bias cancels exactly, it does
nothing in the forward pass and its gradient is zero in exact arithmetic. In floating point
that gradient is rounding noise (~1e-8), and Adam divides it by its own root mean square, so
the bias takes steps of about lr in directions set by the noise. The noise differs between
frameworks (their summation orders differ), so the two copies of each bias drift apart, and
although a bias cannot change the exact result, it changes the rounding of the convolution
output and of the batch-norm statistics: with the biases, ``--compare-torch``'s fp32 loss
difference reached 5.8e-5 by step 104 (the earlier 16/32-wide model, Adam lr 1e-3); without
them, 2.8e-7 over 105 steps for that model, and 1.0e-6 over the first 100 steps with
today's defaults.

Under autocast the convolutions and the linear layer run in bf16/fp16 (both autocast tables list
them) while batch norm keeps its input's dtype on cpu, as in PyTorch.

``--compare-torch``: the dropout masks come from each framework's own random stream, so for the
comparison dropout is switched off in both (``--dropout 0``, said in the header); everything
else (weights, batches, batch-norm statistics) is shared and the fp32 losses agree to rounding
(below 1e-5 relative over the first 100 steps).

Run: python examples/train_digits_cnn.py [--precision all] [--compare-torch] [--plot cnn.png]
     [--widths 24 48] [--dropout 0.25]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_digits as base  # noqa: E402  (sets the thread counts before NumPy loads)


def build_cnn(nn_module, sizes, dropout=0.25, widths=(24, 48)):
    """The CNN from ``nn_module`` (``minigrad.nn`` or ``torch.nn``); ``sizes`` is unused (the
    8x8 input and 10 classes are fixed); ``widths`` are the two convolutions' channels."""
    nn = nn_module
    c1, c2 = widths
    return nn.Sequential(
        nn.Unflatten(1, (1, 8, 8)),
        nn.Conv2d(1, c1, 3, padding=1, bias=False), nn.BatchNorm2d(c1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1, bias=False), nn.BatchNorm2d(c2), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(dropout), nn.Linear(c2 * 2 * 2, 10))


#: this example's defaults for train_digits.py's options (see the module docstring)
DEFAULTS = {"lr": 3e-3, "scheduler": "cosine", "epochs": 20, "batch_size": 64}


def main(argv=None):
    """Parse the command line (train_digits.py's, with ``DEFAULTS``, plus ``--dropout`` and
    ``--widths``), train, print; returns train_digits.main's ``Run`` list."""
    argv = list(sys.argv[1:] if argv is None else argv)
    dropout, widths = 0.25, (24, 48)
    if "--dropout" in argv:
        i = argv.index("--dropout")
        dropout = float(argv[i + 1])
        del argv[i:i + 2]
    if "--widths" in argv:
        i = argv.index("--widths")
        widths = (int(argv[i + 1]), int(argv[i + 2]))
        del argv[i:i + 3]
    args = base.parse_args(argv, defaults=DEFAULTS)
    if args.compare_torch:
        dropout = 0.0
    name = (f"CNN conv{widths[0]}-conv{widths[1]}-linear (BatchNorm2d, MaxPool2d, "
            f"dropout {dropout:g})")
    return base.main(args=args, model_fn=lambda nn, sizes: build_cnn(nn, sizes, dropout, widths),
                     model_name=name)


if __name__ == "__main__":
    main()
