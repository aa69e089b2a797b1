"""What the torch oracle does on this CPU, where that depends on the CPU.

``TORCH_ONEDNN_FP8``: torch's CPU ``_scaled_mm`` on two operands of one float8 dtype is oneDNN's
float8 gemm (per-product scaling, its k order, its argument checks) only where cpuinfo reports
AMX-INT8 (ATen's ``_scaled_mm_out_cpu``: ``cpuinfo_has_x86_amx_int8()``); minigrad reproduces
that kernel bit for bit. Elsewhere (seen on AMD EPYC CPUs, AVX2-only and AVX-512 without AMX)
torch takes its emulated path, which rounds some outputs differently (1 fp8 ulp seen) and raises
``ValueError`` ("Invalid scaling configuration") where oneDNN's path raises ``RuntimeError``:
the tests that compare those bits and messages with torch's are skipped there, with this reason.
"""
import torch

from minigrad.numerics import cpu_flags

TORCH_ONEDNN_FP8 = "amx_int8" in cpu_flags()
NOT_ONEDNN_FP8 = ("torch's CPU _scaled_mm is not oneDNN's float8 gemm on this CPU (no AMX-INT8; "
                  f"capability {torch.backends.cpu.get_cpu_capability()}): "
                  "see tests/torch_platform.py")
