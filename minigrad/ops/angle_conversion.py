"""``deg2rad`` / ``rad2deg``: multiplication by pi/180 or 180/pi, as ATen writes them.

ATen's ``deg2rad(x)`` is ``mul(x, wrapped_scalar(M_PI_180))``: the double constant enters the
opmath loop (fp32 for fp32/fp16/bf16, rounded there; fp64 for fp64), one product, one rounding
into the result dtype; integer inputs give the default float dtype. The backward is the same
product on the gradient (``Deg2RadBackward0``: ``deg2rad_backward(grad)`` = ``grad * pi/180``).
"""
from __future__ import annotations

from ..dispatch import dispatch, register_op
from .kernel import FLOAT_OPMATH, Kernel

M_PI_180 = 0.017453292519943295769236907684886127134428718885417
M_180_PI = 57.295779513082320876798154814105170332405472466564


def _scaling(name, node, factor, doc):
    """The ``FLOAT_OPMATH`` op ``name``: ``input * factor`` in opmath, backward
    ``grad * factor`` (node ``node``)."""
    def kernel(dtype, a):
        return a * a.dtype.type(factor)

    def backward(ctx, grad):
        return dispatch("mul", grad, factor)

    op = type(name.capitalize(), (Kernel,), {
        "__doc__": doc, "__module__": __name__, "rule": FLOAT_OPMATH, "_backward_name": node,
        "kernel": staticmethod(kernel), "backward": staticmethod(backward)})
    return register_op(name, op)


Deg2Rad = _scaling("deg2rad", "Deg2RadBackward0", M_PI_180, """``deg2rad(input)`` = ``input *
    pi / 180`` (``torch.deg2rad``); node ``Deg2RadBackward0`` (``grad * pi / 180``).""")
Rad2Deg = _scaling("rad2deg", "Rad2DegBackward0", M_180_PI, """``rad2deg(input)`` = ``input *
    180 / pi`` (``torch.rad2deg``); node ``Rad2DegBackward0`` (``grad * 180 / pi``).""")
