"""The workloads of bench/run.py for the NumPy-API autograd libraries: MyGrad and HIPS autograd.

Both trace NumPy-style functions (``xp.mean(x, axis=-1, keepdims=True)``...), so the models are
written once against a namespace ``xp`` (``mygrad`` or ``autograd.numpy``); the frameworks differ
in how a gradient is asked for (MyGrad: ``loss.backward()`` on tensors; HIPS autograd:
``value_and_grad(f)(params)``, functional). Neither has optimizers: the SGD-momentum update is the
NumPy floor's (fw_floor.sgd_momentum_), as a user of either would write it. Workloads: the
per-op chains, the MLP step (fp32) and the explicit-ops transformer block (builders as
fw_torchlike.Torchlike's). Importing this module imports neither library.
"""
from __future__ import annotations

import math

import numpy as np

import fw_floor
import rows

F32 = np.float32


def _softmax(xp, s):
    e = xp.exp(s - xp.max(s, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)


def _cross_entropy(xp, logits, y):
    """Mean cross-entropy from ``xp``'s ops (log-sum-exp with the row max subtracted)."""
    m = xp.max(logits, axis=1, keepdims=True)
    lse = xp.log(xp.sum(xp.exp(logits - m), axis=1)) + m[:, 0]
    return xp.mean(lse - logits[np.arange(len(y)), y])


def mlp_loss(xp, params, x, y, cross_entropy=_cross_entropy):
    """Cross-entropy of the ReLU MLP ``params`` (``[(W (out, in), b), ...]``) on ``(x, y)``;
    ``cross_entropy(xp, logits, y)``: the library's own loss where it has one."""
    h = x
    for i, (W, b) in enumerate(params):
        h = xp.matmul(h, xp.transpose(W)) + b
        if i < len(params) - 1:
            h = xp.maximum(h, 0)
    return cross_entropy(xp, h, y)


def block_loss(xp, p, x, heads, mask):
    """``mean(out ** 2)`` of the pre-LN block (fw_torchlike's explicit-ops variant) on ``x``;
    ``p`` maps fw_floor.block_init's names to ``xp`` arrays; ``mask`` the additive causal mask."""
    B, T, d = x.shape
    hd = d // heads

    def ln(h, w, b):
        c = h - xp.mean(h, axis=-1, keepdims=True)
        return c / xp.sqrt(xp.mean(c * c, axis=-1, keepdims=True) + 1e-5) * w + b

    def heads_of(t):
        return xp.transpose(xp.reshape(t, (B, T, heads, hd)), (0, 2, 1, 3))

    h = ln(x, p["ln1_w"], p["ln1_b"])
    qkv = xp.matmul(h, p["w_qkv"]) + p["b_qkv"]
    q, k, v = (heads_of(qkv[..., i * d:(i + 1) * d]) for i in range(3))
    s = xp.matmul(q, xp.transpose(k, (0, 1, 3, 2))) * (1 / math.sqrt(hd)) + mask
    a = xp.reshape(xp.transpose(xp.matmul(_softmax(xp, s), v), (0, 2, 1, 3)), (B, T, d))
    h1 = x + (xp.matmul(a, p["w_o"]) + p["b_o"])
    f = xp.matmul(ln(h1, p["ln2_w"], p["ln2_b"]), p["w_fc"]) + p["b_fc"]
    m = 0.5 * f * (1 + xp.tanh(math.sqrt(2 / math.pi) * (f + 0.044715 * f * f * f)))
    out = h1 + (xp.matmul(m, p["w_pr"]) + p["b_pr"])
    return xp.mean(out * out)


def _causal_mask(T):
    return np.triu(np.full((T, T), -np.inf, F32), 1)


class _NumpyAPI:
    """What the two libraries share: the builders of the MLP step (fp32: neither has autocast)
    and of the explicit-ops block, over ``value_and_grad(f, params)``, which a subclass defines:
    it returns a closure computing ``f(params)`` and its gradients (a structure like params)."""

    def __init__(self):
        self.builders = {"chain_fwd": self.chain, "chain_fwd_bwd": self.chain,
                         "chain_nograd": self.chain, "mlp": self.mlp,
                         "transformer": self.transformer}

    def mlp(self, kind, sizes, batch, precision="fp32"):
        """The MLP step in fp32: ``mlp_loss``, its gradients, fw_floor.sgd_momentum_."""
        if precision != "fp32":
            return None

        def build():
            params, x, y = fw_floor.mlp_init(sizes, batch)
            vg = self.value_and_grad(lambda ps: mlp_loss(self.xp, ps, x, y, self.cross_entropy),
                                     params)
            bufs = []

            def step():
                loss, grads = vg()
                fw_floor.sgd_momentum_(params, grads, bufs)
                return loss
            return step
        return build

    def transformer(self, kind, B, T, d, heads, fused=False):
        """The block's forward+backward, explicit ops (neither library has fused ones)."""
        if fused:
            return None

        def build():
            p, x = fw_floor.block_init(B, T, d)
            mask = _causal_mask(T)
            vg = self.value_and_grad(lambda q: block_loss(self.xp, q, x, heads, mask), p)
            return lambda: vg()[0]
        return build


class MyGrad(_NumpyAPI):
    """MyGrad 2.x's workload builders (tensors and ``backward()``), with MyGrad's defaults, as
    a new user runs it: memory guarding on (it locks the arrays of a graph read-only). With
    ``guarding=False`` (run.py's ``--mygrad-guarding off``): ``turn_memory_guarding_off()``,
    MyGrad's documented switch for speed (measured here: the small MLP step ~1.3x faster, the
    per-op chain 2-4x)."""
    name = "mygrad"

    def __init__(self, guarding=True):
        import mygrad
        import mygrad.nnet
        if not guarding:
            mygrad.turn_memory_guarding_off()
        super().__init__()
        self.xp, self.version = mygrad, mygrad.__version__

    @staticmethod
    def cross_entropy(xp, logits, y):
        """MyGrad's own fused loss, ``mygrad.nnet.softmax_crossentropy``."""
        return xp.nnet.softmax_crossentropy(logits, y)

    @staticmethod
    def to_numpy(out):
        """A result (a Tensor or an array) as an array."""
        return np.asarray(getattr(out, "data", out))

    def value_and_grad(self, f, params):
        """Tensors sharing ``params``' arrays (updates in place reach them); ``backward()``."""
        mg = self.xp
        leaves = [mg.tensor(a, copy=False) for a in _leaves(params)]

        def vg():
            loss = f(_rebuild(params, iter(leaves)))
            loss.backward()
            return loss, _rebuild(params, (t.grad for t in leaves))
        return vg

    def chain(self, kind, n=100):
        """The 4x4 add chain (forward / forward+backward / under ``mygrad.no_autodiff``)."""
        mg = self.xp

        def build():
            rng = np.random.default_rng(0)
            a, b = (mg.tensor(rng.standard_normal((4, 4), dtype=F32)) for _ in range(2))

            def backward(out):
                out.sum().backward()
                return a.grad
            return rows.add_chain(kind, a, b, n, lambda: mg.no_autodiff, backward)
        return build


class HipsAutograd(_NumpyAPI):
    """HIPS autograd 1.x's workload builders (functional ``value_and_grad``)."""
    name = "autograd"
    cross_entropy = staticmethod(_cross_entropy)

    def __init__(self):
        import importlib.metadata

        import autograd
        import autograd.numpy
        super().__init__()
        self.ag, self.xp = autograd, autograd.numpy
        self.version = importlib.metadata.version("autograd")

    @staticmethod
    def to_numpy(out):
        """A result as an array."""
        return np.asarray(out)

    def value_and_grad(self, f, params):
        """``autograd.value_and_grad(f)(params)``."""
        vg = self.ag.value_and_grad(f)
        return lambda: vg(params)

    def chain(self, kind, n=100):
        """The 4x4 add chain: forward traced (``make_vjp`` without calling the vjp),
        forward+backward (``grad`` in both inputs), and untraced (the ``no_grad`` analogue)."""
        ag, xp = self.ag, self.xp

        def forward(ab):
            a, b = ab
            x = a
            for _ in range(n):
                x = xp.add(x, b)
            return x

        def build():
            rng = np.random.default_rng(0)
            ab = tuple(rng.standard_normal((4, 4), dtype=F32) for _ in range(2))
            if kind == "chain_fwd":
                make_vjp = ag.make_vjp(forward)
                return lambda: make_vjp(ab)[1]
            if kind == "chain_nograd":
                return lambda: forward(ab)
            g = ag.grad(lambda ab: xp.sum(forward(ab)))
            return lambda: g(ab)[0]
        return build


def _leaves(params):
    """The arrays of a list of pairs or a dict, in order."""
    return list(params.values()) if isinstance(params, dict) else [a for pair in params
                                                                    for a in pair]


def _rebuild(params, items):
    """``params``' structure filled from the iterator ``items``."""
    if isinstance(params, dict):
        return {k: next(items) for k in params}
    return [tuple(next(items) for _ in pair) for pair in params]
