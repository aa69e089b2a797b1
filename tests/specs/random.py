"""Random ops in the catalogue: minigrad's generator (NumPy PCG64) is not PyTorch's, so values
cannot be compared; as for ``randn``/``rand`` each op is named here with the test that checks it
instead: distributions (moments, ranges), determinism under a seed, shapes, dtypes, graph nodes
and errors against torch in tests/unit/test_random_ops.py.
"""
from __future__ import annotations

from tests.op_specs import EXEMPT

SPECS = []

_DIST = ("random op (minigrad's generator is not PyTorch's): distribution, seed determinism, "
         "dtypes, nodes and errors vs torch in tests/unit/test_random_ops.py")
EXEMPT.update({name: _DIST for name in (
    "bernoulli", "bernoulli.p", "bernoulli_.float", "bernoulli_.Tensor", "multinomial",
    "normal_", "uniform_", "exponential_", "random_", "randint_like", "normal.Tensor_float",
    "normal.float_Tensor", "normal.Tensor_Tensor")})
EXEMPT.update({name: "random fill drawing PyTorch's stream: bits after manual_seed, generator "
               "advance, nodes and errors vs torch in "
               "tests/differential/test_inplace_methods_special.py"
               for name in ("cauchy_", "log_normal_", "geometric_")})
