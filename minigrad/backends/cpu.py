"""``minigrad.backends.cpu``: CPU capability query (mirrors ``torch.backends.cpu``)."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The vector instruction set PyTorch's CPU kernels would dispatch to on this machine:
    "AVX512", "AVX2" or "DEFAULT" on x86 (``torch.backends.cpu.get_cpu_capability``), read from
    the CPU flags (``/proc/cpuinfo``; "DEFAULT" where they cannot be read). It is informational:
    minigrad reproduces PyTorch's results through its reference recipes, whatever the machine.

    Honours ``ATEN_CPU_CAPABILITY`` (lower-case "avx2", "default"...) as PyTorch does, when it
    names a level no higher than the machine's.
    """
    import os
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    levels = ["DEFAULT"]
    if {"avx2", "fma"} <= flags:
        levels.append("AVX2")
        if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
            levels.append("AVX512")
    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if wanted in levels:
        return wanted
    return levels[-1]
