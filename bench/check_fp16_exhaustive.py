"""Check amp_emu's bit-trick fp32->fp16 rounding against ``astype(np.float16)`` on all 2**32
fp32 bit patterns (about 10 minutes on 2 cores). The test suite checks edges, neighbourhoods
and random patterns; this script is the exhaustive proof, run by hand:

    python bench/check_fp16_exhaustive.py
"""
import sys

import numpy as np

from amp_emu import formats as fm


def main() -> int:
    step = 1 << 24
    bad = 0
    with np.errstate(all="ignore"):
        for start in range(0, 1 << 32, step):
            u = np.arange(start, start + step, dtype=np.uint64).astype(np.uint32)
            ref = u.view(np.float32).astype(np.float16).view(np.uint16)
            got = fm.float32_to_float16_bits(u.view(np.float32))
            n = int(np.count_nonzero(ref != got))
            bad += n
            if n:
                print(f"block {start:#010x}: {n} mismatches", flush=True)
    print(f"{'OK' if not bad else 'FAIL'}: {bad} mismatches over 2**32 inputs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
