"""In-place forms of catalogue ops (``exp_``, ``pow_``, ``eq_``, ``addmm_``, ``cumsum_``,
``tril_``, ``masked_fill_``...) and the view-changing in-place ops (``t_``, ``squeeze_``,
``resize_``...): their values are the out-of-place kernels' written into ``self``, so each is
named here with the test that checks it against torch instead of a spec of its own: values
(fp32, bf16, fp16), graph node, version counter, gradients through a non-leaf and on a view
(CopySlices), and the in-place-on-leaf / dtype-cast errors in
tests/differential/test_inplace_methods.py; 16-bit unary values in tests/unary16_catalogue.py.
"""
from __future__ import annotations

from tests.op_specs import EXEMPT

SPECS = []

_WHY = ("in-place form of a catalogue op (values are its kernel's) or an in-place view op: "
        "values, node, version, gradients and errors vs torch in "
        "tests/differential/test_inplace_methods.py")
EXEMPT.update({name: _WHY for name in (
    "exp_", "log_", "sqrt_", "abs_", "neg_", "reciprocal_", "sign_", "square_", "pow_.Scalar",
    "pow_.Tensor", "remainder_", "fmod_", "floor_divide_", "xlogy_", "addmm_", "addmv_",
    "addr_", "baddbmm_", "addbmm_", "cumsum_", "cumprod_", "tril_", "triu_",
    "masked_fill_.Scalar", "masked_fill_.Tensor",
    *(f"{op}_.{o}" for op in ("eq", "ne", "lt", "le", "gt", "ge") for o in ("Scalar", "Tensor")),
    "t_", "transpose_", "unsqueeze_", "squeeze_", "resize_", "resize_as_", "fill_diagonal_", "as_strided_",
    "sgn_", "deg2rad_", "rad2deg_")})
