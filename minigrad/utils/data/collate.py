"""Collation (mirrors ``torch.utils.data._utils.collate``): turning a list of samples into a batch.

``default_collate`` walks the structure of the first sample and stacks matching leaves along a
new dimension 0: tensors through ``minigrad.stack`` (a dispatched op, so a batch is an ordinary
op output), NumPy arrays and scalars via ``as_tensor``, Python ``float`` as float64, ``int`` as
int64 (``bool`` as bool), strings and bytes left as lists; dicts, namedtuples, tuples and lists
are collated field by field. ``default_convert`` (used when automatic batching is off) only turns
NumPy data into tensors.

The type -> function table ``default_collate_fn_map`` is PyTorch's extension point: ``collate``
looks the sample's type up there (exact type first, then ``isinstance`` in insertion order).
"""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from ..._functional.joining import stack
from ...dtypes import float64
from ..._functional.factories import as_tensor, tensor
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

# NumPy dtype strings of bytes, unicode and object arrays: not convertible to tensors
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def _rebuild_mapping(elem, values: dict):
    """A mapping like ``elem`` holding ``values``: a shallow copy updated in place for mutable
    mappings (keeps the class and extra attributes), the class called on a dict otherwise, a plain
    dict when that fails."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem, values: list):
    """A sequence like ``elem`` holding ``values`` (same rule as ``_rebuild_mapping``)."""
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data):
    """Turn NumPy arrays and scalars inside ``data`` into tensors, leaving the rest as is
    (``torch.utils.data.default_convert``).

    Recurses into mappings, namedtuples, tuples (returned as lists, as PyTorch) and other
    sequences except strings. Arrays of strings or objects are left unchanged. The DataLoader's
    ``collate_fn`` when automatic batching is off (``batch_size=None``).
    """
    if isinstance(data, Tensor):
        return data
    elem_type = type(data)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):        # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples of the same structure) using ``collate_fn_map``
    for the leaves (``torch.utils.data._utils.collate.collate``).

    Args:
        batch: a non-empty list of samples.
        collate_fn_map: type (or tuple of types) -> ``fn(batch, *, collate_fn_map)``; the sample's
            exact type is looked up first, then each key with ``isinstance`` in order.

    Returns:
        The batch: containers rebuilt with each field collated (tuples come back as lists, as in
        PyTorch; namedtuples as namedtuples).

    Raises:
        RuntimeError: sequences of different lengths ("each element in list of batch should be
            of equal size").
        TypeError: a leaf type the map does not handle (``default_collate_err_msg_format``).
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch],
                                                    collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):        # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [collate(samples, collate_fn_map=collate_fn_map)
                  for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return fields
        return _rebuild_sequence(elem, fields)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors -> ``minigrad.stack(batch, 0)``.

    Raises:
        RuntimeError: shapes that differ (``stack``'s message, as PyTorch's).
    """
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays -> tensors (same dtype), then collated as tensors.

    Raises:
        TypeError: arrays of strings or objects.
    """
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars -> a 1-d tensor of their dtype (``np.float32`` values give float32)."""
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats -> a float64 tensor (PyTorch's choice, whatever the default dtype)."""
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints -> an int64 tensor (bools -> a bool tensor)."""
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes -> the batch list itself."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Put a list of samples into a batch with a new leading dimension
    (``torch.utils.data.default_collate``).

    Leaves: tensor -> stacked tensor; NumPy array -> stacked tensor of its dtype; NumPy scalar ->
    1-d tensor of its dtype; ``float`` -> float64; ``int`` -> int64 (``bool`` -> bool); ``str``
    / ``bytes`` -> the list unchanged. Containers: ``Mapping[K, V]`` -> ``Mapping[K,
    collate(V)]``; namedtuple -> namedtuple of collated fields; tuple or list -> list of collated
    fields (transposed).

    Example:
        ``default_collate([(0, 1.0), (2, 3.0)])`` is ``[tensor([0, 2]), tensor([1., 3.],
        dtype=float64)]``.

    Raises:
        RuntimeError: tensors of different shapes ("stack expects each tensor to be equal size,
            but got [3] at entry 0 and [2] at entry 1") or sequences of different lengths.
        TypeError: an unsupported leaf type ("default_collate: batch must contain tensors, numpy
            arrays, numbers, dicts or lists; found <class '...'>").
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
