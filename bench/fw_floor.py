"""The hand-written NumPy floors of bench/run.py: what each workload costs with no framework.

Each floor is the plain NumPy an expert would write for that one model: forward, the backward
formulas by hand, the optimizer update in place. It is a correct implementation, not a strawman:
tests/unit/test_bench_floors.py checks its loss and gradients against minigrad's on one tiny
step of each workload. The pieces:

  ``Var`` / ``no_grad`` / ``tape_backward``: a 40-line Python tape (the least an autograd engine
      in Python can do per op: wrap, record, replay);
  ``mlp_forward_backward`` / ``sgd_momentum_``: the MLP in fp32, or with every op's output
      rounded to bf16 / fp16 as autocast does (the "per-op casts" / "naive casts" floors);
  ``block_forward_backward``: the pre-LN transformer block, forward and backward by hand.
"""
from __future__ import annotations

import math

import numpy as np

import rows

F32 = np.float32


# ================================================================== the 40-line Python tape
_TAPE = []          # (output, inputs, backward) per recorded op, in execution order
_RECORDING = [True]


class Var:
    """A NumPy array on the tape: ``+`` and ``sum`` are recorded for ``tape_backward``."""
    __slots__ = ("value", "grad")

    def __init__(self, value):
        self.value, self.grad = value, None

    def __add__(self, other):
        out = Var(self.value + other.value)
        if _RECORDING[0]:
            _TAPE.append((out, (self, other), _add_backward))
        return out

    def sum(self):
        """The sum of all elements, recorded (its backward broadcasts the gradient)."""
        out = Var(self.value.sum())
        if _RECORDING[0]:
            shape = self.value.shape
            _TAPE.append((out, (self,), lambda g: (np.broadcast_to(g, shape),)))
        return out


def _add_backward(g):
    return g, g


class no_grad:
    """Stop recording inside the ``with`` block (as ``torch.no_grad``)."""

    def __enter__(self):
        _RECORDING[0] = False

    def __exit__(self, *exc):
        _RECORDING[0] = True


def tape_backward(out):
    """Replay the tape backwards from scalar ``out``, accumulating ``.grad``; empties it."""
    out.grad = np.ones_like(out.value)
    for node, inputs, backward in reversed(_TAPE):
        if node.grad is None:
            continue
        for inp, g in zip(inputs, backward(node.grad)):
            inp.grad = g if inp.grad is None else inp.grad + g
    _TAPE.clear()


# ================================================================== MLP
def mlp_init(sizes, batch, seed=0):
    """``(params, x, y)``: ``[(W (out, in), b (out,)), ...]`` drawn as nn.Linear draws them
    (uniform within 1/sqrt(fan_in)), a normal fp32 batch and integer labels."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / math.sqrt(fan_in)
        params.append((rng.uniform(-bound, bound, (fan_out, fan_in)).astype(F32),
                       rng.uniform(-bound, bound, fan_out).astype(F32)))
    x = rng.standard_normal((batch, sizes[0]), dtype=F32)
    y = rng.integers(0, sizes[-1], batch)
    return params, x, y


def _cross_entropy(logits, y):
    """Mean cross-entropy of fp32 ``logits`` and its gradient with respect to them."""
    z = logits - logits.max(axis=1, keepdims=True)
    ez = np.exp(z)
    s = ez.sum(axis=1, keepdims=True)
    rows = np.arange(len(y))
    loss = (np.log(s[:, 0]) - z[rows, y]).mean(dtype=F32)
    g = ez / s
    g[rows, y] -= 1
    g *= F32(1 / len(y))
    return loss, g


def mlp_forward_backward(params, x, y, low=None, loss_scale=1.0):
    """Loss and fp32 gradients ``[(gW, gb), ...]`` of the ReLU MLP ``params`` on ``(x, y)``.

    ``low`` (``ml_dtypes.bfloat16`` or ``np.float16``): autocast's rounding done naively, by a
    cast after every op: each linear takes its input, weight and bias rounded to ``low``,
    multiplies in fp32 (BLAS) and rounds its output; the loss is fp32; in backward every
    gradient is rounded to ``low``, the weights' widened back to fp32. Values are kept as the
    fp32 widenings of their ``low`` roundings (exact), so each is widened once; ReLU and its
    mask are exact in either form. ``loss_scale``: the loss's gradient is multiplied by it
    (GradScaler); the returned gradients are the scaled ones, as after
    ``scaler.scale(loss).backward()``.
    """
    def rnd(a):                       # round to ``low`` and widen back: one per-op cast
        return a if low is None else a.astype(low).astype(F32)

    acts, weights = [rnd(x)], []
    for i, (W, b) in enumerate(params):
        weights.append(rnd(W))
        h = rnd(acts[-1] @ weights[-1].T + rnd(b))
        if i < len(params) - 1:
            np.maximum(h, 0, out=h)
        acts.append(h)
    loss, g = _cross_entropy(acts[-1], y)
    if loss_scale != 1.0:
        g *= F32(loss_scale)
    g = rnd(g)
    grads = []
    for i in range(len(params) - 1, -1, -1):
        if i < len(params) - 1:
            g *= acts[i + 1] > 0              # ReLU backward: a mask multiply
        grads.append((rnd(g.T @ acts[i]), rnd(g.sum(axis=0))))
        if i:
            g = rnd(g @ weights[i])
    return loss, grads[::-1]


def sgd_momentum_(params, grads, bufs, lr=0.01, momentum=0.9):
    """torch.optim.SGD's update in place: ``buf = momentum * buf + g`` (``buf = g`` on the
    first step, ``bufs`` empty), ``p -= lr * buf``."""
    first = not bufs
    for j, (p, g) in enumerate((p, g) for pair, gpair in zip(params, grads)
                               for p, g in zip(pair, gpair)):
        if first:
            bufs.append(g.copy())
        else:
            bufs[j] *= F32(momentum)
            bufs[j] += g
        p -= F32(lr) * bufs[j]


# ================================================================== pre-LN transformer block
def block_init(B, T, d, seed=0):
    """``(params, x)``: the block's parameters (names as fw_torchlike.block_params, weights
    ``(in, out)``) and a normal (B, T, d) fp32 input."""
    rng = np.random.default_rng(seed)

    def w(i, o):
        return (rng.standard_normal((i, o), dtype=F32) * F32(1 / math.sqrt(i)))
    p = {"ln1_w": np.ones(d, F32), "ln1_b": np.zeros(d, F32), "w_qkv": w(d, 3 * d),
         "b_qkv": np.zeros(3 * d, F32), "w_o": w(d, d), "b_o": np.zeros(d, F32),
         "ln2_w": np.ones(d, F32), "ln2_b": np.zeros(d, F32), "w_fc": w(d, 4 * d),
         "b_fc": np.zeros(4 * d, F32), "w_pr": w(4 * d, d), "b_pr": np.zeros(d, F32)}
    return p, rng.standard_normal((B, T, d), dtype=F32)


def _ln(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    c = x - mu
    rstd = 1 / np.sqrt((c * c).mean(-1, keepdims=True) + F32(eps))
    xh = c * rstd
    return xh * w + b, (xh, rstd, w)


def _ln_backward(gy, saved):
    xh, rstd, w = saved
    gxh = gy * w
    gx = rstd * (gxh - gxh.mean(-1, keepdims=True) - xh * (gxh * xh).mean(-1, keepdims=True))
    return gx, (gy * xh).sum((0, 1)), gy.sum((0, 1))


def block_forward_backward(p, x, heads):
    """Loss ``mean(out ** 2)`` of the pre-LN block (causal attention, tanh-GELU MLP) on ``x``
    and the gradients of ``p``'s parameters (a dict of the same names)."""
    B, T, d = x.shape
    hd, c0 = d // heads, F32(math.sqrt(2 / math.pi))
    scale = F32(1 / math.sqrt(hd))

    def heads_of(t):                  # (B, T, d) -> (B, H, T, hd)
        return t.reshape(B, T, heads, hd).transpose(0, 2, 1, 3)

    def merge(t):                     # (B, H, T, hd) -> (B, T, d)
        return t.transpose(0, 2, 1, 3).reshape(B, T, d)

    # forward
    h, s1 = _ln(x, p["ln1_w"], p["ln1_b"])
    def linear(inp, name):            # inp @ W + b as one 2-D BLAS call
        y = inp.reshape(-1, inp.shape[-1]) @ p["w_" + name]
        y += p["b_" + name]
        return y.reshape(*inp.shape[:-1], -1)

    qkv = linear(h, "qkv")
    q, k, v = (heads_of(t) for t in np.split(qkv, 3, axis=-1))
    s = q @ k.transpose(0, 1, 3, 2) * scale
    s[..., np.triu(np.ones((T, T), bool), 1)] = -np.inf
    s -= s.max(-1, keepdims=True)
    P = np.exp(s, out=s)
    P /= P.sum(-1, keepdims=True)
    a = merge(P @ v)
    h1 = x + linear(a, "o")
    h2, s2 = _ln(h1, p["ln2_w"], p["ln2_b"])
    f = linear(h2, "fc")
    ff = f * f
    t = np.tanh(c0 * f * (1 + F32(0.044715) * ff))
    m = F32(0.5) * f * (1 + t)
    out = h1 + linear(m, "pr")
    loss = (out * out).mean(dtype=F32)

    # backward
    g = {}

    def linear_back(gy, inp, name):   # y = inp @ W + b: the parameters' gradients, and inp's
        gy2 = gy.reshape(-1, gy.shape[-1])
        g["w_" + name] = inp.reshape(-1, inp.shape[-1]).T @ gy2
        g["b_" + name] = gy2.sum(0)
        return (gy2 @ p["w_" + name].T).reshape(inp.shape)

    gout = out * F32(2 / out.size)
    gm = linear_back(gout, m, "pr")
    # d gelu / df = (1 + t) / 2 + f (1 - t^2) c0 (1 + 3 * 0.044715 f^2) / 2
    gf = gm * F32(0.5) * (1 + t + (c0 * f) * (1 - t * t) * (1 + F32(3 * 0.044715) * ff))
    gh1, g["ln2_w"], g["ln2_b"] = _ln_backward(linear_back(gf, h2, "fc"), s2)
    gh1 += gout
    ga = heads_of(linear_back(gh1, a, "o"))
    gP = ga @ v.transpose(0, 1, 3, 2)
    gv = P.transpose(0, 1, 3, 2) @ ga
    gs = P * (gP - (gP * P).sum(-1, keepdims=True)) * scale
    gq, gk = gs @ k, gs.transpose(0, 1, 3, 2) @ q
    gqkv = np.concatenate([merge(gq), merge(gk), merge(gv)], axis=-1)
    _, g["ln1_w"], g["ln1_b"] = _ln_backward(linear_back(gqkv, h, "qkv"), s1)
    return loss, g


# ================================================================== builders for bench/run.py
class Floor:
    """The floors as bench/run.py's workload builders (see fw_torchlike.Torchlike)."""
    name = "floor"

    def __init__(self):
        self.version = np.__version__
        self.builders = {"chain_fwd": self.chain, "chain_fwd_bwd": self.chain,
                         "chain_nograd": self.chain, "numpy_add": self.chain,
                         "mlp": self.mlp, "transformer": self.transformer}

    @staticmethod
    def to_numpy(out):
        """A result (a ``Var``, an array or a NumPy scalar) as an array."""
        return np.asarray(getattr(out, "value", out))

    def chain(self, kind, n=100):
        """``n`` adds on 4x4 fp32 on the tape (forward, forward+backward, no_grad forward), or
        ``numpy_add``: NumPy's adds alone."""
        def build():
            rng = np.random.default_rng(0)
            a0, b0 = (rng.standard_normal((4, 4), dtype=F32) for _ in range(2))
            if kind == "numpy_add":
                return rows.add_chain("chain_fwd", a0, b0, n, None, None)
            a, b = Var(a0), Var(b0)

            def backward(out):
                tape_backward(out.sum())
                grad = a.grad
                a.grad = b.grad = None
                return grad
            run = rows.add_chain(kind, a, b, n, no_grad, backward)
            if kind != "chain_fwd":
                return run

            def recorded():
                out = run()
                _TAPE.clear()             # a graph that is never run backward is dropped
                return out
            return recorded
        return build

    def mlp(self, kind, sizes, batch, precision="fp32"):
        """The MLP step: forward, backward, SGD momentum (lr 0.01, momentum 0.9); bf16 / fp16
        with per-op casts, fp16 with a loss scale of 2**16 and an inf/NaN check (GradScaler's
        work, without its growth schedule)."""
        import ml_dtypes
        low = {"fp32": None, "bf16": ml_dtypes.bfloat16, "fp16": np.float16}[precision]

        def build():
            params, x, y = mlp_init(sizes, batch)
            params = [list(pair) for pair in params]
            bufs, scale = [], [2.0 ** 16 if precision == "fp16" else 1.0]

            def step():
                loss, grads = mlp_forward_backward(params, x, y, low, scale[0])
                if scale[0] != 1.0:
                    inv = F32(1 / scale[0])
                    grads = [(gw * inv, gb * inv) for gw, gb in grads]
                    if not all(np.isfinite(g).all() for pair in grads for g in pair):
                        scale[0] /= 2
                        return loss
                sgd_momentum_(params, grads, bufs)
                return loss
            return step
        return build

    def transformer(self, kind, B, T, d, heads, fused=False):
        """The block's forward+backward (``fused`` changes nothing: the floor is one kernel
        sequence written by hand either way)."""
        def build():
            p, x = block_init(B, T, d)
            return lambda: block_forward_backward(p, x, heads)[0]
        return build
