"""Issue 10's benchmark in one command: every row side by side, with its targets ok / MISS.

    python bench/run.py                     # every row (8-16 minutes on the shared 2 cores)
    python bench/run.py --quick             # a smoke run of every row (under a minute)
    python bench/run.py --only perop,3      # row groups by name or number
    python bench/run.py --frameworks minigrad,torch --rounds 7 --threads 2

Rows (bench/rows.py has the sizes and the targets):
  1 perop        per-op time of a chain of 100 adds on 4x4 fp32: forward, forward+backward,
                 no_grad forward (the floor column: a 40-line Python tape; NumPy's add alone);
  2 small_mlp    MLP 64-128-10 batch 32 SGD-momentum step (overhead-bound);
  3 big_mlp      MLP 784-512-512-10 batch 256 step: fp32, bf16 autocast, fp16 autocast +
                 GradScaler (floors: fp32 NumPy, bf16 with per-op casts, fp16 naive casts);
  4 transformer  pre-LN block B8 T64 d128 4 heads fwd+bwd, explicit ops and the fused functions;
  5 cnn          the small CNN step of examples/train_digits_cnn.py, minigrad vs PyTorch;
  6 scaling      an MLP step from batch 1 width 16 to batch 1024 width 1024: minigrad/PyTorch
                 and minigrad/floor per size, which must approach 1 as the work grows;
  7 memory       peak RSS the big fp32 step adds (vs the floor's) and a 1000-step run's RSS.

Columns: minigrad, PyTorch CPU eager, MyGrad, HIPS autograd (each skipped with a note when not
installed: ``pip install -e .[bench]``) and the hand-written NumPy floor (bench/fw_floor.py).
Figures are medians with p25-p75 beneath, over ``--rounds`` alternating rounds; bench/harness.py
says how disturbed rounds are dropped. Every framework runs in its own worker process, one per
round, and in the first round each workload also runs untimed from the same seed: every timed
run's results must equal that reference run's, bit for bit, or the run fails.

MyGrad runs with its defaults (memory guarding on), HIPS autograd's "forward" is a traced
forward (``make_vjp`` without the backward) and its no_grad forward an untraced call.

Threads: ``--threads`` (default 1) pins OpenBLAS, OpenMP and MKL to the same count in every
worker. One thread is the default because the machine is shared: under competing load, two
spinning thread pools make a matmul up to 100x slower, single-threaded code does not, and
one-thread ratios are the ones that repeat.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import harness
import rows

HERE = os.path.dirname(os.path.abspath(__file__))
MYGRAD_GUARDING = "BENCH_MYGRAD_GUARDING"   # how --mygrad-guarding reaches the workers


# ================================================================== worker side
def load(name):
    """The workload builders of framework ``name``; ImportError when it is not installed."""
    if name in ("minigrad", "torch"):
        from fw_torchlike import Torchlike
        return Torchlike(name)
    if name == "floor":
        from fw_floor import Floor
        return Floor()
    import fw_numpylike
    if name == "mygrad":
        return fw_numpylike.MyGrad(guarding=os.environ.get(MYGRAD_GUARDING, "on") == "on")
    return fw_numpylike.HipsAutograd()


def worker_time(name, cases, reference):
    """Time ``cases`` (dicts of rows.Case's fields, reps/warmup already chosen) in framework
    ``name``; with ``reference`` each also runs untimed first. Returns a JSON-able dict."""
    try:
        fw = load(name)
    except ImportError as e:
        return {"missing": f"{name} is not installed ({e})"}
    out = {"version": fw.version, "results": {}}
    for c in cases:
        make = fw.builders.get(c["kind"])
        build = make(c["kind"], **c["params"]) if make else None
        if build is None:
            continue
        try:
            res = {}
            if reference:
                res["ref"] = harness.time_case(build, fw.to_numpy, c["reps"], c["warmup"],
                                               timed=False)[1]
            times, res["values"] = harness.time_case(build, fw.to_numpy, c["reps"],
                                                     c["warmup"])
            res["times"] = [t / c["per"] for t in times]
        except Exception as e:  # a missing op must not hide the other figures
            res = {"error": f"{type(e).__name__}: {e}"}
        out["results"][c["key"]] = res
    return out


def worker_mem(name, steps, every):
    """Peak RSS over the post-import baseline and RSS samples (KiB) of a ``steps``-step run of
    the big MLP's fp32 step in framework ``name``."""
    try:
        fw = load(name)
    except ImportError as e:
        return {"missing": f"{name} is not installed ({e})"}
    baseline = harness.status_kb("VmHWM")  # after imports, before the model and data exist
    step = fw.builders["mlp"]("mlp", rows.BIG, 256)()
    samples = []
    for i in range(1, steps + 1):
        step()
        if i % every == 0:
            samples.append(harness.status_kb("VmRSS"))
    return {"baseline_kb": baseline, "peak_kb": harness.status_kb("VmHWM"), "rss_kb": samples}


# ================================================================== parent side
def _cell(stats):
    return harness.fmt_time(stats[0]) if stats else "-"


def _spread(stats):
    if not stats:
        return ""
    med, p25, p75 = stats
    return f"{harness.fmt_time(p25, med).split()[0]}-{harness.fmt_time(p75, med)}"


def report_group(group, med, fws):
    """Print one group's table (medians, p25-p75 beneath) and its targets."""
    width = 44
    print(f"\n[{group.number}] {group.title}")
    print(f"{'':<{width}}" + "".join(f"{rows.LABELS[f]:>20}" for f in fws))
    for c in group.cases:
        got = [med[f].get(c.id) for f in fws]
        if not any(got):
            continue
        print(f"{c.label[:width]:<{width}}" + "".join(f"{_cell(s):>20}" for s in got))
        print(f"{'  p25-p75':<{width}}" + "".join(f"{_spread(s):>20}" for s in got))
    if "minigrad" in fws:
        for f in (f for f in fws if f != "minigrad"):
            ratios = [f"{c.id} {med['minigrad'][c.id][0] / med[f][c.id][0]:.2f}x"
                      for c in group.cases if c.id in med["minigrad"] and c.id in med[f]]
            if ratios:
                print(f"  minigrad / {rows.LABELS[f]}: " + ", ".join(ratios))
    for t in group.targets:
        num = med.get(t.num[0], {}).get(t.num[1])
        den = med.get(t.den[0], {}).get(t.den[1])
        if num and den:
            r = num[0] / den[0]
            print(f"  target {t.label:<48} {r:6.2f}x  {harness.verdict(r <= t.bound)}")
        else:
            print(f"  target {t.label:<48}    n/a  (not measured)")


def report_scaling(group, med, fws):
    """Print the sweep with minigrad / PyTorch and minigrad / floor per size; each ratio series
    must fall towards 1 as the work grows and never rise: each ratio at most 10% (noise) above
    the larger of the one before and 1. A ratio below 1 (minigrad faster than the other
    framework at that size: PyTorch's single-thread MKL gemm against NumPy's OpenBLAS at the
    largest sizes) counts as reached, not as a rise away from 1."""
    report_group(group, med, fws)
    for other in ("torch", "floor"):
        if other not in fws or "minigrad" not in fws:
            continue
        rs = [med["minigrad"][c.id][0] / med[other][c.id][0] for c in group.cases
              if c.id in med["minigrad"] and c.id in med[other]]
        ok = all(b <= max(a, 1.0) * 1.1 for a, b in zip(rs, rs[1:]))
        print(f"  target minigrad / {rows.LABELS[other]} falls towards 1 as work grows, never "
              f"rises ({' -> '.join(f'{r:.2f}' for r in rs)})  {harness.verdict(ok)}")


def report_memory(mem, steps, every):
    """Print the peak RSS each framework's big fp32 step adds (target: minigrad's <= 1.1x the
    floor's) and whether a long run stays flat: the RSS samples of the run's last third rise at
    most 1 MiB over the highest sample of its middle third (a leak grows steadily; a one-off
    step of the allocator's arenas early in the run is not one)."""
    print(f"\n[7] memory: peak RSS added by {steps} steps of the 784-512-512-10 fp32 step "
          f"(VmHWM over the post-import baseline), RSS sampled every {every} steps")
    added = {f: (m["peak_kb"] - m["baseline_kb"]) / 1024 for f, m in mem.items()}
    for f, m in mem.items():
        mib = [v / 1024 for v in m["rss_kb"]]
        third = max(1, len(mib) // 3)
        rise = max(mib[-third:]) - max(mib[-2 * third:-third] or mib[:1])
        flat = rise <= 1.0
        print(f"  {rows.LABELS[f]:<14} added {added[f]:8.1f} MiB; last third's rise "
              f"{rise:5.1f} MiB ({'flat' if flat else 'GROWS'}); samples (MiB) "
              f"{[round(v) for v in mib]}")
        if f == "minigrad":
            print(f"  target {'minigrad stays flat over the run':<48} {'':7}  "
                  f"{harness.verdict(flat)}")
    if "minigrad" in added and "floor" in added and added["floor"] > 0:
        r = added["minigrad"] / added["floor"]
        print(f"  target {'peak RSS added <= 1.1x the floor':<48} {r:6.2f}x  "
              f"{harness.verdict(r <= 1.1)}")


def _select(only, quick):
    all_groups = rows.groups(quick)
    if not only:
        return all_groups
    want = {w.strip() for w in only.split(",")}
    chosen = [g for g in all_groups if g.name in want or str(g.number) in want]
    unknown = want - {g.name for g in chosen} - {str(g.number) for g in chosen}
    if unknown:
        raise SystemExit(f"--only: unknown row(s) {sorted(unknown)}; rows: "
                         + ", ".join(f"{g.number} {g.name}" for g in all_groups))
    return chosen


def main(argv=None):
    """Parse the command line; as the parent run the workers and print the report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a smoke run of every row (< 60 s)")
    p.add_argument("--only", help="row groups to run, by name or number, comma-separated")
    p.add_argument("--frameworks", default=",".join(rows.FRAMEWORKS),
                   help="comma-separated subset of " + ",".join(rows.FRAMEWORKS))
    p.add_argument("--rounds", type=int, help="alternating rounds (default 5; 1 with --quick)")
    p.add_argument("--threads", type=int, default=1,
                   help="BLAS/OpenMP threads in every worker (default 1: see the docstring)")
    p.add_argument("--mygrad-guarding", choices=("on", "off"), default="on",
                   help="MyGrad's memory guarding (default on, MyGrad's default; off is "
                        "its documented speed switch)")
    p.add_argument("--steps", type=int, help="memory row: steps of the long run (default 1000; "
                                             "20 with --quick)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--cases", help=argparse.SUPPRESS)
    p.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--every", type=int, help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker and a.cases:
        print(json.dumps(worker_time(a.worker, json.loads(a.cases), a.reference)))
        return 0
    if a.worker:
        print(json.dumps(worker_mem(a.worker, a.steps, a.every)))
        return 0

    os.environ[MYGRAD_GUARDING] = a.mygrad_guarding
    asked = set(a.frameworks.split(",")) - {""}
    if asked - set(rows.FRAMEWORKS):
        raise SystemExit(f"--frameworks: unknown {sorted(asked - set(rows.FRAMEWORKS))}")
    fws = [f for f in rows.FRAMEWORKS if f in asked]   # columns in the usual order
    chosen = _select(a.only, a.quick)
    q = 1 if a.quick else 0
    # one batch of cases per worker: a row group's (its frameworks are then measured minutes
    # apart at most, so a change of load between workers moves its ratios less); with --quick
    # every group in one worker per framework (fewer process start-ups)
    batches = [[dict(key=f"{g.name}/{c.id}", kind=c.kind, params=c.params, reps=c.reps[q],
                     warmup=c.warmup[q], per=c.per) for c in g.cases] for g in chosen]
    batches = [b for b in ([sum(batches, [])] if a.quick else batches) if b]
    rounds = a.rounds or (1 if a.quick else 5)
    t_start, load0 = time.perf_counter(), os.getloadavg()[0]
    script = os.path.abspath(__file__)

    pooled, versions, notes, refs = {f: {} for f in fws}, {}, [], {}
    failures = []
    for r, cases in ((r, b) for r in range(rounds) for b in batches):
        order = fws[r % len(fws):] + fws[:r % len(fws)]   # each framework leads in turn
        for f in order:
            if f in versions and versions[f] is None:
                continue
            res = harness.run_worker(script, ["--worker", f, "--cases", json.dumps(cases)]
                                     + (["--reference"] if r == 0 else []), a.threads)
            if "missing" in res:
                versions[f] = None
                notes.append(res["missing"] + "; skipped")
                continue
            versions[f] = res["version"]
            for key, v in res["results"].items():
                if "error" in v:
                    if r == 0:
                        notes.append(f"{f} {key}: {v['error']}")
                    continue
                refs.setdefault((f, key), v.get("ref"))
                if v["values"] != refs[(f, key)]:
                    failures.append(f"{f} {key} round {r}: the timed run's results differ from "
                                    f"the untimed reference run's")
                pooled[f].setdefault(key, []).append(v["times"])
            time.sleep(0.3)
    fws = [f for f in fws if versions.get(f) is not None or not batches]

    mem, steps = {}, a.steps or (20 if a.quick else 1000)
    every = max(1, steps // 10)
    if any(g.name == "memory" for g in chosen):
        # PyTorch's figure is context, not a target: --quick leaves it out
        for f in [f for f in ("minigrad", "torch", "floor") if f in fws
                  and not (a.quick and f == "torch")]:
            res = harness.run_worker(script, ["--worker", f, "--steps", str(steps),
                                              "--every", str(every)], a.threads)
            if "missing" in res:
                notes.append(res["missing"] + "; skipped")
            else:
                mem[f] = res
            time.sleep(0.3)

    names = ", ".join(f"{rows.LABELS[f]} {versions.get(f) or ''}".strip() for f in fws)
    print(f"bench/run.py: {names}; "
          f"{os.cpu_count()} cores, {a.threads} BLAS/OpenMP thread(s) per worker; medians of "
          f"{rounds} alternating round(s){' (--quick: smoke figures only)' if a.quick else ''}"
          f"{f'; MyGrad memory guarding {a.mygrad_guarding}' if 'mygrad' in fws else ''}")
    for g in chosen:
        med = {f: {k.split("/", 1)[1]: harness.robust_stats(v) for k, v in pooled[f].items()
                   if k.startswith(g.name + "/")} for f in fws}
        if g.name == "memory":
            report_memory(mem, steps, every)
        elif g.name == "scaling":
            report_scaling(g, med, fws)
        else:
            report_group(g, med, fws)
    print()
    for n in notes:
        print(f"note: {n}")
    for fl in failures:
        print(f"NUMERICS: {fl}")
    print(f"bench wall time {time.perf_counter() - t_start:.1f} s; load average before the run "
          f"{load0:.1f}")
    if load0 > 0.5 * (os.cpu_count() or 1):
        print("warning: the machine was busy with other work; rerun for trustworthy figures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
