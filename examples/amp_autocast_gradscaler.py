"""Autocast and GradScaler: the lecture's AMP listing, ported to minigrad + amp_emu.

Lecture: "自动混合精度训练（AMP）". The same 10-32-3 model runs once in fp32 and once under
``autocast("cpu", bfloat16)``: linear layers run in bf16 (output dtype bfloat16), the difference
to fp32 is small. Then one training step with a GradScaler: the loss is multiplied by the scale
(2**16) before backward, the gradients are unscaled before the optimizer step, and ``update()``
keeps the scale at 65536.0 (no inf/nan was found; it grows only after 2000 clean steps).

The lecture's numbers (max diff 0.001581, loss 1.0386, scaled 68068.1328) come from
``torch.manual_seed(0)``; minigrad's generator is PyTorch's (``minigrad.random``), so this script
prints them too, with the dtypes, scaled loss = loss * 65536 and the scale 65536.0 after update.

Run: python examples/amp_autocast_gradscaler.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim
import amp_emu as amp

mg.manual_seed(0)

batch_size, d_in, d_hidden, d_out = 4, 10, 32, 3
x = mg.randn(batch_size, d_in)
y = mg.randint(0, d_out, (batch_size,))

model = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=1e-3)

if __name__ == "__main__":
    # 1) plain fp32 forward
    out_fp32 = model(x)

    # 2) forward under autocast: each op's precision is chosen by the policy table
    #    (the CPU profile runs linear in bfloat16)
    with amp.autocast(device_type="cpu", dtype=mg.bfloat16):
        out_bf16 = model(x)
    print("autocast 关闭时输出 dtype:", out_fp32.dtype)
    print("autocast 开启时输出 dtype:", out_bf16.dtype)
    print(f"两者最大绝对差: {(out_fp32 - out_bf16.float()).abs().max().item():.6f}")

    # 3) GradScaler: scale the loss before backward, unscale before the update
    scaler = amp.GradScaler("cpu")
    optimizer.zero_grad()
    with amp.autocast(device_type="cpu", dtype=mg.bfloat16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    print(f"原始损失: {loss.item():.4f}")
    print(f"缩放后损失: {scaler.scale(loss).item():.4f}")
    scaler.step(optimizer)
    scaler.update()
    print(f"当前缩放因子: {scaler.get_scale():.1f}")
