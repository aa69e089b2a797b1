"""examples/memory_budget.py --quick runs and states each lecture claim from its own figures."""
import os
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


@pytest.fixture
def memory_budget():
    sys.path.insert(0, EXAMPLES)
    try:
        import memory_budget
        yield memory_budget
    finally:
        sys.path.remove(EXAMPLES)


def test_quick_run_prints_the_tables_claims_and_plot(memory_budget, capsys, tmp_path):
    out_png = tmp_path / "segments.png"
    memory_budget.main(["--quick", "--plot", str(out_png)])
    text = capsys.readouterr().out
    assert "char GPT" in text and "digits MLP" in text and "seq 3" in text
    claims = [ln for ln in text.splitlines() if ln.startswith("claim ")]
    assert len(claims) == 4 and all(ln.endswith(("holds", "does not hold here")) for ln in claims)
    assert out_png.stat().st_size > 0
