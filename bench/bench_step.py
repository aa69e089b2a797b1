"""Benchmark: minigrad beside PyTorch CPU eager, printed side by side in one run.

Figures (medians):
  (a) the training step of a 784-512-512-10 MLP (batch 256, fp32, SGD momentum, fwd+bwd+step);
  (b) the per-op time of a chain of 100 adds on 4x4 fp32 tensors, forward and forward+backward;
  (c) the memory a 1000-step training run adds over the process's baseline after imports (peak RSS,
      ``VmHWM`` from /proc/self/status) and whether resident memory stays flat over the steps
      (sampled every 100 steps: graphs and saved tensors must be freed after backward);
  (d) mixed precision: minigrad bf16 autocast and fp16 autocast + GradScaler steps beside
      PyTorch's autocast bf16 step (skipped with a note when amp_emu is not available).
Targets: step <= 1.3x PyTorch; per-op fwd+bwd < 10 us; added memory <= 1.5x PyTorch's and flat;
bf16 <= 1.5x and fp16 <= 2x minigrad's own fp32 step.

How it measures (../shared/reference/cpu-cost-facts.md, "Measuring here"): NumPy's and PyTorch's
thread pools slow each other down inside one process, so every figure comes from a worker
subprocess that imports one framework only; the frameworks alternate order across rounds with a
pause between, and medians are taken over the repetitions of every round not taken under load
(a round whose median is over 1.5x the best round's is dropped). Only ratios from one run mean
anything: the machine is shared and its speed drifts.

Run: python bench/bench_step.py            (about a minute)
     python bench/bench_step.py --quick    (a smoke run, a few seconds)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAMEWORKS = ("minigrad", "torch")
SIZES = (784, 512, 512, 10)
BATCH = 256


# ================================================================== worker side (one framework)
def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


class _Lib:
    """The framework-specific pieces of the workloads."""

    def __init__(self, name):
        self.name = name
        self.amp = None
        if name == "minigrad":
            import minigrad
            import minigrad.nn
            import optim
            self.lib, self.nn, self.optim = minigrad, minigrad.nn, optim
            try:
                import amp_emu
                if hasattr(amp_emu, "autocast") and hasattr(amp_emu, "GradScaler"):
                    self.amp = amp_emu
            except ImportError:
                pass
        else:
            import torch
            self.lib, self.nn, self.optim, self.amp = torch, torch.nn, torch.optim, torch.amp
        self.lib.manual_seed(0)

    def mlp_step(self, precision="fp32"):
        """A closure running one training step of the benchmark MLP in ``precision``."""
        lib, nn = self.lib, self.nn
        layers = []
        for i in range(len(SIZES) - 1):
            layers.append(nn.Linear(SIZES[i], SIZES[i + 1]))
            if i < len(SIZES) - 2:
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        opt = self.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        crit = nn.CrossEntropyLoss()
        x = lib.randn(BATCH, SIZES[0])
        y = lib.randint(0, SIZES[-1], (BATCH,))
        if precision == "fp32":
            def step():
                opt.zero_grad(set_to_none=True)
                crit(model(x), y).backward()
                opt.step()
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
            return step
        scaler = self.amp.GradScaler("cpu")

        def step():
            opt.zero_grad(set_to_none=True)
            with autocast(device_type="cpu", dtype=dtype):
                loss = crit(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return step

    def add_chain(self, n=100):
        """Closures timing a chain of ``n`` adds on 4x4 tensors: forward, forward+backward."""
        a = self.lib.randn(4, 4, requires_grad=True)
        b = self.lib.randn(4, 4, requires_grad=True)

        def forward():
            x = a
            for _ in range(n):
                x = x + b
            return x

        def fwd_bwd():
            forward().sum().backward()
            a.grad = b.grad = None
        return forward, fwd_bwd


def _times(fn, reps, warmup):
    """``reps`` timings of ``fn()`` after at least ``warmup`` calls and ``warmup / 10`` seconds
    (PyTorch's first steps are slow: its allocator and oneDNN warm up over ~10 steps)."""
    t_end = time.perf_counter() + warmup / 10
    n = 0
    while n < warmup or time.perf_counter() < t_end:
        fn()
        n += 1
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def worker_time(name, reps, warmup, chain_reps):
    """Timings (seconds) of one framework: MLP steps in each precision, per-op add chains."""
    lib = _Lib(name)
    res = {"version": getattr(lib.lib, "__version__", "?"),
           "step_fp32": _times(lib.mlp_step("fp32"), reps, warmup)}
    fwd, fwd_bwd = lib.add_chain(100)
    res["op_fwd"] = [t / 100 for t in _times(fwd, chain_reps, warmup)]
    res["op_fwd_bwd"] = [t / 100 for t in _times(fwd_bwd, chain_reps, warmup)]
    amp_precisions = ("bf16", "fp16") if name == "minigrad" else ("bf16",)
    if lib.amp is None:
        res["amp_error"] = "amp_emu is not available"
        return res
    for p in amp_precisions:
        try:
            res[f"step_{p}"] = _times(lib.mlp_step(p), reps, warmup)
        except Exception as e:  # an unfinished amp_emu must not hide the other figures
            res["amp_error"] = f"{p}: {type(e).__name__}: {e}"
    return res


def worker_mem(name, steps, every):
    """Peak RSS over the post-import baseline and RSS samples (KiB) of a ``steps`` run."""
    lib = _Lib(name)
    baseline = _status_kb("VmHWM")  # after imports, before the model and data exist
    step = lib.mlp_step("fp32")
    samples = []
    for i in range(1, steps + 1):
        step()
        if i % every == 0:
            samples.append(_status_kb("VmRSS"))
    return {"baseline_kb": baseline, "peak_kb": _status_kb("VmHWM"), "rss_kb": samples}


# ================================================================== parent side
def _run_worker(args, threads=None):
    """Run this file as a worker subprocess; returns its JSON result."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if threads:  # BLAS (NumPy) and OpenMP (PyTorch) thread pools
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), *args], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"worker {' '.join(args)} failed (exit {out.returncode})")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _robust_median(rounds):
    """The median of the samples of every round whose own median is within 1.5x of the best
    round's: a round taken while other work loaded the machine is dropped."""
    best = min(statistics.median(r) for r in rounds)
    kept = [t for r in rounds if statistics.median(r) <= 1.5 * best for t in r]
    return statistics.median(kept)


def _fmt_time(s):
    return f"{s * 1e3:8.2f} ms" if s >= 1e-3 else f"{s * 1e6:8.2f} us"


def _verdict(ok):
    return "ok" if ok else "MISS"


def main(argv=None):
    """Run the workers (alternating order, one framework per process) and print the tables."""
    p = argparse.ArgumentParser(description="minigrad vs PyTorch CPU: step, per-op, memory, AMP")
    p.add_argument("--quick", action="store_true", help="a fast smoke run (few repetitions)")
    p.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 4)")
    p.add_argument("--threads", type=int, default=None,
                   help="BLAS/OpenMP threads per worker (default: the libraries' own; 1 with "
                        "--quick)")
    p.add_argument("--worker", choices=("time", "mem"), help=argparse.SUPPRESS)
    p.add_argument("--framework", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    p.add_argument("--reps", type=int, default=20, help=argparse.SUPPRESS)
    p.add_argument("--warmup", type=int, default=10, help=argparse.SUPPRESS)
    p.add_argument("--chain-reps", type=int, default=200, help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, default=1000, help=argparse.SUPPRESS)
    p.add_argument("--every", type=int, default=100, help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker == "time":
        print(json.dumps(worker_time(a.framework, a.reps, a.warmup, a.chain_reps)))
        return
    if a.worker == "mem":
        print(json.dumps(worker_mem(a.framework, a.steps, a.every)))
        return

    rounds = a.rounds or (1 if a.quick else 4)
    reps, warmup, chain_reps = (3, 2, 20) if a.quick else (15, 10, 200)
    steps, every = (20, 5) if a.quick else (1000, 100)
    # --quick is a smoke run: one thread per framework keeps it short even on a busy machine
    # (two spinning thread pools under contention can slow a step down 100x).
    threads = a.threads or (1 if a.quick else None)
    t_start = time.perf_counter()
    load0 = os.getloadavg()[0]  # other work on the machine (1-minute average)

    pooled = {f: {} for f in FRAMEWORKS}
    notes, versions = set(), {}
    for r in range(rounds):
        order = FRAMEWORKS if r % 2 == 0 else FRAMEWORKS[::-1]
        for f in order:
            res = _run_worker(["--worker", "time", "--framework", f, "--reps", str(reps),
                               "--warmup", str(warmup), "--chain-reps", str(chain_reps)], threads)
            if "amp_error" in res:
                notes.add(f"{f}: {res.pop('amp_error')}")
            versions[f] = res.pop("version")
            for k, v in res.items():
                pooled[f].setdefault(k, []).append(v)  # one list of samples per round
            time.sleep(0.3)
    mem = {}
    for f in (FRAMEWORKS if rounds % 2 == 0 else FRAMEWORKS[::-1]):
        mem[f] = _run_worker(["--worker", "mem", "--framework", f, "--steps", str(steps),
                              "--every", str(every)], threads)
        time.sleep(0.3)

    med = {f: {k: _robust_median(v) for k, v in pooled[f].items()} for f in FRAMEWORKS}
    print(f"minigrad vs PyTorch {versions['torch']} CPU eager, {os.cpu_count()} cores, "
          f"{threads or 'default'} thread(s) per framework; medians of "
          f"{rounds} alternating round(s) x {reps} steps / {chain_reps} chains"
          f"{' (--quick: smoke figures only)' if a.quick else ''}\n")
    report(med["minigrad"], med["torch"], mem, steps, every)
    for n in sorted(notes):
        print(f"note: {n}")
    print(f"\nbench wall time {time.perf_counter() - t_start:.1f} s; load average before the "
          f"run {load0:.1f}")
    if load0 > 0.5 * (os.cpu_count() or 1):
        print("warning: the machine was busy with other work; rerun for trustworthy figures")


def report(mg, pt, mem, steps, every):
    """Print the three tables from the medians ``mg``/``pt`` and the memory samples ``mem``."""
    print(f"{'workload':<44} {'minigrad':>12} {'PyTorch':>12} {'ratio':>7}  target")
    print("-" * 92)
    r = mg["step_fp32"] / pt["step_fp32"]
    print(f"{'(a) MLP 784-512-512-10 b256 fp32 step':<44} {_fmt_time(mg['step_fp32']):>12} "
          f"{_fmt_time(pt['step_fp32']):>12} {r:6.2f}x  <= 1.3x  {_verdict(r <= 1.3)}")
    for key, label in (("op_fwd", "(b) 4x4 add, per op, forward"),
                       ("op_fwd_bwd", "(b) 4x4 add, per op, forward+backward")):
        r = mg[key] / pt[key]
        target = f"  < 10 us  {_verdict(mg[key] < 10e-6)}" if key == "op_fwd_bwd" else ""
        print(f"{label:<44} {_fmt_time(mg[key]):>12} {_fmt_time(pt[key]):>12} {r:6.2f}x{target}")

    added = {f: (m["peak_kb"] - m["baseline_kb"]) / 1024 for f, m in mem.items()}
    growth = {f: (m["rss_kb"][-1] - m["rss_kb"][1]) / 1024 if len(m["rss_kb"]) > 1 else 0.0
              for f, m in mem.items()}
    flat = {f: growth[f] <= max(2.0, 0.05 * added[f]) for f in mem}
    r = added["minigrad"] / added["torch"] if added["torch"] > 0 else float("inf")
    print(f"{f'(c) peak RSS added by {steps} steps':<44} {added['minigrad']:9.1f} MiB "
          f"{added['torch']:9.1f} MiB {r:6.2f}x  <= 1.5x  {_verdict(r <= 1.5)}")
    print(f"{f'(c) RSS growth, step {every * 2} -> {steps}':<44} "
          f"{growth['minigrad']:9.1f} MiB {growth['torch']:9.1f} MiB {'':7}  flat     "
          f"{_verdict(flat['minigrad'])}")
    print(f"    RSS every {every} steps (MiB): minigrad "
          f"{[round(v / 1024) for v in mem['minigrad']['rss_kb']]}")
    print(f"                               PyTorch  "
          f"{[round(v / 1024) for v in mem['torch']['rss_kb']]}")

    print(f"\n{'(d) mixed precision, same MLP step':<44} {'minigrad':>12} {'PyTorch':>12} "
          f"{'vs mg fp32':>9}  target")
    print("-" * 92)
    print(f"{'fp32':<44} {_fmt_time(mg['step_fp32']):>12} {_fmt_time(pt['step_fp32']):>12} "
          f"{1.0:8.2f}x")
    for key, label, bound in (("step_bf16", "bf16 autocast (cpu)", 1.5),
                              ("step_fp16", "fp16 autocast (cpu) + GradScaler", 2.0)):
        mine = _fmt_time(mg[key]) if key in mg else "n/a"
        theirs = _fmt_time(pt[key]) if key in pt else "-"
        if key in mg:
            r = mg[key] / mg["step_fp32"]
            tail = f"{r:8.2f}x  <= {bound}x  {_verdict(r <= bound)}"
        else:
            tail = ""
        print(f"{label:<44} {mine:>12} {theirs:>12} {tail}")


if __name__ == "__main__":
    main()
