"""The measuring machinery of bench/run.py: worker processes, timing loops, robust statistics.

How it measures (../shared/reference/cpu-cost-facts.md, "Measuring here"): NumPy's and
PyTorch's thread pools slow each other down inside one process, so every figure comes from a
worker subprocess that imports one framework only; the frameworks alternate order across rounds
with a pause between, and statistics are taken over the repetitions of every round not taken
under load (a round whose median is over 1.5x the best round's is dropped). Only ratios from
one run mean anything: the machine is shared and its speed drifts.

Worker side: ``time_case`` (timed repetitions of a step closure, with the fingerprints of what
each call returned, so the parent can check that timing changed no numerics) and ``status_kb``
(resident memory from /proc/self/status). Parent side: ``run_worker`` (one subprocess, threads
pinned) and ``robust_stats`` (median, p25, p75 of the undisturbed rounds).
"""
from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

#: the environment variables that size BLAS (NumPy's OpenBLAS) and OpenMP (PyTorch) pools
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


# ================================================================== worker side
def status_kb(field):
    """``field`` (``"VmRSS"``, ``"VmHWM"``...) of /proc/self/status, in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def fingerprint(arr):
    """A JSON-able exact summary of one result: the float itself for a scalar (JSON's repr of
    a float64 round-trips exactly), else a hash of the array's dtype, shape and bytes."""
    arr = np.ascontiguousarray(arr)
    if arr.size == 1 and arr.dtype.kind == "f" and arr.dtype.itemsize <= 8:
        return float(arr.reshape(()))
    h = hashlib.sha1(f"{arr.dtype.str}{arr.shape}".encode() + arr.tobytes())
    return h.hexdigest()[:20]


def time_case(build, to_numpy, reps, warmup, timed=True):
    """Run a fresh ``build()`` closure ``warmup + reps`` times.

    Returns ``(times, values)``: the seconds of each of the last ``reps`` calls (empty when not
    ``timed``: an untimed reference run) and the fingerprint of every call's result (converted
    with ``to_numpy`` outside the timed region). The warmup is a fixed number of calls, so a
    timed run and its reference run make the same calls (PyTorch's first steps are slow: its
    allocator and oneDNN warm up over ~10 steps).
    """
    fn = build()
    values, times = [], []
    for i in range(warmup + reps):
        t0 = time.perf_counter()
        out = fn()
        t1 = time.perf_counter()
        if timed and i >= warmup:
            times.append(t1 - t0)
        values.append(fingerprint(to_numpy(out)))
        del out
    return times, values


# ================================================================== parent side
def run_worker(script, args, threads):
    """Run ``script`` as a worker subprocess with ``args``; returns its last stdout line as JSON.

    ``threads`` pins BLAS and OpenMP to that many threads (both frameworks the same; None
    leaves the libraries' defaults). Raises SystemExit with the worker's stderr when it fails.
    """
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(script)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    for var in THREAD_VARS if threads else ():
        env[var] = str(threads)
    out = subprocess.run([sys.executable, os.path.abspath(script), *args], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"worker {' '.join(args)} failed (exit {out.returncode})")
    return json.loads(out.stdout.strip().splitlines()[-1])


def robust_stats(rounds):
    """``(median, p25, p75)`` of the samples of every round whose own median is within 1.5x of
    the best round's: a round taken while other work loaded the machine is dropped."""
    rounds = [r for r in rounds if r]
    best = min(statistics.median(r) for r in rounds)
    kept = sorted(t for r in rounds if statistics.median(r) <= 1.5 * best for t in r)
    if len(kept) == 1:
        return kept[0], kept[0], kept[0]
    q = statistics.quantiles(kept, n=4, method="inclusive")
    return q[1], q[0], q[2]


def fmt_time(s, like=None):
    """Seconds as ``"12.34 ms"`` / ``"5.67 us"``, in the unit that suits ``like`` (default
    ``s`` itself)."""
    if s is None:
        return "-"
    return f"{s * 1e3:.2f} ms" if (like or s) >= 1e-3 else f"{s * 1e6:.2f} us"


def verdict(ok):
    """``"ok"`` or ``"MISS"``."""
    return "ok" if ok else "MISS"
