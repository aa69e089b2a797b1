"""Instruction counts of bench/run.py's workloads, for A/B comparisons on a busy machine.

Wall-clock figures here move by 2x with the machine's load (../shared/reference's "Measuring
here"); the number of instructions a workload executes does not. This script runs each workload
under valgrind's callgrind with instrumentation off during start-up and imports, switches it on
(``callgrind_control -i on``) around the measured repetitions only, and prints instructions per
op / per step, for this checkout and optionally for others given with ``--compare``:

    python bench/bench_instructions.py                          # this checkout
    python bench/bench_instructions.py --compare ../old-checkout  # side by side

Workloads (bench/fw_torchlike.py's, this checkout's for every checkout compared, so only
minigrad differs): the 4x4 add chain forward, forward+backward and forward under ``no_grad``
(per op, run.py's row 1) and
the 784-512-512-10 MLP step in fp32, bf16 autocast and fp16 autocast + GradScaler (per step,
row 3), that fp32 step's ``optimizer.step()`` alone (SGD with momentum, ``opt_step``), the
64-128-10 MLP step (row 2, ``small_mlp``), the transformer block's fwd+bwd (row 4, explicit
ops, ``block``; with F.layer_norm / F.scaled_dot_product_attention / F.gelu,
``block_fused``) and the small CNN's training step (row 5, examples/train_digits_cnn.py's model,
``cnn``).
One BLAS thread, ``PYTHONHASHSEED=0``: counts repeat to within a fraction of a percent.
Instructions are not time: memory traffic and cache misses are not counted, so a change that
moves more bytes can be slower at equal counts. Use this for Python-overhead work (the engine,
the dispatcher, the kernel base); confirm with bench/run.py on a quiet machine.

``--torch`` adds a column with PyTorch's own count of the per-op workloads (the same add chain
in a child that imports torch only), the load-independent target of the per-op rows:

    python bench/bench_instructions.py --workloads op_fwd op_fwd_bwd op_nograd --torch

Needs ``valgrind`` (with ``callgrind_control``) on PATH; each workload takes a minute or two.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKLOADS = {"op_fwd": ("per op", 10), "op_fwd_bwd": ("per op", 10), "op_nograd": ("per op", 10),
             "step_fp32": ("per step", 2), "step_bf16": ("per step", 2),
             "step_fp16": ("per step", 2), "opt_step": ("per step", 4),
             "small_mlp": ("per step", 10), "block": ("per step", 2),
             "block_fused": ("per step", 2), "cnn": ("per step", 4)}

_CHILD = r"""
import os, subprocess, sys
root, here, workload, reps, name = (sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
                                    sys.argv[5])
sys.path.insert(0, root)                     # the minigrad measured: that checkout's
sys.path.insert(1, here)                     # the workloads: this checkout's, the same for all
from fw_torchlike import Torchlike
lib = Torchlike(name)                        # "minigrad", or "torch" for --torch's column
if workload.startswith("op_"):
    kind = {"op_fwd": "chain_fwd", "op_fwd_bwd": "chain_fwd_bwd"}.get(workload, "chain_nograd")
    fn = lib.chain(kind, n=100)()
elif workload == "opt_step":                 # the fp32 step's optimizer.step() alone
    step = lib.mlp("mlp", (784, 512, 512, 10), 256)()
    step()
    fn = next(c.cell_contents for c in step.__closure__
              if hasattr(c.cell_contents, "param_groups"))
    fn = fn.step
elif workload == "small_mlp":                # row 2: the 64-128-10 batch-32 step
    fn = lib.mlp("mlp", (64, 128, 10), 32)()
elif workload == "block":                    # row 4: the transformer block, explicit ops
    fn = lib.transformer("transformer", B=8, T=64, d=128, heads=4)()
elif workload == "block_fused":              # row 4 with F.layer_norm / F.sdpa / F.gelu
    fn = lib.transformer("transformer", B=8, T=64, d=128, heads=4, fused=True)()
elif workload == "cnn":                      # row 5: train_digits_cnn's CNN, batch 64 of 8x8
    fn = lib.cnn("cnn")()
else:
    fn = lib.mlp("mlp", (784, 512, 512, 10), 256, workload[len("step_"):])()
fn(); fn()                                   # warm caches, weight-cast caches, optimizer state
pid = str(os.getpid())
subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=True)
for _ in range(reps):
    fn()
subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=True)
"""


def count(root: str, workload: str, reps: int, lib: str = "minigrad") -> int:
    """Instructions executed by ``reps`` repetitions of ``workload`` in checkout ``root``, with
    ``lib`` ``"minigrad"`` (that checkout's) or ``"torch"`` (the installed PyTorch).

    Raises:
        RuntimeError: when valgrind fails or prints no count.
    """
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONPATH=root)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "child.py")
        with open(script, "w") as f:
            f.write(_CHILD)
        r = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                            f"--callgrind-out-file={os.path.join(tmp, 'out')}",
                            os.path.realpath(sys.executable), script, root, HERE, workload,
                            str(reps), lib],
                           capture_output=True, text=True, env=env)
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    raise RuntimeError(f"callgrind gave no count for {workload} in {root}:\n{r.stderr[-2000:]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", nargs="*", default=[], metavar="CHECKOUT",
                   help="other checkouts (paths) to count beside this one")
    p.add_argument("--workloads", nargs="*", default=list(WORKLOADS), choices=list(WORKLOADS))
    p.add_argument("--torch", action="store_true",
                   help="add PyTorch's count of the per-op workloads (op_*) as a last column")
    a = p.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench_instructions.py needs valgrind and callgrind_control on PATH")
    roots = [ROOT] + [os.path.abspath(c) for c in a.compare]
    print(f"{'workload':<12} {'unit':<9}" + "".join(f" {os.path.basename(r)[:14]:>14}"
                                                     for r in roots)
          + (f" {'torch':>14} {'ratio':>6}" if a.torch else ""))
    for w in a.workloads:
        unit, reps = WORKLOADS[w]
        per = 100 * reps if unit == "per op" else reps
        counts = [count(r, w, reps) / per for r in roots]
        line = f"{w:<12} {unit:<9}" + "".join(f" {c / 1e3:13.1f}k" for c in counts)
        if a.torch and w.startswith("op_"):   # ratio: this checkout's count over torch's
            t = count(ROOT, w, reps, "torch") / per
            line += f" {t / 1e3:13.1f}k {counts[0] / t:6.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
