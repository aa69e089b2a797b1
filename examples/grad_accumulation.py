"""Gradient accumulation: 4 micro-batches of 2 give the gradient of one batch of 8.

Lecture: "梯度累积：突破显存限制的技巧". Each micro-batch's loss is divided by the number of
accumulation steps before ``backward()``, so the gradients summed in ``.grad`` equal the gradient
of the mean loss over the whole batch of 8. The lecture prints only the mean loss (1.3827 with
torch's seed-0 numbers; minigrad's generator differs, see ``minigrad.random``, so our loss
differs). This port also computes the batch-of-8 gradient directly on a copy of the model and
prints both gradients and their largest difference: it is zero up to fp32 rounding.

Run: python examples/grad_accumulation.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim

mg.manual_seed(0)

model = nn.Linear(10, 3)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.01)

micro_batch_size = 2
accumulation_steps = 4  # 4 x 2 = an effective batch of 8
total_samples = 8

x_all = mg.randn(total_samples, 10)
y_all = mg.randint(0, 3, (total_samples,))

# The reference: the same weights, one batch of 8, one backward.
reference = nn.Linear(10, 3)
reference.load_state_dict(model.state_dict())
criterion(reference(x_all), y_all).backward()

# Accumulate over 4 micro-batches (clear once, before the accumulation starts).
optimizer.zero_grad()
total_loss = 0.0
for i in range(accumulation_steps):
    start = i * micro_batch_size
    end = start + micro_batch_size
    loss = criterion(model(x_all[start:end]), y_all[start:end])
    total_loss += loss.item()
    # Divide by the number of steps so that the summed gradient is the big batch's mean gradient.
    (loss / accumulation_steps).backward()

accumulated = model.weight.grad.numpy().copy()
full_batch = reference.weight.grad.numpy()
max_diff = float(abs(accumulated - full_batch).max())
bias_diff = float(abs(model.bias.grad.numpy() - reference.bias.grad.numpy()).max())

optimizer.step()  # one update for the 8 samples; zero_grad() again before the next accumulation

if __name__ == "__main__":
    print(f"梯度累积完成。模拟的等效大批次损失约为: {total_loss / accumulation_steps:.4f}")
    print("参数已更新一次。")
    print("累积梯度 weight.grad[0, :4] (4 x micro-batch 2):",
          [round(v, 6) for v in accumulated[0, :4].tolist()])
    print("整批梯度 weight.grad[0, :4] (one batch of 8):   ",
          [round(v, 6) for v in full_batch[0, :4].tolist()])
    print(f"max |accumulated - full batch| weight grad: {max_diff:.3e}")
    print(f"max |accumulated - full batch| bias grad:   {bias_diff:.3e}")
