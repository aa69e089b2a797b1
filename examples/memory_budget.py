"""Where the memory of a training step goes, in true bytes on the emulated cuda device.

Two models: the character GPT of ``train_char_gpt.py`` at a size where activations dominate, and
the digits MLP of ``train_digits.py``. Each runs one Adam step per configuration:

- precision: fp32; bf16 autocast; fp16 autocast with a GradScaler (fp32 master weights and
  fp32 Adam state in both AMP runs);
- recomputation: none, ``checkpoint`` per transformer block (per hidden layer for the MLP), and
  ``checkpoint_sequential`` with 1..n segments (GPT);
- gradient accumulation over 1, 4 and 8 micro-batches of the same total batch;
- ``save_on_cpu`` (saved activations offloaded to the cpu device).

For each it prints the peak cuda bytes (``minigrad.cuda.max_memory_allocated``), the most bytes
saved for backward at once, and the parameter / gradient / optimizer-state bytes at the peak
(``minigrad.memory.track``), and the step time of an untracked step. Then one line per lecture
claim saying whether it holds here, and ``--plot FILE.png`` draws peak memory against the number
of checkpoint segments.

Run: python examples/memory_budget.py [--quick] [--plot peak_vs_segments.png]
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
import types

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minigrad as mg  # noqa: E402
import optim  # noqa: E402
from minigrad.autograd.graph import save_on_cpu  # noqa: E402
from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential  # noqa: E402
from train_char_gpt import build_gpt, load_text  # noqa: E402
from train_digits import build_model, load_data  # noqa: E402

MiB = 1 << 20


# ------------------------------------------------------------------ the models' forward passes
def gpt_loss(model, idx, targets, ckpt, segments):
    """The GPT's loss with its blocks run plainly, checkpointed one by one (``ckpt``), or through
    ``checkpoint_sequential`` in ``segments`` segments."""
    F = mg.nn.functional
    pos = mg.arange(idx.shape[1], device=idx.device)
    x = model.drop(model.tok_emb(idx) + model.pos_emb(pos))
    if segments:
        x = checkpoint_sequential(list(model.blocks), segments, x, use_reentrant=False)
    else:
        for blk in model.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if ckpt else blk(x)
    logits = model.lm_head(model.ln_f(x))
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def mlp_loss(model, x, y, ckpt, segments):
    """The MLP's loss; ``ckpt`` checkpoints each Linear+ReLU pair."""
    layers = list(model)
    if ckpt:
        for i in range(0, len(layers) - 1, 2):
            pair = mg.nn.Sequential(*layers[i:i + 2])
            x = checkpoint(pair, x, use_reentrant=False)
        out = layers[-1](x)
    else:
        out = model(x)
    return mg.nn.functional.cross_entropy(out, y)


# ------------------------------------------------------------------ one configuration
def run_config(make, loss_fn, batch, precision="fp32", ckpt=False, segments=0, accum=1,
               offload=False, timed=True):
    """Build the model, warm up one step (Adam's state is made), then one tracked step and one
    timed, untracked step (without ``timed`` the tracked step is timed, the tracker's own work
    included). Returns the row of the table as a dict."""
    model, data = make()
    opt = optim.Adam(model.parameters(), lr=1e-3)
    scaler = mg.amp.GradScaler("cuda") if precision == "fp16" else None
    dt = {"bf16": mg.bfloat16, "fp16": mg.float16}.get(precision)

    def step(accum=accum):
        opt.zero_grad(set_to_none=True)
        for xs, ys in zip(*(t.chunk(accum) for t in data)):
            ctx = mg.autocast("cuda", dtype=dt) if dt is not None else contextlib.nullcontext()
            with ctx, (save_on_cpu() if offload else contextlib.nullcontext()):
                loss = loss_fn(model, xs, ys, ckpt, segments) / accum
            (scaler.scale(loss) if scaler else loss).backward()
            del loss
        if scaler:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()

    step(1)                     # makes Adam's state (the same with any accumulation)
    mg.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    with mg.memory.track("cuda") as m:
        step()
    secs = time.perf_counter() - t0
    if timed:
        t0 = time.perf_counter()
        step()
        secs = time.perf_counter() - t0
    at_peak = m.by_category("peak")
    return {"precision": precision, "ckpt": "per layer" if ckpt else
            (f"seq {segments}" if segments else "-"), "accum": accum,
            "offload": offload, "peak": mg.cuda.max_memory_allocated(), "saved": m.max_saved,
            "params": at_peak["parameters"], "grads": at_peak["gradients"],
            "optim": at_peak["optimizer_state"], "secs": secs}


def print_table(title, rows, timed):
    print(f"\n{title}; step time {'untracked' if timed else 'of the tracked step'}")
    head = (f"{'precision':<9} {'ckpt':<9} {'accum':>5} {'offload':>7} {'peak MiB':>9} "
            f"{'saved MiB':>9} {'params':>8} {'grads':>8} {'optim':>8} {'step s':>7}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['precision']:<9} {r['ckpt']:<9} {r['accum']:>5} {str(r['offload']):>7} "
              f"{r['peak'] / MiB:>9.2f} {r['saved'] / MiB:>9.2f} {r['params'] / MiB:>8.2f} "
              f"{r['grads'] / MiB:>8.2f} {r['optim'] / MiB:>8.2f} {r['secs']:>7.2f}")


# ------------------------------------------------------------------ the experiments
def gpt_maker(args, text_ids, vocab):
    cfg = types.SimpleNamespace(embd=args.embd, heads=args.heads, block=args.block,
                                layers=args.layers)
    rng = np.random.default_rng(0)
    ix = rng.integers(0, len(text_ids) - args.block - 1, args.batch)
    xb = np.stack([text_ids[i:i + args.block] for i in ix])
    yb = np.stack([text_ids[i + 1:i + args.block + 1] for i in ix])

    def make():
        mg.manual_seed(0)
        model = build_gpt(mg, vocab, cfg, dropout=0.0).cuda()
        return model, (mg.tensor(xb, device="cuda"), mg.tensor(yb, device="cuda"))
    return make


def mlp_maker(args):
    x_tr, _, y_tr, _ = load_data(0)
    x, y = x_tr[:args.mlp_batch], y_tr[:args.mlp_batch]

    def make():
        mg.manual_seed(0)
        model = build_model(mg.nn, [64, *args.mlp_hidden, 10]).cuda()
        return model, (mg.tensor(x, device="cuda"), mg.tensor(y, device="cuda"))
    return make


def experiments(make, loss_fn, batch, n_layers, sequential, timed):
    def run(*a, **k):
        return run_config(make, loss_fn, batch, *a, timed=timed, **k)
    rows = [run(p) for p in ("fp32", "bf16", "fp16")]
    rows.append(run("fp32", ckpt=True))
    seg_rows = [run("fp32", segments=s) for s in range(1, n_layers + 1)] if sequential else []
    rows += seg_rows
    rows += [run("fp32", accum=a) for a in (4, 8)]
    rows.append(run("fp32", offload=True))
    return rows, seg_rows


def claims(gpt_rows, seg_rows, mlp_rows, n_layers):
    """One line per lecture claim: what was measured, and whether it holds."""
    out = []
    for name, rows in (("GPT", gpt_rows), ("MLP", mlp_rows)):
        fp32, bf16, fp16 = rows[0]["peak"], rows[1]["peak"], rows[2]["peak"]
        cut_b, cut_h = 1 - bf16 / fp32, 1 - fp16 / fp32
        holds = all(0.20 <= c <= 0.40 for c in (cut_b, cut_h))
        out.append(f"claim 'AMP lowers peak memory by only about 20-40% when Adam's fp32 state "
                   f"stays' ({name}): bf16 -{cut_b:.0%}, fp16 -{cut_h:.0%}: "
                   f"{'holds' if holds else 'does not hold here'}")
    r = gpt_rows[0]
    weights = r["params"] + r["grads"] + r["optim"]
    out.append(f"claim 'activations dominate at large batch' (GPT fp32): saved for backward "
               f"{r['saved'] / MiB:.2f} MiB vs weights+grads+Adam {weights / MiB:.2f} MiB: "
               f"{'holds' if r['saved'] > weights else 'does not hold here'}")
    if seg_rows:
        best = min(range(len(seg_rows)), key=lambda i: seg_rows[i]["peak"]) + 1
        root = math.sqrt(n_layers)
        near = abs(best - root) <= 1
        out.append(f"claim 'checkpointing's best split is near sqrt(n) segments' (GPT, n = "
                   f"{n_layers}): lowest peak at {best} segments, sqrt(n) = {root:.1f}: "
                   f"{'holds' if near else 'does not hold here'}")
    return out


def plot(seg_rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.5))
    segs = list(range(1, len(seg_rows) + 1))
    ax.plot(segs, [r["peak"] / MiB for r in seg_rows], marker="o", label="peak")
    ax.plot(segs, [r["saved"] / MiB for r in seg_rows], marker="s", label="saved for backward")
    ax.set_xlabel("checkpoint_sequential segments")
    ax.set_ylabel("MiB (emulated cuda)")
    ax.set_xticks(segs)
    ax.legend()
    ax.set_title("GPT: peak memory against checkpoint segments")
    fig.tight_layout()
    fig.savefig(path)
    print(f"\nplot written to {path}")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="a small GPT and MLP, the tracked step timed (well under 60 s)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--block", type=int, default=64)
    p.add_argument("--embd", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--mlp-batch", type=int, default=1024)
    p.add_argument("--mlp-hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--plot", metavar="FILE.png", help="save peak memory against segments")
    args = p.parse_args(argv)
    if args.quick:
        args.batch, args.block, args.embd, args.heads, args.layers = 8, 16, 32, 2, 3
        args.mlp_batch, args.mlp_hidden = 256, [128, 128]
    return args


def main(argv=None):
    args = parse_args(argv)
    text = load_text(20_000)
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], dtype=np.int64)
    t0 = time.perf_counter()
    gpt_rows, seg_rows = experiments(gpt_maker(args, ids, len(chars)), gpt_loss, args.batch,
                                     args.layers, sequential=True, timed=not args.quick)
    print_table(f"char GPT: {args.layers} blocks, d={args.embd}, batch {args.batch}x"
                f"{args.block} tokens (one Adam step)", gpt_rows, not args.quick)
    mlp_rows, _ = experiments(mlp_maker(args), mlp_loss, args.mlp_batch,
                              len(args.mlp_hidden), sequential=False, timed=not args.quick)
    print_table(f"digits MLP 64-{'-'.join(map(str, args.mlp_hidden))}-10, batch "
                f"{args.mlp_batch}", mlp_rows, not args.quick)
    print()
    for line in claims(gpt_rows, seg_rows, mlp_rows, args.layers):
        print(line)
    if args.plot:
        plot(seg_rows, args.plot)
    print(f"\n({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
