"""A small character-level GPT trained on the Python standard library's own source files.

Data: the ``.py`` files of the running interpreter's standard library (every Python install
carries them; no download), read in sorted order, concatenated and cut to ``--chars``
characters; the first 90% trains, the last 10% validates. Tokens are the characters seen.

Model: token + position embeddings, ``--layers`` pre-norm transformer blocks (LayerNorm, causal
``F.scaled_dot_product_attention`` on a fused qkv projection, a GELU MLP, dropout), a final
LayerNorm and a language-model head tied to the token embedding (``lm_head.weight is
tok_emb.weight``).

Training: AdamW with decoupled weight decay on the matrices only (embeddings, biases and norm
weights in a group with ``weight_decay=0``), a linear warmup then cosine decay
(``LambdaLR``), ``clip_grad_norm_``, and ``--precision fp32 | bf16 | fp16`` (autocast; fp16 with
a GradScaler), a tqdm bar. At the end it prints the validation loss beside the unigram baseline
(the cross entropy of predicting every character by its training frequency) and a generated
sample.

``--compare-torch`` trains the same model in PyTorch from a copy of minigrad's initial weights on
the same batches (dropout off in both: the comparison copies weights, it does not reseed) and prints the per-step
relative loss difference (fp32: below 1e-5). ``--plot FILE.png`` saves the loss curves.

Run: python examples/train_char_gpt.py [--precision bf16] [--steps 300] [--compare-torch]
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import math
import os
import sys
import sysconfig
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import minigrad as mg  # noqa: E402


# ------------------------------------------------------------------ data
def load_text(n_chars):
    """The first ``n_chars`` characters of the standard library's sources, in sorted order."""
    root = sysconfig.get_paths()["stdlib"]
    parts, total = [], 0
    for path in sorted(glob.glob(os.path.join(root, "*.py"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
        total += len(parts[-1])
        if total >= n_chars:
            break
    return "".join(parts)[:n_chars]


def batches(data, steps, batch, block, seed):
    """``steps`` (x, y) index windows into ``data``, shared by every framework."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        ix = rng.integers(0, len(data) - block - 1, batch)
        yield (np.stack([data[i:i + block] for i in ix]),
               np.stack([data[i + 1:i + block + 1] for i in ix]))


# ------------------------------------------------------------------ model
def build_gpt(torch, vocab, args, dropout):
    """The GPT from ``torch`` (``minigrad`` or the real ``torch``)."""
    nn, F = torch.nn, torch.nn.functional
    d, h = args.embd, args.heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d),
                                     nn.Dropout(dropout))
            self.drop = nn.Dropout(dropout)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                               dropout_p=dropout if self.training else 0.0)
            x = x + self.drop(self.proj(a.transpose(1, 2).reshape(b, t, d)))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok_emb = nn.Embedding(vocab, d)
            self.pos_emb = nn.Embedding(args.block, d)
            self.drop = nn.Dropout(dropout)
            self.blocks = nn.ModuleList([Block() for _ in range(args.layers)])
            self.ln_f = nn.LayerNorm(d)
            self.lm_head = nn.Linear(d, vocab, bias=False)
            self.lm_head.weight = self.tok_emb.weight          # weight tying

        def forward(self, idx, targets=None):
            t = idx.shape[1]
            pos = torch.arange(t, device=idx.device)
            x = self.drop(self.tok_emb(idx) + self.pos_emb(pos))
            for blk in self.blocks:
                x = blk(x)
            logits = self.lm_head(self.ln_f(x))
            if targets is None:
                return logits
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))

    return GPT()


def param_groups(model, weight_decay):
    """AdamW groups: decay for matrices (dim >= 2), none for biases and norm weights."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": other, "weight_decay": 0.0}]


def lr_lambda(warmup, total):
    """Linear warmup over ``warmup`` steps, then cosine decay to 10% at ``total``."""
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))
    return f


# ------------------------------------------------------------------ training
def train(torch, amp, vocab, init_state, data, args, dropout, name):
    """Train one run; returns (model, per-step losses, seconds)."""
    model = build_gpt(torch, vocab, args, dropout)
    model.load_state_dict({k: torch.tensor(v.copy()) for k, v in init_state.items()})
    opt = torch.optim.AdamW(param_groups(model, args.weight_decay), lr=args.lr,
                            betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(args.warmup, args.steps))
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    scaler = amp.GradScaler("cpu") if args.precision == "fp16" else None
    ctx = (lambda: amp.autocast("cpu", dtype=dtype)) if dtype else contextlib.nullcontext
    losses = []
    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=args.steps, desc=f"{name} {args.precision}", leave=False)
    start = time.perf_counter()
    for xb, yb in batches(data, args.steps, args.batch, args.block, args.seed):
        x, y = torch.tensor(xb), torch.tensor(yb)
        with ctx():
            loss = model(x, y)
        if scaler is None:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
        opt.zero_grad(set_to_none=True)
        sched.step()
        losses.append(loss.item())
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
    if bar is not None:
        bar.close()
    return model, losses, time.perf_counter() - start


def evaluate(torch, model, data, args, n_batches=8):
    """Mean validation cross entropy over ``n_batches`` fixed windows (fp32, eval mode)."""
    model.eval()
    total = 0.0
    with torch.no_grad():
        for xb, yb in batches(data, n_batches, args.batch, args.block, args.seed + 1):
            total += model(torch.tensor(xb), torch.tensor(yb)).item()
    return total / n_batches


def generate(model, itos, args, n=200):
    """Sample ``n`` characters after a newline (multinomial over the softmax, temperature 1)."""
    model.eval()
    idx = mg.tensor([[itos.index("\n")]])
    with mg.no_grad():
        for _ in range(n):
            logits = model(idx[:, -args.block:])[:, -1, :]
            nxt = mg.multinomial(mg.softmax(logits, dim=-1), 1)
            idx = mg.cat([idx, nxt], dim=1)
    return "".join(itos[i] for i in idx[0].tolist())


def parse_args(argv=None):
    """The command line (``argv`` defaults to ``sys.argv[1:]``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="bf16")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--block", type=int, default=64, help="context length")
    p.add_argument("--embd", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--chars", type=int, default=300_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sample", type=int, default=200, help="characters to generate at the end")
    p.add_argument("--compare-torch", action="store_true",
                   help="train the same run in PyTorch and print the per-step loss difference")
    p.add_argument("--plot", metavar="FILE.png", help="save the loss curves")
    p.add_argument("--no-progress", action="store_true", help="hide the tqdm bar")
    return p.parse_args(argv)


def main(argv=None):
    """Train, evaluate against the unigram baseline, sample; returns the losses."""
    args = parse_args(argv)
    import amp_emu
    text = load_text(args.chars)
    itos = sorted(set(text))
    stoi = {c: i for i, c in enumerate(itos)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    cut = int(0.9 * len(data))
    train_data, val_data = data[:cut], data[cut:]
    freq = np.bincount(train_data, minlength=len(itos)) + 1.0
    logp = np.log(freq / freq.sum())
    unigram = float(-logp[val_data].mean())
    dropout = 0.0 if args.compare_torch else args.dropout
    print(f"text: {len(text):,} characters of the standard library, vocabulary {len(itos)}; "
          f"GPT {args.layers} layers x {args.embd} wide, {args.heads} heads, context "
          f"{args.block}, dropout {dropout:g}; {args.steps} steps of {args.batch} windows, "
          f"{args.precision}")
    mg.manual_seed(args.seed)
    init_state = {k: v.detach().numpy().copy()
                  for k, v in build_gpt(mg, len(itos), args, dropout).state_dict().items()}

    model, losses, secs = train(mg, amp_emu, len(itos), init_state, train_data, args, dropout,
                                "minigrad")
    val = evaluate(mg, model, val_data, args)
    print(f"\nminigrad: {secs:.1f} s, final training loss {losses[-1]:.3f}, validation loss "
          f"{val:.3f} against the unigram baseline {unigram:.3f}")
    curves = {"minigrad": losses}
    if args.compare_torch:
        import torch
        _, t_losses, t_secs = train(torch, torch.amp, len(itos), init_state, train_data, args,
                                    dropout, "torch")
        curves["torch"] = t_losses
        d = np.abs(np.array(losses) - np.array(t_losses)) / np.abs(np.array(t_losses))
        print(f"torch:    {t_secs:.1f} s, final training loss {t_losses[-1]:.3f}")
        print(f"largest per-step relative loss difference vs PyTorch over {len(d)} steps "
              f"({args.precision}; fp32 expected < 1e-5): {d.max():.3e} (step "
              f"{int(d.argmax()) + 1})")
    print("\nsample:\n" + generate(model, itos, args, args.sample))
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for k, v in curves.items():
            ax.plot(v, lw=1, label=k)
        ax.axhline(unigram, ls=":", color="gray", label="unigram baseline (validation)")
        ax.set(xlabel="step", ylabel="training loss", title="char GPT")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"\nsaved loss curves to {args.plot}")
    return losses


if __name__ == "__main__":
    sys.exit(main() and 0)
