"""Benchmark: one optimizer step, minigrad's ``optim`` beside ``torch.optim`` (CPU, fp32).

The parameters are those of a 784-512-512-10 MLP (weights and biases, ~670k fp32 values), each
with a fixed random gradient. Timed: ``SGD(lr=0.01, momentum=0.9)`` and ``Adam(lr=1e-3)`` steps
(torch with ``foreach=False``, the single-tensor loop that ``optim`` reproduces). The state is
warmed up first, so the timed steps are steady-state steps (momentum buffers / moments exist).
Targets: SGD-momentum <= 1.2 ms, Adam <= 4 ms per step.

How it measures (../shared/reference/cpu-cost-facts.md, "Measuring here"): each framework is
timed in its own worker subprocess that imports only that framework; the frameworks alternate
order across rounds with a pause between; medians over every repetition of the rounds not taken
under load (a round whose median is over 1.5x the best round's is dropped). Only ratios from one
run mean anything: the machine is shared and its speed drifts.

Run: python bench/bench_optim.py            (about 25 seconds)
     python bench/bench_optim.py --threads 1 (torch single-threaded; steadier under load)
     python bench/bench_optim.py --quick    (a smoke run)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAMEWORKS = ("minigrad", "torch")
SIZES = (784, 512, 512, 10)
TARGETS = {"SGD-momentum": 1.2e-3, "Adam": 4e-3}


def _shapes():
    out = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        out += [(fan_out, fan_in), (fan_out,)]
    return out


def _arrays(seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in _shapes()]
    grads = [(rng.standard_normal(s) * 1e-2).astype(np.float32) for s in _shapes()]
    return params, grads


def _make(name, kind):
    """Returns the step callable of optimizer ``kind`` in framework ``name``."""
    params, grads = _arrays()
    if name == "torch":
        import torch
        ps = [torch.from_numpy(p).requires_grad_() for p in params]
        for p, g in zip(ps, grads):
            p.grad = torch.from_numpy(g)
        mod = torch.optim
    else:
        sys.path.insert(0, ROOT)
        import minigrad as mg
        import optim
        ps = [mg.from_numpy(p).requires_grad_() for p in params]
        for p, g in zip(ps, grads):
            p.grad = mg.from_numpy(g)
        mod = optim
    if kind == "SGD-momentum":
        opt = mod.SGD(ps, lr=0.01, momentum=0.9, foreach=False)
    else:
        opt = mod.Adam(ps, lr=1e-3, foreach=False)
    return opt.step


def worker(name, reps, warmup):
    out = {}
    for kind in TARGETS:
        step = _make(name, kind)
        for _ in range(warmup):
            step()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        out[kind] = times
    print(json.dumps(out))


def _run_worker(name, reps, warmup, threads=None):
    return harness.run_worker(__file__, ["--worker", name, "--reps", str(reps),
                                         "--warmup", str(warmup)], threads)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--threads", type=int, default=None,
                   help="threads per worker (default: the libraries' own); 1 is steadier when "
                        "the machine is loaded")
    p.add_argument("--worker", choices=FRAMEWORKS)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    a = p.parse_args(argv)
    if a.worker:
        worker(a.worker, a.reps, a.warmup)
        return
    rounds = a.rounds or (1 if a.quick else 4)
    reps = 10 if a.quick else a.reps
    res = {n: {k: [] for k in TARGETS} for n in FRAMEWORKS}
    for r in range(rounds):
        order = FRAMEWORKS if r % 2 == 0 else FRAMEWORKS[::-1]
        for name in order:
            for kind, times in _run_worker(name, reps, a.warmup, a.threads).items():
                res[name][kind].append(times)
            time.sleep(0.3)
    n_params = sum(math.prod(s) for s in _shapes())
    print(f"optimizer step, {'-'.join(map(str, SIZES))} MLP parameters ({n_params:,} fp32), "
          f"medians of {rounds} round(s) x {reps} steps, one worker process per framework, "
          f"{a.threads or 'default'} thread(s)")
    print(f"{'optimizer':<14}{'minigrad':>12}{'torch.optim':>14}{'ratio':>8}{'target':>10}")
    for kind, target in TARGETS.items():
        m = harness.robust_stats(res["minigrad"][kind])[0]
        t = harness.robust_stats(res["torch"][kind])[0]
        ok = "ok" if m <= target else "MISS"
        print(f"{kind:<14}{m * 1e3:>10.3f}ms{t * 1e3:>12.3f}ms{m / t:>7.2f}x"
              f"{target * 1e3:>7.1f}ms {ok}")


if __name__ == "__main__":
    main()
