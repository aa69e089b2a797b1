"""The workloads of bench/run.py written once against the PyTorch API, run by minigrad and torch.

``Torchlike("minigrad")`` binds minigrad, minigrad.nn, optim and amp_emu; ``Torchlike("torch")``
binds torch, torch.nn, torch.optim and torch.amp. Every builder takes the case's parameters and
returns a closure running one repetition from a fresh, seeded state (the same seed every time,
so a timed run and its untimed reference run must return the same values).

Workload kinds (the parameters are in rows.py):
  chain_fwd / chain_fwd_bwd / chain_nograd: ``n`` adds on 4x4 fp32 (per-op overhead);
  mlp: an MLP step, fwd+bwd+SGD momentum, fp32 / bf16 autocast / fp16 autocast + GradScaler;
  transformer: a pre-LN block's fwd+bwd, explicit ops or F.layer_norm / F.sdpa / F.gelu;
  cnn: the small CNN step of examples/train_digits_cnn.py (Adam, clip_grad_norm_).
"""
from __future__ import annotations

import math

import rows


class Torchlike:
    """One PyTorch-API framework (``"minigrad"`` or ``"torch"``) and its workload builders."""

    def __init__(self, name):
        self.name = name
        if name == "minigrad":
            import amp_emu
            import minigrad
            import minigrad.nn
            import minigrad.nn.functional
            import optim
            self.lib, self.nn, self.F, self.optim, self.amp = (
                minigrad, minigrad.nn, minigrad.nn.functional, optim, amp_emu)
        else:
            import torch
            import torch.nn.functional
            self.lib, self.nn, self.F, self.optim, self.amp = (
                torch, torch.nn, torch.nn.functional, torch.optim, torch.amp)
        # minigrad.__version__ is the PyTorch API level it mirrors; print its own release
        self.version = getattr(getattr(self.lib, "version", None), "minigrad_version", None) \
            or getattr(self.lib, "__version__", "?")
        self.builders = {"chain_fwd": self.chain, "chain_fwd_bwd": self.chain,
                         "chain_nograd": self.chain, "mlp": self.mlp,
                         "transformer": self.transformer, "cnn": self.cnn}

    def to_numpy(self, out):
        """A result tensor as a NumPy array (16-bit values widened to fp32 exactly)."""
        if out.dtype in (self.lib.float16, self.lib.bfloat16):
            out = out.float()
        return out.detach().numpy()

    # ------------------------------------------------------------------ per-op overhead
    def chain(self, kind, n=100):
        """A chain of ``n`` adds on 4x4 fp32: forward (returns the result), forward+backward
        (returns a's gradient) or forward under ``no_grad``."""
        lib = self.lib

        def build():
            lib.manual_seed(0)
            a = lib.randn(4, 4, requires_grad=True)
            b = lib.randn(4, 4, requires_grad=True)

            def backward(out):
                out.sum().backward()
                g = a.grad
                a.grad = b.grad = None
                return g
            return rows.add_chain(kind, a, b, n, lib.no_grad, backward)
        return build

    # ------------------------------------------------------------------ MLP step
    def mlp(self, kind, sizes, batch, precision="fp32"):
        """One SGD-momentum step (lr 0.01, momentum 0.9) of a ReLU MLP with layer ``sizes``
        on a fixed batch, cross-entropy loss; returns the loss."""
        lib, nn = self.lib, self.nn

        def build():
            lib.manual_seed(0)
            layers = []
            for i in range(len(sizes) - 1):
                layers.append(nn.Linear(sizes[i], sizes[i + 1]))
                if i < len(sizes) - 2:
                    layers.append(nn.ReLU())
            model = nn.Sequential(*layers)
            opt = self.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
            crit = nn.CrossEntropyLoss()
            x = lib.randn(batch, sizes[0])
            y = lib.randint(0, sizes[-1], (batch,))
            if precision == "fp32":
                def step():
                    opt.zero_grad(set_to_none=True)
                    loss = crit(model(x), y)
                    loss.backward()
                    opt.step()
                    return loss
                return step
            dtype = lib.bfloat16 if precision == "bf16" else lib.float16
            autocast = self.amp.autocast
            if precision == "bf16":
                def step():
                    opt.zero_grad(set_to_none=True)
                    with autocast(device_type="cpu", dtype=dtype):
                        loss = crit(model(x), y)
                    loss.backward()
                    opt.step()
                    return loss
                return step
            scaler = self.amp.GradScaler("cpu")

            def step():
                opt.zero_grad(set_to_none=True)
                with autocast(device_type="cpu", dtype=dtype):
                    loss = crit(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                return loss
            return step
        return build

    # ------------------------------------------------------------------ transformer block
    def transformer(self, kind, B, T, d, heads, fused=False):
        """Forward+backward of ``block_loss`` on a fixed (B, T, d) input; returns the loss."""
        lib = self.lib

        def build():
            lib.manual_seed(0)
            p = block_params(lib, d)
            x = lib.randn(B, T, d)

            def step():
                for t in p.values():
                    t.grad = None
                loss = self.block_loss(p, x, heads, fused)
                loss.backward()
                return loss
            return step
        return build

    def block_loss(self, p, x, heads, fused=False):
        """``mean(out ** 2)`` of a pre-LN transformer block (causal attention, tanh-GELU MLP of
        width 4d) on ``x`` (B, T, d), parameters ``p`` as ``block_params``'. ``fused``:
        F.layer_norm, F.scaled_dot_product_attention and F.gelu in place of the explicit ops
        (the same maths)."""
        lib, F = self.lib, self.F
        B, T, d = x.shape
        hd = d // heads

        def layer_norm(h, w, b):
            if fused:
                return F.layer_norm(h, (d,), w, b, 1e-5)
            c = h - h.mean(-1, keepdim=True)
            return c / ((c * c).mean(-1, keepdim=True) + 1e-5).sqrt() * w + b

        def gelu(h):
            if fused:
                return F.gelu(h, approximate="tanh")
            return 0.5 * h * (1 + (math.sqrt(2 / math.pi) * (h + 0.044715 * h * h * h)).tanh())

        def attention(q, k, v):
            if fused:
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            mask = lib.triu(lib.full((T, T), float("-inf")), diagonal=1)
            s = q @ k.transpose(-2, -1) * (1 / math.sqrt(hd)) + mask
            return s.softmax(-1) @ v

        h = layer_norm(x, p["ln1_w"], p["ln1_b"])
        qkv = h @ p["w_qkv"] + p["b_qkv"]
        q, k, v = (t.reshape(B, T, heads, hd).transpose(1, 2) for t in qkv.split(d, dim=-1))
        a = attention(q, k, v).transpose(1, 2).reshape(B, T, d)
        h1 = x + (a @ p["w_o"] + p["b_o"])
        m = gelu(layer_norm(h1, p["ln2_w"], p["ln2_b"]) @ p["w_fc"] + p["b_fc"])
        out = h1 + (m @ p["w_pr"] + p["b_pr"])
        return (out * out).mean()

    # ------------------------------------------------------------------ small CNN step
    def cnn(self, kind, batch=64, widths=(24, 48), dropout=0.25):
        """One training step of examples/train_digits_cnn.py's CNN (its layers, batch 64 of
        8x8 inputs, cross-entropy, ``clip_grad_norm_(1.0)``, Adam lr 3e-3); returns the loss."""
        lib = self.lib
        import os
        import sys
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "examples"))
        from train_digits_cnn import build_cnn

        def build():
            lib.manual_seed(0)
            model = build_cnn(self.nn, None, dropout, widths)
            model.train()
            opt = self.optim.Adam(model.parameters(), lr=3e-3)
            crit = self.nn.CrossEntropyLoss()
            x = lib.randn(batch, 64)
            y = lib.randint(0, 10, (batch,))

            def step():
                opt.zero_grad(set_to_none=True)
                loss = crit(model(x), y)
                loss.backward()
                self.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                return loss
            return step
        return build


def block_params(lib, d):
    """The transformer block's parameters (a dict of leaf tensors, ``(in, out)`` weights) drawn
    from ``lib``'s random stream; LayerNorm weights one, biases zero."""
    def w(i, o):
        return (lib.randn(i, o) * (1 / math.sqrt(i))).requires_grad_()

    def z(n, fill=0.0):
        return lib.full((n,), fill).requires_grad_()
    return {"ln1_w": z(d, 1.0), "ln1_b": z(d), "w_qkv": w(d, 3 * d), "b_qkv": z(3 * d),
            "w_o": w(d, d), "b_o": z(d), "ln2_w": z(d, 1.0), "ln2_b": z(d),
            "w_fc": w(d, 4 * d), "b_fc": z(4 * d), "w_pr": w(4 * d, d), "b_pr": z(d)}
