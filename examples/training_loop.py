"""The six-step training loop: the lecture's SimpleMLP listing, ported to minigrad.

Lecture: "PyTorch 标准训练循环剖析". A 10-32-3 MLP on a synthetic batch (batch 4, 3 classes),
CrossEntropyLoss, SGD lr=0.01, two steps on the same batch:
forward -> loss -> zero_grad -> backward -> step (-> repeat for every batch).

The lecture prints weights [0.1431, 0.1272] and losses 1.0386 then 1.0229, from
``torch.manual_seed(0)``. minigrad's generator is PyTorch's (``minigrad.random``), so the same
seed draws the same data and weights and this script prints the lecture's numbers: the loss goes
down after one step and the first-layer weights move a little (lr is small).

Run: python examples/training_loop.py
"""
import minigrad as mg
import minigrad.nn as nn
import optim

mg.manual_seed(0)

# --- 1. Synthetic data (batch 4, 10 features, 3 classes) ---
batch_size, d_in, d_hidden, d_out = 4, 10, 32, 3
x = mg.randn(batch_size, d_in)
y = mg.randint(0, d_out, (batch_size,))


# --- 2. The model ---
class SimpleMLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim):
        super().__init__()
        self.layer1 = nn.Linear(input_dim, hidden_dim)
        self.relu = nn.ReLU()
        self.layer2 = nn.Linear(hidden_dim, output_dim)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


model = SimpleMLP(d_in, d_hidden, d_out)

# --- 3. Loss and optimizer ---
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.01)


# --- 4. One training step ---
def train_one_step(model, x, y, criterion, optimizer):
    logits = model(x)            # 4.1 forward, shape (4, 3)
    loss = criterion(logits, y)  # 4.2 the scalar loss
    optimizer.zero_grad()        # 4.3 clear old gradients (they would accumulate)
    loss.backward()              # 4.4 backward
    optimizer.step()             # 4.5 update
    return loss.item()


def first_two(weight):
    return [round(v, 4) for v in weight.data[0, :2].tolist()]


if __name__ == "__main__":
    print(model)
    print("训练前模型第一层权重前两个值:", first_two(model.layer1.weight))
    loss1 = train_one_step(model, x, y, criterion, optimizer)
    print(f"第一步训练后损失: {loss1:.4f}")
    print("第一步后模型第一层权重前两个值:", first_two(model.layer1.weight))
    # The same batch again (only for the demo: real training takes a new batch)
    loss2 = train_one_step(model, x, y, criterion, optimizer)
    print(f"第二步训练后损失: {loss2:.4f}")
