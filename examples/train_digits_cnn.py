"""A small CNN on the digits scans, fp32 / bf16 autocast / fp16 autocast + GradScaler side by side.

The same job as ``train_digits.py`` (same data, split, batches, optimizer, clipping, table,
``--compare-torch`` and ``--plot``), with a convolutional model instead of the MLP:

    Unflatten(8x8) -> Conv2d(1, 16, 3, padding=1) -> BatchNorm2d -> ReLU -> MaxPool2d(2)
                   -> Conv2d(16, 32, 3, padding=1) -> BatchNorm2d -> ReLU -> MaxPool2d(2)
                   -> Flatten -> Dropout(p) -> Linear(128, 10)

Under autocast the convolutions and the linear layer run in bf16/fp16 (both autocast tables list
them) while batch norm keeps its input's dtype on cpu, as in PyTorch.

``--compare-torch``: the dropout masks come from each framework's own random stream, so for the
comparison dropout is switched off in both (``--dropout 0``, said in the header); everything
else (weights, batches, batch-norm statistics) is shared and the fp32 losses agree to rounding.

Run: python examples/train_digits_cnn.py [--precision all] [--compare-torch] [--plot cnn.png]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_digits as base  # noqa: E402  (sets the thread counts before NumPy loads)


def build_cnn(nn_module, sizes, dropout=0.25):
    """The CNN from ``nn_module`` (``minigrad.nn`` or ``torch.nn``); ``sizes`` is unused (the
    8x8 input and 10 classes are fixed)."""
    nn = nn_module
    return nn.Sequential(
        nn.Unflatten(1, (1, 8, 8)),
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(dropout), nn.Linear(32 * 2 * 2, 10))


def main(argv=None):
    """Parse the command line (train_digits.py's, plus ``--dropout``), train, print."""
    argv = list(sys.argv[1:] if argv is None else argv)
    dropout = 0.25
    if "--dropout" in argv:
        i = argv.index("--dropout")
        dropout = float(argv[i + 1])
        del argv[i:i + 2]
    args = base.parse_args(argv)
    if args.compare_torch:
        dropout = 0.0
    name = f"CNN conv16-conv32-linear (BatchNorm2d, MaxPool2d, dropout {dropout:g})"
    return base.main(args=args, model_fn=lambda nn, sizes: build_cnn(nn, sizes, dropout),
                     model_name=name)


if __name__ == "__main__":
    main()
