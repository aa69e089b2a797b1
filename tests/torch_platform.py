"""What the torch oracle does on this CPU, where that depends on the CPU.

``TORCH_ONEDNN_FP8``: torch's CPU ``_scaled_mm`` is oneDNN's float8 gemm (per-product scaling,
its k order, its argument checks) on CPUs whose ATen capability is AVX512 or better; minigrad
reproduces that kernel bit for bit. On an AVX2-only CPU (seen on a 2-core AMD EPYC) torch takes
another path, which rounds some outputs differently (1 fp8 ulp seen) and raises ``ValueError``
("Invalid scaling configuration") where oneDNN's path raises ``RuntimeError``: the tests that
compare those bits and messages with torch's are skipped there, with this reason.
"""
import torch

TORCH_ONEDNN_FP8 = torch.backends.cpu.get_cpu_capability() not in ("DEFAULT", "AVX2")
NOT_ONEDNN_FP8 = ("torch's CPU _scaled_mm is not oneDNN's float8 gemm on this CPU "
                  f"(capability {torch.backends.cpu.get_cpu_capability()}): "
                  "see tests/torch_platform.py")
