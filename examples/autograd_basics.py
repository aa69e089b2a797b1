"""Autograd basics: the lecture's first listing, ported to minigrad.

Lecture: "PyTorch 2.x 训练循环与混合精度", section 动态计算图与自动求导. Leaves x, w, b require
gradients; y = w * x + b and z = y.sum() build the graph; z.backward() fills the leaves' .grad.
All values are loaded explicitly, so the printed numbers equal the lecture's:

    梯度 dz/dx = [1.0, 2.0]
    梯度 dz/dw = [2.0, 3.0]
    梯度 dz/db = 2.0

Run: python examples/autograd_basics.py
"""
import minigrad as mg


def main():
    mg.manual_seed(0)

    # 1. Leaves that require gradients
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor(0.5, requires_grad=True)

    # 2. Forward: the graph is built as the ops run
    y = w * x + b  # y = [1*2, 2*3] + 0.5 = [2.5, 6.5]
    z = y.sum()    # z = 2.5 + 6.5 = 9.0

    # 3. Backward: the chain rule, from z back to every leaf
    z.backward()

    # 4. The gradients
    print("梯度 dz/dx =", x.grad.tolist())  # dz/dx = w = [1.0, 2.0]
    print("梯度 dz/dw =", w.grad.tolist())  # dz/dw = x = [2.0, 3.0]
    print("梯度 dz/db =", b.grad.item())    # dz/db = 2 (y has two elements, each contributes 1)
    print("z =", z.item(), "| z.grad_fn =", type(z.grad_fn).__name__)


if __name__ == "__main__":
    main()
