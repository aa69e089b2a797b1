"""The rows of bench/run.py: each group's workloads, sizes, repetitions and issue 10's targets.

A ``Group`` lists its ``Case``s (one workload kind with its parameters, timed in every framework
that has a builder for it) and its ``Target``s (a ratio of two medians and its bound, printed
ok / MISS). The scaling sweep and the memory row judge their figures their own way (run.py's
``report_scaling`` and ``report_memory``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: every framework the runner knows, in column order; "floor" is bench/fw_floor.py
FRAMEWORKS = ("minigrad", "torch", "mygrad", "autograd", "floor")
LABELS = {"minigrad": "minigrad", "torch": "PyTorch", "mygrad": "MyGrad",
          "autograd": "HIPS autograd", "floor": "NumPy floor"}


@dataclass
class Case:
    """One timed workload: ``kind`` and ``params`` select the builder (fw_*.py), ``reps`` /
    ``warmup`` the repetitions (full run, --quick run), ``per`` divides each time (per op)."""
    id: str
    label: str
    kind: str
    params: dict
    reps: tuple = (15, 2)
    warmup: tuple = (10, 1)
    per: int = 1


@dataclass
class Target:
    """``median(num) / median(den) <= bound``, ``num`` and ``den`` as (framework, case id)."""
    label: str
    num: tuple
    den: tuple
    bound: float


@dataclass
class Group:
    """One row group of the report (``--only NAME`` or its number runs it alone)."""
    number: int
    name: str
    title: str
    cases: list
    targets: list = field(default_factory=list)


CHAIN = 100


def add_chain(kind, a, b, n, no_grad, backward):
    """The closure of one per-op case over the leaves ``a`` and ``b``, the same in every
    framework: ``chain_fwd`` returns ``a + b + ... + b`` (``n`` adds); ``chain_nograd``
    computes it inside ``with no_grad():``; ``chain_fwd_bwd`` returns ``backward(result)``
    (the framework's backward of the result's sum, returning a's gradient)."""
    def forward():
        x = a
        for _ in range(n):
            x = x + b
        return x
    if kind == "chain_fwd":
        return forward
    if kind == "chain_nograd":
        def nograd():
            with no_grad():
                return forward()
        return nograd
    return lambda: backward(forward())

BIG = (784, 512, 512, 10)
BLOCK = {"B": 8, "T": 64, "d": 128, "heads": 4}
#: the scaling sweep's (batch, width) sizes: an MLP width -> width -> 10
SCALING = ((1, 16), (8, 64), (32, 128), (128, 256), (256, 512), (1024, 1024))
SCALING_QUICK = ((1, 16), (32, 128), (256, 512))


def _chain(kind, label):
    return Case(kind, label, kind, {"n": CHAIN}, reps=(200, 20), warmup=(20, 5), per=CHAIN)


def _scaling_case(batch, width):
    flops = 6 * batch * width * (width + 10)          # fwd + bwd matmuls
    reps = max(5, min(200, int(3e8 / max(flops, 1))))
    return Case(f"b{batch}_w{width}", f"batch {batch}, width {width}", "mlp",
                {"sizes": (width, width, 10), "batch": batch}, reps=(reps, 2),
                warmup=(max(3, reps // 10), 1))


def groups(quick):
    """The row groups in report order (the scaling sweep is shorter with ``quick``)."""
    mg, pt, floor = "minigrad", "torch", "floor"
    return [
        Group(1, "perop", f"per-op overhead: a chain of {CHAIN} adds on 4x4 fp32 (time per op)",
              [_chain("chain_fwd", "forward"), _chain("chain_fwd_bwd", "forward+backward"),
               _chain("chain_nograd", "no_grad forward"),
               _chain("numpy_add", "NumPy's add alone (no tape)")],
              [Target("forward <= 1.0x PyTorch", (mg, "chain_fwd"), (pt, "chain_fwd"), 1.0),
               Target("forward+backward <= 1.0x PyTorch", (mg, "chain_fwd_bwd"),
                      (pt, "chain_fwd_bwd"), 1.0),
               Target("no_grad forward <= 1.0x PyTorch's", (mg, "chain_nograd"),
                      (pt, "chain_nograd"), 1.0)]),
        Group(2, "small_mlp", "MLP 64-128-10, batch 32, SGD-momentum step (fwd+bwd+step)",
              [Case("fp32", "fp32 step", "mlp", {"sizes": (64, 128, 10), "batch": 32},
                    reps=(200, 20), warmup=(20, 5))],
              [Target("<= MyGrad's", (mg, "fp32"), ("mygrad", "fp32"), 1.0),
               Target("<= 0.6x PyTorch's", (mg, "fp32"), (pt, "fp32"), 0.6)]),
        Group(3, "big_mlp", "MLP 784-512-512-10, batch 256, SGD-momentum step (fwd+bwd+step)",
              [Case("fp32", "fp32 step", "mlp", {"sizes": BIG, "batch": 256}),
               Case("bf16", "bf16 autocast step (floor: per-op casts)", "mlp",
                    {"sizes": BIG, "batch": 256, "precision": "bf16"}),
               Case("fp16", "fp16 autocast + GradScaler (floor: naive casts)", "mlp",
                    {"sizes": BIG, "batch": 256, "precision": "fp16"}, reps=(10, 2))],
              [Target("fp32 <= 1.05x the NumPy floor", (mg, "fp32"), (floor, "fp32"), 1.05),
               Target("bf16 autocast <= 1.2x our fp32", (mg, "bf16"), (mg, "fp32"), 1.2),
               Target("fp16 autocast + GradScaler <= 1.5x our fp32", (mg, "fp16"),
                      (mg, "fp32"), 1.5)]),
        Group(4, "transformer", "pre-LN transformer block B8 T64 d128 4 heads, fwd+bwd fp32",
              [Case("explicit", "explicit ops", "transformer", dict(BLOCK), reps=(10, 2)),
               Case("fused", "F.layer_norm / F.scaled_dot_product_attention / F.gelu",
                    "transformer", dict(BLOCK, fused=True), reps=(10, 2))],
              [Target("explicit ops <= 1.2x the floor", (mg, "explicit"), (floor, "explicit"),
                      1.2),
               Target("fused ops <= 1.2x the floor", (mg, "fused"), (floor, "fused"), 1.2)]),
        Group(5, "cnn", "small CNN step of examples/train_digits_cnn.py (batch 64, Adam, clip)",
              [Case("step", "conv24-conv48-linear step", "cnn", {}, reps=(30, 2))],
              [Target("<= 1.5x PyTorch's", (mg, "step"), (pt, "step"), 1.5)]),
        Group(6, "scaling", "scaling sweep: MLP width-width-10 SGD-momentum step",
              [_scaling_case(b, w) for b, w in (SCALING_QUICK if quick else SCALING)]),
        Group(7, "memory", "memory: the 784-512-512-10 fp32 step, peak RSS and a long run", []),
    ]
