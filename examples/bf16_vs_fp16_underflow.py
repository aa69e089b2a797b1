"""Why fp16 needs a GradScaler and bf16 does not: a gradient that underflows.

fp16 has a 5-bit exponent: its smallest positive (subnormal) value is 2**-24 ~ 5.96e-8, and
anything below half of that rounds to 0. bf16 keeps fp32's 8-bit exponent (smallest normal
~1.2e-38) at the price of a 7-bit mantissa. Here a linear layer runs under autocast and its loss
carries a weight of 1e-8 (think of a small auxiliary loss term), so the gradient arriving at the
layer's 16-bit output is 1e-8 per element:

- fp16, no scaling: 1e-8 rounds to 0 in fp16, the weight gradient is all zeros (training stalls);
- fp16 + GradScaler: the loss is multiplied by 2**16 first, the gradient (6.6e-4) is a normal
  fp16 number, and ``unscale_`` divides it back in fp32: the true gradient is recovered;
- bf16, no scaling: 1e-8 is representable in bf16; the gradient survives (with bf16's ~3
  significant digits).

Run: python examples/bf16_vs_fp16_underflow.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim
import amp_emu as amp

LOSS_WEIGHT = 1e-8

mg.manual_seed(0)
x = mg.randn(8, 4)
layer = nn.Linear(4, 3)


def weight_grad(dtype=None, scaler=None):
    """The fp32 weight gradient of LOSS_WEIGHT * sum(layer(x)), optionally under autocast."""
    layer.zero_grad(set_to_none=True)
    opt = optim.SGD(layer.parameters(), lr=0.0)  # lr 0: only to give unscale_ an optimizer
    with amp.autocast(device_type="cpu", dtype=dtype, enabled=dtype is not None):
        out = layer(x)
        loss = out.float().sum() * LOSS_WEIGHT
    (scaler.scale(loss) if scaler is not None else loss).backward()
    if scaler is not None:
        scaler.unscale_(opt)  # divides by the scale in fp32, checks for inf/nan
    return out.dtype, layer.weight.grad.numpy().copy()


if __name__ == "__main__":
    print(f"fp16: smallest subnormal {mg.finfo(mg.float16).smallest_normal * 2.0**-10:.3e}, "
          f"smallest normal {mg.finfo(mg.float16).tiny:.3e}")
    print(f"bf16: smallest normal {mg.finfo(mg.bfloat16).tiny:.3e}")
    print(f"loss weight {LOSS_WEIGHT:g}: the gradient reaching the layer's output is "
          f"{LOSS_WEIGHT:g} per element\n")

    _, ref = weight_grad()
    dt16, g16 = weight_grad(mg.float16)
    scaler = amp.GradScaler("cpu")  # init_scale 2**16
    _, g16s = weight_grad(mg.float16, scaler)
    dtb, gbf = weight_grad(mg.bfloat16)

    def show(name, g):
        nonzero = int((g != 0).sum())
        rel = float(abs(g - ref).max() / abs(ref).max())
        print(f"{name:<28} weight.grad[0,:3] = {[f'{v:.3e}' for v in g[0, :3].tolist()]}"
              f"  nonzero {nonzero:2d}/{g.size}  max rel err {rel:.2e}")

    print(f"layer output dtype under autocast: {dt16} / {dtb}")
    show("fp32 (reference)", ref)
    show("fp16 autocast, no scaler", g16)
    show("fp16 autocast + GradScaler", g16s)
    show("bf16 autocast, no scaler", gbf)
    print(f"\nGradScaler scale used: {scaler.get_scale():.1f}")
    print("fp16 without scaling lost the gradient (underflow to 0); GradScaler recovered it;"
          " bf16 kept it without any scaling.")
