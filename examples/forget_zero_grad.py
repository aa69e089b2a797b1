"""Forgetting ``optimizer.zero_grad()``: the lecture's exercise, ported to minigrad.

Lecture: "动手练一练 / 参考答案". A one-weight model y = w*x (``nn.Linear(1, 1, bias=False)``),
MSELoss, SGD lr=0.1, x=1, y=2. The lecture's w=-0.0075 comes from ``torch.manual_seed(0)``,
and so does ours: minigrad's generator is PyTorch's (``minigrad.random``), so ``nn.Linear``'s
default initialisation draws the same weight, and every printed number equals the lecture's:

    初始权重 w = -0.0075
    第一次反向传播后梯度 = -4.015        (2(w-2))
    第一次更新后权重 w = 0.394
    第二次反向传播后梯度（累积后） = -7.227   (-4.015 + 2(0.394-2): not cleared)
    第二次更新后权重 w = 1.1167

Run: python examples/forget_zero_grad.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim

mg.manual_seed(0)

model = nn.Linear(1, 1, bias=False)  # one parameter w: -0.0075 after manual_seed(0), as torch
optimizer = optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()

x = mg.tensor([[1.0]])
y = mg.tensor([[2.0]])

if __name__ == "__main__":
    print("初始权重 w =", round(model.weight.data.item(), 4))

    # First step (correct)
    optimizer.zero_grad()
    loss1 = criterion(model(x), y)
    loss1.backward()
    print("第一次反向传播后梯度 =", round(model.weight.grad.item(), 4))
    optimizer.step()
    print("第一次更新后权重 w =", round(model.weight.data.item(), 4))

    # Second step: zero_grad forgotten
    # optimizer.zero_grad()  # deliberately commented out
    loss2 = criterion(model(x), y)
    loss2.backward()
    print("第二次反向传播后梯度（累积后） =", round(model.weight.grad.item(), 4))
    optimizer.step()
    print("第二次更新后权重 w =", round(model.weight.data.item(), 4))
    print("(cleared, the second gradient would have been 2(0.394-2) = -3.212)")
