"""Where one training step of the char GPT spends its time and bytes, in each precision, with and
without checkpointing: the lectures' last step, "profiler validate", as evidence.

The model is ``train_char_gpt.py``'s GPT (token + position embeddings, pre-norm blocks with causal
``scaled_dot_product_attention`` and a GELU MLP, dropout, tied head) with AdamW and clipping. Six
configurations: fp32, bf16 autocast, fp16 autocast + GradScaler, each plain and with every block
checkpointed (``minigrad.utils.checkpoint.checkpoint(block, x, use_reentrant=False)``: the
blocks' activations are recomputed in backward). Each configuration runs one warm-up step (which
also counts the bytes the graph keeps for backward, through ``saved_tensors_hooks``), one timed
step, and one step under ``minigrad.profiler.profile(record_shapes=True, profile_memory=True)``
with ``record_function`` ranges "forward", "backward" and "optimizer", and under
``minigrad.memory.track(device)``, whose ``peak`` is that step's peak allocated bytes.

It prints:
- a summary: step time, the forward / backward / optimizer split of the profiled step, the bytes
  saved for backward, the peak bytes, and the op with the most self CPU time;
- per configuration, the top rows of ``key_averages()`` by self CPU time;
- autocast at work, from the events' recorded input types: ``aten::addmm`` runs on fp16
  (``c10::Half``) or bf16 (``c10::BFloat16``) inputs, ``aten::_log_softmax`` on fp32 ones;
- the Chrome traces written (``export_chrome_trace``; open them in https://ui.perfetto.dev or
  chrome://tracing).

Run: python examples/profile_step.py [--quick] [--device cuda] [--trace-dir DIR]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_char_gpt as gpt  # noqa: E402  (sets the thread counts before NumPy loads)
import train_digits  # noqa: E402  (SavedBytes, format_bytes)

import numpy as np  # noqa: E402

import amp_emu  # noqa: E402
import minigrad as mg  # noqa: E402
from minigrad import profiler  # noqa: E402
from minigrad.profiler import record_function  # noqa: E402

PRECISIONS = ("fp32", "bf16", "fp16")
DTYPES = {"bf16": mg.bfloat16, "fp16": mg.float16}


def parse_args(argv=None):
    """The command line (``argv`` defaults to ``sys.argv[1:]``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a smaller GPT and batch (< 30 s)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cuda",
                   help="cuda: minigrad's emulated GPU (peak-memory figures, cuda autocast table)")
    p.add_argument("--trace-dir", default="profile_step_traces",
                   help="where the Chrome traces go")
    p.add_argument("--rows", type=int, default=6, help="key_averages rows per configuration")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    # the GPT's own options (train_char_gpt.py's defaults), smaller with --quick
    model_args = gpt.parse_args([])
    if args.quick:
        model_args.embd, model_args.block, model_args.batch, model_args.chars = 32, 32, 8, 20_000
    args.model = model_args
    return args


class Config:
    """One configuration: its model, optimizer, scaler and step, from shared initial weights."""

    def __init__(self, precision, checkpointed, vocab, init_state, args):
        self.precision, self.checkpointed, self.device = precision, checkpointed, args.device
        self.name = precision + (" + checkpoint" if checkpointed else "")
        self.model = gpt.build_gpt(mg, vocab, args.model, args.model.dropout)
        self.model.load_state_dict({k: mg.tensor(v.copy()) for k, v in init_state.items()})
        self.model.to(args.device)
        self.model.checkpoint = checkpointed
        self.opt = mg.optim.AdamW(gpt.param_groups(self.model, args.model.weight_decay),
                                  lr=args.model.lr, betas=(0.9, 0.95))
        self.scaler = amp_emu.GradScaler(args.device) if precision == "fp16" else None

    def autocast(self):
        if self.precision == "fp32":
            return contextlib.nullcontext()
        return amp_emu.autocast(self.device, dtype=DTYPES[self.precision])

    def step(self, x, y, saved=None):
        """One training step; ``saved`` (a ``SavedBytes``) counts the forward's saved tensors."""
        with record_function("forward"), saved or contextlib.nullcontext(), self.autocast():
            loss = self.model(x, y)
        with record_function("backward"):
            (loss if self.scaler is None else self.scaler.scale(loss)).backward()
        with record_function("optimizer"):
            if self.scaler is not None:
                self.scaler.unscale_(self.opt)
            mg.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            if self.scaler is None:
                self.opt.step()
            else:
                self.scaler.step(self.opt)
                self.scaler.update()
            self.opt.zero_grad(set_to_none=True)
        return loss.item()


def profile_config(cfg, batches, args):
    """Warm-up (and saved bytes), timed step (and peak), profiled step; a dict of figures."""
    frame = train_digits._Frame("minigrad", argparse.Namespace(device_type=args.device))
    saved = train_digits.SavedBytes(frame)
    x, y = next(batches)
    cfg.step(x, y, saved)
    x, y = next(batches)
    start = time.perf_counter()
    cfg.step(x, y)
    seconds = time.perf_counter() - start
    acts = [profiler.ProfilerActivity.CPU]
    if args.device == "cuda":
        acts.append(profiler.ProfilerActivity.CUDA)
    x, y = next(batches)
    with frame.memory_tracker() as memory, profiler.profile(
            activities=acts, record_shapes=True, profile_memory=True) as prof:
        cfg.step(x, y)
    averages = prof.key_averages()
    ranges = {e.key: e.cpu_time_total for e in averages if e.key in ("forward", "backward",
                                                                     "optimizer")}
    ops = [e for e in averages if not e.is_user_annotation]
    top = max(ops, key=lambda e: e.self_cpu_time_total)
    os.makedirs(args.trace_dir, exist_ok=True)
    trace = os.path.join(args.trace_dir, "profile_step_" + cfg.name.replace(" + ", "_") + ".json")
    prof.export_chrome_trace(trace)
    return {"seconds": seconds, "ranges": ranges, "saved": saved.total, "peak": memory.peak,
            "top": top, "prof": prof, "trace": trace}


def input_types(prof, name):
    """The distinct input types (PyTorch's C++ names) of the ``name`` events, e.g.
    ``('c10::Half', 'c10::Half', 'c10::Half')``."""
    kinds = []
    for e in prof.events():
        if e.name == name:
            types = tuple(t for t in e.input_dtypes if t)
            if types not in kinds:
                kinds.append(types)
    return kinds


def main(argv=None):
    """Profile the six configurations and print the figures; returns them by name."""
    args = parse_args(argv)
    a = args.model
    text = gpt.load_text(a.chars)
    itos = sorted(set(text))
    stoi = {c: i for i, c in enumerate(itos)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    mg.manual_seed(args.seed)
    init_state = {k: v.detach().numpy().copy()
                  for k, v in gpt.build_gpt(mg, len(itos), a, a.dropout).state_dict().items()}
    print(f"char GPT: {a.layers} layers x {a.embd} wide, {a.heads} heads, context {a.block}, "
          f"batch {a.batch}, vocabulary {len(itos)}, dropout {a.dropout:g}; AdamW, clipping; "
          f"device '{args.device}'")

    results = {}
    for precision in PRECISIONS:
        for checkpointed in (False, True):
            cfg = Config(precision, checkpointed, len(itos), init_state, args)
            windows = gpt.batches(data, 3, a.batch, a.block, args.seed)
            batches = ((mg.tensor(xb).to(args.device), mg.tensor(yb).to(args.device))
                       for xb, yb in windows)
            results[cfg.name] = profile_config(cfg, batches, args)

    head = (f"{'configuration':<20} {'step ms':>8} {'fwd ms':>7} {'bwd ms':>7} {'opt ms':>7} "
            f"{'saved':>9} {'peak':>9}  op with most self CPU time")
    print("\n" + head + "\n" + "-" * len(head))
    for name, r in results.items():
        ms = {k: r["ranges"].get(k, 0.0) / 1000 for k in ("forward", "backward", "optimizer")}
        peak = train_digits.format_bytes(r["peak"])
        top = r["top"]
        print(f"{name:<20} {1000 * r['seconds']:8.1f} {ms['forward']:7.1f} "
              f"{ms['backward']:7.1f} {ms['optimizer']:7.1f} "
              f"{train_digits.format_bytes(r['saved']):>9} {peak:>9}  {top.key} "
              f"({top.self_cpu_time_total / 1000:.1f} ms, {top.count} calls)")
    print("(step ms: an unprofiled step; fwd/bwd/opt: the profiled step's record_function "
          "ranges; saved: bytes kept for backward after the forward; peak: the profiled step's "
          "peak allocated bytes, minigrad.memory.track"
          + (", in the cuda allocator's 512-byte blocks)" if args.device == "cuda" else ")"))

    for name, r in results.items():
        print(f"\n{name}: top {args.rows} ops by self CPU time")
        print(r["prof"].key_averages().table(sort_by="self_cpu_time_total", row_limit=args.rows))

    print("autocast at work (input types recorded with record_shapes=True):")
    for name in ("fp32", "bf16", "fp16"):
        prof = results[name]["prof"]
        for op in ("aten::addmm", "aten::_log_softmax"):
            kinds = input_types(prof, op)
            shown = ", ".join("(" + ", ".join(k) + ")" for k in kinds) or "not called"
            print(f"  {name:<5} {op:<20} {shown}")
    print("\nChrome traces (open in https://ui.perfetto.dev or chrome://tracing):")
    for r in results.values():
        print(f"  {r['trace']}")
    return results


if __name__ == "__main__":
    main()
