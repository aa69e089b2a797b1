"""The main job: an MLP on scikit-learn's handwritten digits, fp32 / bf16 / fp16 side by side.

Data: ``sklearn.datasets.load_digits`` (1797 8x8 scans, bundled with scikit-learn, no download),
a fixed seeded train/test split, inputs standardised with the training set's mean and std.
Model: an MLP (64-128-10 by default) with minigrad's default ``nn.Linear`` init, trained with
Adam or SGD-momentum, ``clip_grad_norm_`` before every step, a tqdm progress bar, and a table at
the end (test accuracy, final loss, final loss scale, skipped steps, steps, time).

Precisions (``--precision``, default ``all``: the three runs side by side, from the same initial
weights and the same batch order):
- ``fp32``: plain fp32;
- ``bf16``: forward and loss under ``amp_emu.autocast(device_type, bfloat16)``, no scaler;
- ``fp16``: forward and loss under ``amp_emu.autocast(device_type, float16)`` with an
  ``amp_emu.GradScaler``, in the lecture's order: scale(loss).backward(), unscale_, clip, step,
  update. A step whose gradients hold inf/nan is skipped and the scale halves.
``--device-type`` picks the device, as a CUDA script does: ``cpu`` (default, the profile PyTorch
CPU uses, so ``--compare-torch`` compares like with like) or ``cuda``, minigrad's emulated GPU:
the model and every batch are moved there with ``.to(device)``, autocast runs PyTorch's cuda
table (``autocast("cuda")`` only touches cuda tensors) and the GradScaler is a cuda one.
If ``amp_emu`` cannot be imported, only the fp32 run happens (with a note on stderr).

``--compare-torch`` trains the same runs in PyTorch CPU (cpu autocast profile) from a copy of
minigrad's initial weights and the same batches and prints, per run, the largest per-step relative
loss difference (fp32: expected below 1e-5 over the first 50 steps; the two frameworks' BLAS
sum in different orders, and training amplifies those last-bit differences step by step, to
about 1e-3 by step 400). ``--plot FILE.png`` draws the loss curves and the
loss scale over the steps.

Trading compute for memory (the lectures' "memory-tight training" recipe), and evidence:
- ``--checkpoint``: each hidden block (the layers up to and including each ReLU) runs under
  ``minigrad.utils.checkpoint.checkpoint(block, x, use_reentrant=False)``: its activations are
  recomputed in backward instead of kept. (A BatchNorm inside a block, as in the CNN example,
  updates its running statistics again during the recomputation, as in PyTorch.)
- ``--accum N``: each step's batch is split into N micro-batches; each one's loss is divided by N
  before backward, so the summed gradient is the whole batch's; with fp16, ``scaler.scale(loss /
  N).backward()`` per micro-batch and ``unscale_`` / clip / ``step`` / ``update`` once per step.
  The logged loss is the batch's (the mean of the micro-batch losses).
- ``--profile DIR``: ``minigrad.profiler.profile`` over steps 3-5 of each minigrad run
  (``schedule(wait=1, warmup=1, active=3, repeat=1)``), a Chrome trace per run written by
  ``tensorboard_trace_handler(DIR)``, and the ``key_averages()`` table by self CPU time.
The final table's "saved" column is the bytes the autograd graph keeps for backward after one
micro-batch's forward (the first step's largest), counted with
``minigrad.autograd.graph.saved_tensors_hooks``: the storage bytes of every tensor packed,
each storage once (views of one storage count once), as PyTorch's hooks see them (the same
figures as ``--compare-torch``'s PyTorch rows, but for 4 bytes: PyTorch's nll_loss also saves
its 0-dim total weight). A weight an op keeps (``addmm``'s second matrix) counts here;
``minigrad.memory.track``'s ``max_saved`` counts it as a parameter instead.
The "peak" column is the peak allocated bytes of the run's device during its second step (the
first with the optimizer state in place), from ``minigrad.memory.track(device)``: the weights,
gradients, optimizer state, batch, activations and temporaries; on the emulated cuda device in
the caching allocator's 512-byte blocks (``max_memory_allocated``, as a GPU counts), on the cpu
the unrounded bytes. PyTorch CPU has no such figure ("-"). Only that one step runs with cpu
accounting on.

Run: python examples/train_digits.py [--precision all] [--optimizer adam] [--compare-torch]
     [--checkpoint] [--accum N] [--profile DIR] [--device cuda]
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time

# One BLAS / OpenMP thread unless the caller says otherwise: the matrices here are tiny (64x128),
# a second thread only adds hand-off cost, and on a busy machine two spinning thread pools (NumPy's
# OpenBLAS and PyTorch's OpenMP) slow each other down by 10x or more. Set before NumPy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn as nn  # noqa: E402
import optim  # noqa: E402

try:  # mixed precision is optional: without amp_emu only the fp32 run is possible
    import amp_emu
    HAVE_AMP = hasattr(amp_emu, "autocast") and hasattr(amp_emu, "GradScaler")
except ImportError:  # pragma: no cover - depends on the checkout
    amp_emu, HAVE_AMP = None, False

PRECISIONS = ("fp32", "bf16", "fp16")


# ------------------------------------------------------------------ arguments and data
def parse_args(argv=None, defaults=None):
    """The command line (``argv`` defaults to ``sys.argv[1:]``); fills the default lr.

    ``defaults`` (a dict of option dests) replaces this script's defaults (the CNN example's)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--precision", choices=PRECISIONS + ("all",), default="all",
                   help="which run(s): fp32, bf16 autocast, fp16 autocast + GradScaler, or all")
    p.add_argument("--device-type", "--device", dest="device_type", choices=("cpu", "cuda"),
                   default="cpu",
                   help="device of the model and batches (cuda: minigrad's emulated GPU), "
                        "hence the autocast table and the GradScaler device")
    p.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    p.add_argument("--lr", type=float, default=None, help="default: 1e-3 adam, 0.05 sgd")
    p.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--hidden", type=int, nargs="+", default=[128],
                   help="hidden layer widths, e.g. --hidden 256 128")
    p.add_argument("--clip", type=float, default=1.0, help="max gradient norm for clip_grad_norm_ (inf: no clipping)")
    p.add_argument("--scheduler", choices=("none", "cosine", "onecycle"), default="none",
                   help="learning-rate schedule, stepped after every step: none (constant lr), "
                        "cosine (CosineAnnealingLR from lr to 0 over all steps) or onecycle "
                        "(OneCycleLR peaking at lr)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compare-torch", action="store_true",
                   help="train the same runs in PyTorch CPU and print the loss differences")
    p.add_argument("--plot", metavar="FILE.png", help="save loss curves and loss scale")
    p.add_argument("--no-progress", action="store_true", help="hide the tqdm progress bars")
    p.add_argument("--numerics", action="store_true",
                   help="count fp16 gradient underflows without and with loss scaling "
                        "(amp_emu.numerics.NumericsMonitor)")
    p.add_argument("--checkpoint", action="store_true",
                   help="recompute each hidden block's activations in backward (checkpoint)")
    p.add_argument("--accum", type=int, default=1, metavar="N",
                   help="micro-batches per step (the batch split in N, loss / N each)")
    p.add_argument("--profile", metavar="DIR",
                   help="profile steps 3-5 of each minigrad run, write Chrome traces to DIR")
    if defaults:
        p.set_defaults(**defaults)
    args = p.parse_args(argv)
    if args.accum < 1 or args.batch_size % args.accum:
        p.error(f"--accum {args.accum} must be >= 1 and divide --batch-size {args.batch_size}")
    if args.lr is None:
        args.lr = 1e-3 if args.optimizer == "adam" else 0.05
    return args


def load_data(seed):
    """Standardised digits: (x_train, x_test) float32 (n, 64), (y_train, y_test) int64."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    x, y = load_digits(return_X_y=True)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.25, random_state=seed,
                                              stratify=y)
    scaler = StandardScaler().fit(x_tr)
    f32 = lambda a: np.ascontiguousarray(scaler.transform(a), dtype=np.float32)  # noqa: E731
    return f32(x_tr), f32(x_te), y_tr.astype(np.int64), y_te.astype(np.int64)


def batch_order(n, batch_size, epochs, seed):
    """The index arrays of every step, shared by all runs: a fresh seeded shuffle per epoch,
    full batches only (a last partial batch of a few images would only add noise)."""
    rng = np.random.default_rng(seed)
    order = []
    for _ in range(epochs):
        perm = rng.permutation(n)
        order += [perm[i:i + batch_size] for i in range(0, n - batch_size + 1, batch_size)]
    return order


def build_model(nn_module, sizes):
    """Linear-ReLU-...-Linear from ``nn_module`` (``minigrad.nn`` or ``torch.nn``)."""
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn_module.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn_module.ReLU())
    return nn_module.Sequential(*layers)


# ------------------------------------------------------------------ one training run
class Run:
    """What one training run leaves behind: per-step losses and scales, accuracy, time."""

    def __init__(self, framework, precision):
        self.framework, self.precision = framework, precision
        self.losses, self.scales = [], []
        self.skipped, self.accuracy, self.seconds = 0, float("nan"), 0.0
        self.saved_bytes = 0        # bytes kept for backward after one micro-batch's forward
        self.peak_bytes = None      # peak allocated bytes during the second step (minigrad)

    @property
    def final_scale(self):
        return self.scales[-1] if self.scales else None


def _progress(total, desc, disable):
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is in the examples extra; run without bars if it is missing
        return None
    # disable=None: tqdm hides the bar when stderr is not a terminal (logs, CI, pipes)
    return tqdm(total=total, desc=desc, unit="step", leave=False, disable=disable or None,
                file=sys.stderr, dynamic_ncols=True)


class _Frame:
    """The few framework-specific pieces, so that one loop trains minigrad and PyTorch alike."""

    def __init__(self, name, args):
        self.name = name
        if name == "minigrad":
            self.lib, self.nn, self.optim = mg, nn, optim
            self.clip = nn.utils.clip_grad_norm_
            self.amp = amp_emu
            from minigrad.autograd.graph import saved_tensors_hooks
            from minigrad.utils.checkpoint import checkpoint
            self.saved_tensors_hooks, self.checkpoint = saved_tensors_hooks, checkpoint
            self.device_type = args.device_type
            self.device = mg.device(args.device_type)
        else:
            import torch
            self.lib, self.nn, self.optim = torch, torch.nn, torch.optim
            self.clip = torch.nn.utils.clip_grad_norm_
            self.amp = torch.amp
            self.saved_tensors_hooks = torch.autograd.graph.saved_tensors_hooks
            self.checkpoint = torch.utils.checkpoint.checkpoint
            self.device_type = "cpu"  # PyTorch CPU runs the cpu profile
            self.device = torch.device("cpu")

    def tensor(self, arr):
        """A batch (or weight) from a NumPy array, on this frame's device."""
        return self.lib.from_numpy(np.ascontiguousarray(arr)).to(self.device)

    def autocast(self, precision):
        if precision == "fp32":
            return contextlib.nullcontext()
        dtype = self.lib.bfloat16 if precision == "bf16" else self.lib.float16
        return self.amp.autocast(device_type=self.device_type, dtype=dtype)

    def scaler(self, precision):
        return self.amp.GradScaler(self.device_type) if precision == "fp16" else None

    def storage(self, t):
        """(an id of ``t``'s storage, its bytes): views of one storage share the id."""
        if self.name == "torch":
            s = t.untyped_storage()
            return s.data_ptr(), s.nbytes()
        # Stand-in: minigrad has no Tensor.untyped_storage() yet. A tensor's storage is the root
        # NumPy array under its array (read here, never written), as the memory figures count it.
        from minigrad.storage_accounting import root_of
        arr = root_of(t._data)
        return id(arr), arr.nbytes

    def memory_tracker(self):
        """``minigrad.memory.track(device)`` (its ``peak``: the device's peak allocated bytes in
        the region), or None for PyTorch CPU, which has no such figure."""
        if self.name != "minigrad":
            return None
        import minigrad.memory
        gc.collect()    # a previous run's model and optimizer state go now, not in the region
        return minigrad.memory.track(self.device_type)


class SavedBytes:
    """Counts the bytes the autograd graph keeps for backward inside the ``with`` block, through
    the saved-tensor hooks (``saved_tensors_hooks``): each packed tensor's storage, once."""

    def __init__(self, frame):
        self.frame, self.storages = frame, {}
        self.hooks = frame.saved_tensors_hooks(self._pack, lambda t: t)

    def _pack(self, t):
        key, nbytes = self.frame.storage(t)
        self.storages[key] = nbytes
        return t

    @property
    def total(self):
        return sum(self.storages.values())

    def __enter__(self):
        self.hooks.__enter__()
        return self

    def __exit__(self, *exc):
        return self.hooks.__exit__(*exc)


def hidden_blocks(model, nn_module):
    """Split an ``nn.Sequential`` after each ReLU: (the hidden blocks, the rest). The blocks
    share the model's modules (and so its parameters)."""
    blocks, current = [], []
    for m in model:
        current.append(m)
        if isinstance(m, nn_module.ReLU):
            blocks.append(nn_module.Sequential(*current))
            current = []
    return blocks, nn_module.Sequential(*current)


def _profiler(frame, precision, directory):
    """A started profiler recording steps 3-5 (wait 1, warmup 1, active 3), trace to directory."""
    from minigrad import profiler
    acts = [profiler.ProfilerActivity.CPU]
    if frame.device_type == "cuda":
        acts.append(profiler.ProfilerActivity.CUDA)
    prof = profiler.profile(activities=acts, record_shapes=True,
                            schedule=profiler.schedule(wait=1, warmup=1, active=3, repeat=1),
                            on_trace_ready=profiler.tensorboard_trace_handler(
                                directory, worker_name=f"train_digits_{precision}"))
    prof.start()
    return prof


def train(frame, precision, sizes, init_state, data, order, args, model_fn=None):
    """Train one run from ``init_state`` on the batches ``order``; returns a ``Run``.

    ``model_fn(nn_module, sizes)`` builds the model (default ``build_model``, the MLP)."""
    x_tr, x_te, y_tr, y_te = data
    model = (model_fn or build_model)(frame.nn, sizes)
    model.load_state_dict({k: frame.tensor(v.copy()) for k, v in init_state.items()})
    model.to(frame.device)          # before the optimizer is built, as a CUDA script does
    if args.optimizer == "adam":
        opt = frame.optim.Adam(model.parameters(), lr=args.lr)
    else:
        opt = frame.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    if args.scheduler == "cosine":
        sched = frame.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=len(order))
    elif args.scheduler == "onecycle":
        sched = frame.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=len(order))
    else:
        sched = None
    criterion = frame.nn.CrossEntropyLoss()
    scaler = frame.scaler(precision)
    run = Run(frame.name, precision)
    bar = _progress(len(order), f"{frame.name} {precision}", args.no_progress)
    forward = model
    if args.checkpoint:
        blocks, head = hidden_blocks(model, frame.nn)

        def forward(x):
            for block in blocks:
                x = frame.checkpoint(block, x, use_reentrant=False)
            return head(x)
    n_micro = args.accum
    prof = (_profiler(frame, precision, args.profile)
            if args.profile and frame.name == "minigrad" else None)

    start = time.perf_counter()
    for step, idx in enumerate(order):
        micro_losses = []
        region = contextlib.ExitStack()    # step 2 (index 1), the first in steady state:
        tracker = frame.memory_tracker() if step == 1 else None     # its peak bytes
        if tracker is not None:
            region.enter_context(tracker)
        for micro in (np.split(idx, n_micro) if n_micro > 1 else [idx]):
            xb, yb = frame.tensor(x_tr[micro]), frame.tensor(y_tr[micro])
            counter = SavedBytes(frame) if step == 0 else contextlib.nullcontext()
            with counter, frame.autocast(precision):
                loss = criterion(forward(xb), yb)
            if step == 0:
                run.saved_bytes = max(run.saved_bytes, counter.total)
            if n_micro > 1:
                micro_losses.append(loss.item())
                loss = loss / n_micro
            # the lecture's order with a scaler: scale, backward (per micro-batch), then once
            # per step unscale_, clip, step, update
            (loss if scaler is None else scaler.scale(loss)).backward()
        if scaler is None:
            frame.clip(model.parameters(), args.clip)
            opt.step()
        else:
            scaler.unscale_(opt)
            frame.clip(model.parameters(), args.clip)
            before = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            run.scales.append(scaler.get_scale())
            run.skipped += run.scales[-1] < before  # the scale backs off iff inf/nan was found
        opt.zero_grad(set_to_none=True)
        if sched is not None:
            sched.step()
        region.close()
        if tracker is not None:
            run.peak_bytes = tracker.peak
        run.losses.append(loss.item() if n_micro == 1 else sum(micro_losses) / n_micro)
        if prof is not None:
            prof.step()
            if prof.step_num == 5:  # the schedule's one cycle is done
                prof.stop()
                print_profile(prof, precision, args.profile)
                prof = None
        if bar is not None:
            bar.update(1)
            if step % 20 == 0:
                bar.set_postfix(loss=f"{run.losses[-1]:.4f}")
    if bar is not None:
        bar.close()
    if prof is not None:   # fewer than 5 steps: stop, and show what was recorded, if anything
        prof.stop()
        if prof.step_num >= 2:
            print_profile(prof, precision, args.profile)

    with frame.lib.no_grad(), frame.autocast(precision):
        logits = model(frame.tensor(x_te))
    pred = logits.float().argmax(dim=1).cpu().numpy()
    run.accuracy = float((pred == y_te).mean())
    run.seconds = time.perf_counter() - start
    return run


# ------------------------------------------------------------------ reporting
def rel_diffs(a, b):
    """Per-step relative differences |a - b| / |b| of two loss sequences."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.abs(a - b) / np.maximum(np.abs(b), 1e-12)


def print_profile(prof, precision, directory):
    """The profiled steps' ``key_averages`` table, by self CPU time."""
    print(f"\nprofile, minigrad {precision}, steps 3-5 (trace in {directory}/):")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))


def format_bytes(n):
    """Bytes as a short token: 512B, 12.3KiB, 1.50MiB."""
    if n < 1024:
        return f"{n}B"
    if n < 1024 ** 2:
        return f"{n / 1024:.1f}KiB"
    return f"{n / 1024 ** 2:.2f}MiB"


def print_table(runs, compare=None):
    """One row per run; ``compare`` maps precision -> max relative loss diff vs PyTorch."""
    head = (f"{'framework':<9} {'precision':<9} {'test acc':>8} {'final loss':>10} "
            f"{'loss scale':>10} {'skipped':>7} {'steps':>6} {'time s':>7} {'saved':>9} {'peak':>9}")
    if compare:
        head += f" {'max rel loss diff vs torch':>27}"
    print(head)
    print("-" * len(head))
    for r in runs:
        scale = f"{r.final_scale:.0f}" if r.final_scale is not None else "-"
        skipped = str(r.skipped) if r.precision == "fp16" else "-"
        line = (f"{r.framework:<9} {r.precision:<9} {100 * r.accuracy:7.2f}% {r.losses[-1]:10.4f} "
                f"{scale:>10} {skipped:>7} {len(r.losses):6d} {r.seconds:7.2f} "
                f"{format_bytes(r.saved_bytes):>9} "
                f"{format_bytes(r.peak_bytes) if r.peak_bytes is not None else '-':>9}")
        if compare and r.framework == "minigrad" and r.precision in compare:
            line += f" {compare[r.precision]:27.2e}"
        print(line)


def plot(runs, path):
    """Save the per-step losses (left) and the GradScaler scale (right) to ``path`` (PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for r in runs:
        style = "-" if r.framework == "minigrad" else "--"
        ax1.plot(r.losses, style, lw=1, label=f"{r.framework} {r.precision}")
        if r.scales:
            ax2.step(range(len(r.scales)), r.scales, where="post",
                     label=f"{r.framework} {r.precision} ({r.skipped} skipped)")
    ax1.set(xlabel="step", ylabel="training loss", yscale="log", title="Loss per step")
    ax1.legend()
    ax2.set(xlabel="step", ylabel="loss scale", yscale="log", title="GradScaler scale (fp16)")
    if any(r.scales for r in runs):
        ax2.legend()
    else:
        ax2.text(0.5, 0.5, "no fp16 run", ha="center", transform=ax2.transAxes)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ------------------------------------------------------------------ main
def main(argv=None, model_fn=None, model_name=None, args=None):
    """Train the requested runs side by side, print the table; returns the ``Run`` list.

    ``model_fn(nn_module, sizes)`` and ``model_name`` swap in another model (the CNN example's);
    ``args`` an already parsed command line (else ``parse_args(argv)``)."""
    args = args if args is not None else parse_args(argv)
    model_fn = model_fn or build_model
    wanted = list(PRECISIONS) if args.precision == "all" else [args.precision]
    if not HAVE_AMP and wanted != ["fp32"]:
        print("note: amp_emu (autocast, GradScaler) is not available: running fp32 only",
              file=sys.stderr)
        wanted = ["fp32"]

    data = load_data(args.seed)
    sizes = [data[0].shape[1], *args.hidden, 10]
    mg.manual_seed(args.seed)
    init_state = {k: v.detach().numpy().copy()
                  for k, v in model_fn(nn, sizes).state_dict().items()}
    order = batch_order(len(data[0]), args.batch_size, args.epochs, args.seed)
    print(f"digits: {len(data[0])} train / {len(data[1])} test images, "
          f"{model_name or 'MLP ' + '-'.join(map(str, sizes))}, {args.optimizer} lr={args.lr:g}, "
          f"clip {args.clip:g}, "
          + (f"{args.scheduler} schedule, " if args.scheduler != "none" else "")
          + f"{args.epochs} epochs of batch {args.batch_size} "
          f"({len(order)} steps), device '{args.device_type}'"
          + (f", {args.accum} micro-batches of {args.batch_size // args.accum} per step"
             if args.accum > 1 else "")
          + (", hidden blocks checkpointed" if args.checkpoint else ""))

    frames = [_Frame("minigrad", args)]
    if args.compare_torch:
        frames.append(_Frame("torch", args))
    runs = [train(f, p, sizes, init_state, data, order, args, model_fn)
            for p in wanted for f in frames]

    compare = None
    if args.compare_torch:
        by = {(r.framework, r.precision): r for r in runs}
        diffs = {p: rel_diffs(by["minigrad", p].losses, by["torch", p].losses) for p in wanted}
        compare = {p: float(d.max()) for p, d in diffs.items()}
    print()
    print_table(runs, compare)
    if compare:
        print("\nlargest per-step relative loss difference, minigrad vs PyTorch CPU "
              "(same initial weights and batches; fp32 expected < 1e-5 over the first 50 steps, "
              "then growing: BLAS sums in another order and training amplifies it):")
        if args.device_type != "cpu":
            print(f"  (minigrad ran on its emulated '{args.device_type}' device with that autocast "
                  "table, PyTorch CPU the 'cpu' one: bf16/fp16 differences include the policy "
                  "tables' differences)")
        for p, d in diffs.items():
            print(f"  {p}: {d.max():.3e}   (first step {d[0]:.1e}, first 50 steps "
                  f"{d[:50].max():.1e}, first 100 steps {d[:100].max():.1e}, largest at step "
                  f"{int(d.argmax()) + 1})")
    if args.numerics and HAVE_AMP:
        fp16 = [r for r in runs if r.framework == "minigrad" and r.precision == "fp16"]
        numerics_report(frames[0], sizes, init_state, data, order, args, model_fn,
                        fp16[0].final_scale if fp16 else None)
    if args.plot:
        plot(runs, args.plot)
        print(f"\nsaved loss curves to {args.plot}")
    return runs


def numerics_report(frame, sizes, init_state, data, order, args, model_fn, final_scale=None):
    """``--numerics``: the first batch's fp16-autocast backward from the initial weights, under
    ``amp_emu.numerics.NumericsMonitor``, without loss scaling and with GradScaler's scales
    (its initial 65536 and, when an fp16 run trained, the scale it ended at): how many fp16
    gradient values flush to zero or turn subnormal, and how the scale brings them back."""
    from amp_emu.numerics import NumericsMonitor
    x_tr, y_tr = data[0], data[2]
    model = model_fn(frame.nn, sizes)
    model.load_state_dict({k: frame.tensor(v.copy()) for k, v in init_state.items()})
    model.to(frame.device)
    criterion = frame.nn.CrossEntropyLoss()
    xb, yb = frame.tensor(x_tr[order[0]]), frame.tensor(y_tr[order[0]])
    scales = [1.0, 65536.0] + ([final_scale] if final_scale not in (None, 1.0, 65536.0) else [])
    print("\nfp16 gradients of the first batch (autocast, initial weights), "
          "by amp_emu.numerics.NumericsMonitor:")
    print(f"  {'loss scale':>12} {'fp16 grad values':>17} {'flushed to 0':>13} "
          f"{'subnormal':>10} {'overflowed':>11} {'lost':>7}")
    for scale in scales:
        model.zero_grad(set_to_none=True)
        with NumericsMonitor(formats=("float16",)) as mon:
            with frame.autocast("fp16"):
                loss = criterion(model(xb), yb)
            (loss * scale).backward()
        g = mon.totals("gradient", "float16")
        lost = 100.0 * (g.underflow + g.subnormal) / max(1, g.values)
        label = f"{scale:g}" + (" (no scaling)" if scale == 1.0 else "")
        print(f"  {label:>12} {g.values:>17} {g.underflow:>13} {g.subnormal:>10} "
              f"{g.overflow:>11} {lost:>6.2f}%")


if __name__ == "__main__":
    main()
