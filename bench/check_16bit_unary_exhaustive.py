"""Check every registered unary float op bit for bit against PyTorch on all 65,536 fp16 and all
65,536 bf16 inputs (the catalogue is ``tests/unary16_catalogue.py``; the test suite runs a sample
of it plus the known hard inputs in ``tests/differential/test_16bit_unary.py``).

Run by hand from the repository root (about a minute on 2 cores):

    python bench/check_16bit_unary_exhaustive.py [case ...]

Prints one line per (format, case): OK, or the number of mismatching inputs with examples.
Exits 1 when any case mismatches.
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tests.unary16_catalogue import FORMATS, UNARY, all_inputs, mismatches, run_both  # noqa: E402


def main(cases) -> int:
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    bad_cases = 0
    for fmt in FORMATS:
        x = all_inputs(fmt)
        for case in cases:
            try:
                ref, got = run_both(case, fmt, x)
            except Exception as e:                   # noqa: BLE001 - report and go on
                print(f"{fmt:9s} {case:14s} ERROR {type(e).__name__}: {e}")
                bad_cases += 1
                continue
            if ref.dtype != got.dtype or ref.shape != got.shape:
                print(f"{fmt:9s} {case:14s} dtype/shape {ref.dtype}{ref.shape} vs "
                      f"{got.dtype}{got.shape}")
                bad_cases += 1
                continue
            idx = mismatches(got, ref)
            if idx.size:
                bad_cases += 1
                ex = idx[:4]
                print(f"{fmt:9s} {case:14s} {idx.size} mismatches, e.g. x={x[ex].astype(float).tolist()}"
                      f" torch={ref[ex].astype(float).tolist()} minigrad={got[ex].astype(float).tolist()}")
            else:
                print(f"{fmt:9s} {case:14s} OK")
    print(f"{bad_cases} mismatching (format, case) pairs of {len(FORMATS) * len(cases)}")
    return 1 if bad_cases else 0


if __name__ == "__main__":
    names = sys.argv[1:] or list(UNARY)
    unknown = [n for n in names if n not in UNARY]
    if unknown:
        sys.exit(f"unknown cases {unknown}; known: {sorted(UNARY)}")
    sys.exit(main(names))
