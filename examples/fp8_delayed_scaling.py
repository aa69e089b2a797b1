"""float8 training with per-tensor delayed scaling (NVIDIA Transformer Engine's recipe).

float8 keeps only 4 or 5 exponent bits: e4m3fn spans 2**-9 .. 448, e5m2 2**-16 .. 57344. A tensor
is therefore multiplied by a per-tensor ``scale`` before the cast, chosen so that its largest
value lands near the format's max: ``scale = (fp8_max / amax) / 2**margin``. "Delayed": the
amax is taken from the history of earlier steps, so the first step casts with scale 1.

Here a small MLP learns a linear target under ``fp8_autocast`` (HYBRID: e4m3fn forward, e5m2
gradients). Its loss carries a weight of 1e-4 (think of a small auxiliary loss; the learning
rate is scaled up to match), so the gradients are ~1e-6, below e5m2's smallest subnormal
(2**-16 ~ 1.5e-5) at scale 1. The numerics monitor counts the e5m2 gradient values that flush
to zero:

- step 1: every gradient of the last layer flushes (scale 1), so the first layer receives
  zeros: its amax is 0, nothing to learn from;
- step 2: the last layer's grad_output scale has moved (57344 / amax ~ 9e9); now the first
  layer's gradients are non-zero and flush at ITS scale 1;
- from step 3 on: nothing flushes, and the loss falls.

Run: python examples/fp8_delayed_scaling.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim
from amp_emu.fp8 import DelayedScaling, Format, fp8_autocast
from amp_emu.numerics import NumericsMonitor

mg.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
LOSS_WEIGHT = 1e-4
opt = optim.SGD(model.parameters(), lr=0.1 / LOSS_WEIGHT)
x = mg.randn(64, 8)
y = x[:, :1] * 0.5 - x[:, 1:2] * 0.25
recipe = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=16, margin=0)

for step in range(1, 41):
    with NumericsMonitor(formats=("float8_e5m2",)) as mon:
        with fp8_autocast(fp8_recipe=recipe):
            loss = nn.functional.mse_loss(model(x), y) * LOSS_WEIGHT
        opt.zero_grad()
        loss.backward()
    opt.step()
    flushed = sum(c.underflow for (op, role, fmt), c in mon.counts.items())
    if step in (1, 2, 3, 10, 40):
        first = recipe.fp8_meta[0]
        print(f"step {step:2d}  loss {loss.item() / LOSS_WEIGHT:.5f}  e5m2 gradients flushed to 0: "
              f"{flushed:3d}  scales: input {first.input.scale.item():.4g}  "
              f"weight {first.weight.scale.item():.4g}  "
              f"grad_output {recipe.fp8_meta[1].grad_output.scale.item():.4g}")
