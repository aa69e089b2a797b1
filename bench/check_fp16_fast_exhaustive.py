"""Check minigrad._fp16 (the chunked fast fp32 <-> fp16 casts) against NumPy's ``astype``.

fp32 -> fp16 over all 2**32 fp32 bit patterns (about 15 minutes on 2 cores; 25 with the
check of ``float32_to_float16_widened``, rounding and widened image both); every pattern
with |x| < 65520 is also converted in a block that holds no overflow/inf/NaN, so it is proven
on the fast (non-fallback) path too. fp16 -> fp32 over all 65,536 patterns (also a unit test).
Run by hand:

    python bench/check_fp16_fast_exhaustive.py
"""
import sys
import time

import numpy as np

from minigrad import _fp16

_OVF = np.uint32(0x477FF000)


def main() -> int:
    h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    bad16 = int(np.count_nonzero(_fp16.float16_to_float32(h.view(np.float16)).view(np.uint32)
                                 != h.view(np.float16).astype(np.float32).view(np.uint32)))
    print(f"fp16 -> fp32: {bad16} mismatches over 2**16 inputs", flush=True)
    step = 1 << 24
    bad = 0
    t0 = time.time()
    with np.errstate(all="ignore"):
        for start in range(0, 1 << 32, step):
            u = np.arange(start, start + step, dtype=np.uint64).astype(np.uint32)
            x = u.view(np.float32)
            ref = x.astype(np.float16).view(np.uint16)
            got = _fp16.float32_to_float16(x).view(np.uint16)
            n = int(np.count_nonzero(ref != got))
            # the rounding with its widened image (the widening cache's producer): both halves
            h, w = _fp16.float32_to_float16_widened(x)
            wref = ref.view(np.float16).astype(np.float32).view(np.uint32)
            n += int(np.count_nonzero(h.view(np.uint16) != ref))
            n += int(np.count_nonzero(w.view(np.uint32) != wref))
            fast = (u & np.uint32(0x7FFFFFFF)) < _OVF
            if fast.any() and not fast.all():        # mixed block: the fast path on its own
                got2 = _fp16.float32_to_float16(x[fast]).view(np.uint16)
                n += int(np.count_nonzero(ref[fast] != got2))
                h2, w2 = _fp16.float32_to_float16_widened(x[fast])
                n += int(np.count_nonzero(h2.view(np.uint16) != ref[fast]))
                n += int(np.count_nonzero(w2.view(np.uint32) != wref[fast]))
            bad += n
            if n:
                print(f"block {start:#010x}: {n} mismatches", flush=True)
            if start % (1 << 28) == 0:
                print(f"  {start:#010x} done, {time.time() - t0:.0f} s", flush=True)
    print(f"fp32 -> fp16: {'OK' if not bad else 'FAIL'}: {bad} mismatches over 2**32 inputs")
    return 1 if (bad or bad16) else 0


if __name__ == "__main__":
    sys.exit(main())
