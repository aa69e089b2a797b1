"""Parameters as one flat vector and back (``torch.nn.utils.parameters_to_vector`` /
``vector_to_parameters``), e.g. for second-order methods or evolution strategies that see a
model as a single point in parameter space."""
from __future__ import annotations

from ..._functional.joining import cat
from ...tensor import Tensor
from ..parameter import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_device):
    """The device index of the first parameter (-1 for cpu), checked against each later one
    (PyTorch's ``_check_param_device``).

    Raises:
        TypeError: two parameters on different devices.
    """
    device = param.get_device() if param.device.type == "cuda" else -1
    if old_device is None:
        return device
    if device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old_device


def parameters_to_vector(parameters) -> Tensor:
    """One 1-D tensor holding every parameter flattened, in iteration order
    (``torch.nn.utils.parameters_to_vector``): ``cat([p.view(-1) for p in parameters])``, so it
    is differentiable and its dtype is the parameters' promoted dtype.

    Args:
        parameters: an iterable of Tensors (e.g. ``model.parameters()``).

    Returns:
        A Tensor of shape (sum of numels,).

    Raises:
        TypeError: parameters on different devices.
        RuntimeError: a non-contiguous parameter (the ``view`` op's error); no parameters
            (``cat``'s error on an empty list).
    """
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters) -> None:
    """Point each parameter at its slice of ``vec`` (``torch.nn.utils.vector_to_parameters``):
    ``param.data = vec[offset:offset + numel].view_as(param).data``, as PyTorch does. So, as in
    PyTorch, each parameter then shares ``vec``'s storage and takes its dtype, the parameter
    object (and an optimizer's reference to it) stays the same, and autograd and version
    counters do not see the change (``.data`` assignment is not an op).

    Args:
        vec: a 1-D Tensor with at least as many elements as all parameters together.
        parameters: an iterable of Tensors.

    Raises:
        TypeError: ``vec`` is not a Tensor ("expected torch.Tensor, but got: int"); parameters
            on different devices.
        RuntimeError: ``vec`` too short for a parameter (the ``view`` op's error).
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        num = param.numel()
        param.data = vec[pointer:pointer + num].view_as(param).data
        pointer += num
