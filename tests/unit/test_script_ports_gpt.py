"""Public GPT training scripts ported by renaming imports (karpathy's makemore, nanoGPT, minGPT):
their API surface in minigrad and PyTorch side by side, as ``test_script_ports.py`` does for
pytorch/examples. One compact GPT written for this file, in nanoGPT's form (fused
``scaled_dot_product_attention(is_causal=True)``, ``nn.GELU``) and in makemore/minGPT's (explicit
masked softmax over a ``tril`` buffer, the tanh ``NewGELU``), weight tying, nanoGPT's AdamW
decay groups with its ``fused`` signature probe, a cosine learning rate set through
``param_groups``, ``clip_grad_norm_``, ``compile``, ``set_float32_matmul_precision``, and greedy
``topk`` generation; losses within 1e-5 relative of PyTorch's from the same weights.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg
from tests.unit.test_script_ports import LIBS, _assert_losses, _rng, _same_weights


# ------------------------------------------- karpathy makemore / nanoGPT / minGPT (a GPT)
def _gpt(lib, vocab=11, block=6, n_embd=8, n_head=2, flash=True):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.attn_dropout = nn.Dropout(0.0)
            self.register_buffer("bias", lib.tril(lib.ones(block, block))
                                 .view(1, 1, block, block))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            if flash:        # nanoGPT's path
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                                   is_causal=True)
            else:            # makemore / minGPT's explicit attention
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
                y = self.attn_dropout(F.softmax(att, dim=-1)) @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + lib.tanh(math.sqrt(2.0 / math.pi) *
                                             (x + 0.044715 * lib.pow(x, 3.0))))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = nn.LayerNorm(n_embd), CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(n_embd, 4 * n_embd),
                                          c_proj=nn.Linear(4 * n_embd, n_embd),
                                          act=nn.GELU() if flash else NewGELU()))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            m = self.mlp
            return x + m.c_proj(m.act(m.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, n_embd), wpe=nn.Embedding(block, n_embd),
                h=nn.ModuleList([Block() for _ in range(2)]), ln_f=nn.LayerNorm(n_embd)))
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight      # weight tying
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                lib.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    lib.nn.init.zeros_(module.bias)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long, device=idx.device).unsqueeze(0)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for blk in self.transformer.h:
                x = blk(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)
            return logits, loss
    return GPT()


def _configure_optimizers(lib, model, weight_decay, learning_rate, betas):
    """nanoGPT's decay / no-decay groups, with its ``fused`` probe of AdamW's signature."""
    import inspect
    param_dict = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
    decay = [p for n, p in param_dict.items() if p.dim() >= 2]
    nodecay = [p for n, p in param_dict.items() if p.dim() < 2]
    groups = [{'params': decay, 'weight_decay': weight_decay},
              {'params': nodecay, 'weight_decay': 0.0}]
    assert 'fused' in inspect.signature(lib.optim.AdamW).parameters
    return lib.optim.AdamW(groups, lr=learning_rate, betas=betas, fused=False)


@pytest.mark.parametrize("flash", [True, False], ids=["nanogpt", "makemore_mingpt"])
def test_gpt_adamw_groups_cosine_lr_clip_compile(flash):
    rng = _rng(7)
    data = rng.integers(0, 11, 200)
    ix = rng.integers(0, 200 - 7, (4, 3))
    losses, samples = {}, {}
    init = {}
    for lib in LIBS:
        lib.set_float32_matmul_precision("high")
        try:
            raw = _gpt(lib, flash=flash)
            _same_weights(lib, raw, init)
            # minigrad's compile wraps the model without compiling; PyTorch's would really
            # compile (minutes)
            model = mg.compile(raw) if lib is mg else raw
            assert (model._orig_mod if lib is mg else model) is raw
            opt = _configure_optimizers(lib, model, 0.1, 1e-2, (0.9, 0.95))
            out = []
            for it in range(4):
                lr = 1e-2 * 0.5 * (1.0 + math.cos(math.pi * it / 4))
                for param_group in opt.param_groups:
                    param_group['lr'] = lr
                x = lib.stack([lib.from_numpy(data[i:i + 6].astype(np.int64)) for i in ix[it]])
                y = lib.stack([lib.from_numpy(data[i + 1:i + 7].astype(np.int64))
                               for i in ix[it]])
                y[0, -1] = -1                                       # an ignored target
                _, loss = model(x, y)
                loss.backward()
                lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                opt.zero_grad(set_to_none=True)
                out.append(loss.item())
            with lib.no_grad():                                     # greedy generation
                idx = lib.zeros((1, 1), dtype=lib.long)
                for _ in range(4):
                    logits, _ = model(idx[:, -6:])
                    v, _ = lib.topk(logits[:, -1, :], 3)
                    _, idx_next = lib.topk(lib.nn.functional.softmax(logits[:, -1, :], dim=-1),
                                           k=1, dim=-1)
                    idx = lib.cat((idx, idx_next), dim=1)
                samples[lib] = idx.tolist()
        finally:
            lib.set_float32_matmul_precision("highest")
        losses[lib] = out
    _assert_losses(losses[torch], losses[mg])
    assert samples[mg] == samples[torch]
