"""Containers (``torch.nn.modules.container``): ``Sequential``, ``ModuleList`` and ``ModuleDict``
hold submodules, ``ParameterList`` and ``ParameterDict`` hold parameters; PyTorch's indexing,
methods, errors, ``repr`` and ``state_dict`` keys ("0", "1"... for lists, the keys for dicts)."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ...tensor import Tensor
from ..module import Module, _addindent
from ..parameter import Parameter, typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx, size):
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied in order (``torch.nn.Sequential``): ``Sequential(m0, m1, ...)`` names
    them "0", "1", ...; ``Sequential(OrderedDict(name=module))`` keeps the names.

    Supports ``len``, iteration, ``seq[i]`` (negative too), ``seq[a:b]`` (a new Sequential with
    the same names), item assignment and deletion, ``append``, ``extend``, ``insert``, ``pop``.

    Raises:
        IndexError: "index 5 is out of range".
        TypeError: a non-Module element.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[_index(idx, len(self))])
        # PyTorch renumbers after a deletion to keep the numbering
        str_indices = [str(i) for i in range(len(self._modules))]
        self.__dict__["_modules"] = dict(zip(str_indices, self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for m in list(self) + list(other):
            ret.append(m)
        return ret

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        """Append each module of ``sequential``; returns self."""
        for m in sequential:
            self.append(m)
        return self

    def insert(self, index: int, module):
        """Insert ``module`` before position ``index``; returns self.

        Raises:
            AssertionError: ``module`` is not a Module; IndexError: index out of range.
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(mods)}
        return self

    def pop(self, key):
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules registered as children "0", "1", ... (``torch.nn.ModuleList``).

    Its ``repr`` compresses runs of identical reprs as PyTorch 2.13 does
    ("(0-1): 2 x Linear(...)").

    Raises:
        IndexError: "index 5 is out of range".
        TypeError: a non-Module element.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self))))
        str_indices = [str(i) for i in range(len(self._modules))]
        self.__dict__["_modules"] = dict(zip(str_indices, self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Append each module of an iterable; returns self.

        Raises:
            TypeError: ``modules`` is not iterable.
        """
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, m in enumerate(modules):
            self.add_module(str(offset + i), m)
        return self

    def insert(self, index: int, module) -> None:
        """Insert ``module`` before position ``index``."""
        mods = list(self._modules.values())
        mods.insert(index, module)
        self.__dict__["_modules"] = {}
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def pop(self, key):
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def __repr__(self):
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        spans = [[0, 0]]
        blocks = [reprs[0]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1]:
                spans[-1][1] += 1
                continue
            spans.append([i, i])
            blocks.append(r)
        lines = []
        for (s, e), b in zip(spans, blocks):
            line = f"({s}): {b}" if s == e else f"({s}-{e}): {e - s + 1} x {b}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _pairs(kind, values):
    """``(key, value)`` pairs of a ``ModuleDict.update`` / ``ParameterDict.update`` argument
    given as an iterable of pairs, with PyTorch's checks."""
    for j, item in enumerate(values):
        if not isinstance(item, Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is"
                            + type(item).__name__)
        if len(item) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(item)}; 2 is "
                             "required")
        yield item[0], item[1]


class ModuleDict(Module):
    """An ordered dict of submodules registered under their keys (``torch.nn.ModuleDict``).

    Args:
        modules: a mapping of str -> Module, or an iterable of (str, Module) pairs.

    Supports ``md[key]``, assignment, ``del``, ``in``, ``len``, iteration over keys, ``keys``,
    ``values``, ``items``, ``update``, ``pop``, ``clear``. It has no ``forward``.

    Raises:
        TypeError: a non-Module value, a non-string key, or a non-iterable ``update`` argument.
        KeyError: a missing key; a key with "." or empty.
        ValueError: an ``update`` pair that is not of length 2.
    """

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str):
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every item."""
        self._modules.clear()

    def pop(self, key: str):
        """Remove ``key`` and return its module (KeyError when absent)."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        """The keys, in insertion order."""
        return self._modules.keys()

    def items(self):
        """``(key, module)`` pairs, in insertion order."""
        return self._modules.items()

    def values(self):
        """The modules, in insertion order."""
        return self._modules.values()

    def update(self, modules) -> None:
        """Add or overwrite entries from a mapping (its order) or an iterable of pairs.

        Raises:
            TypeError: ``modules`` is not iterable or an element is not; ValueError: an element
                is not a pair.
        """
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        pairs = modules.items() if isinstance(modules, Mapping) else _pairs("ModuleDict",
                                                                           modules)
        for key, module in pairs:
            self[key] = module


class ParameterList(Module):
    """A list of parameters registered as "0", "1", ... (``torch.nn.ParameterList``).

    A plain Tensor put in (constructor, ``append``, ``extend``, item assignment) becomes a
    ``Parameter``; other objects are kept as plain attributes (listed, not registered).

    Args:
        values: an iterable of Tensors/Parameters (or other objects).

    Raises:
        IndexError: "index 5 is out of range". TypeError: ``extend`` with a non-iterable or a
        Tensor. RuntimeError: calling it ("ParameterList should not be called.").
    """

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx, param) -> None:
        idx = _index(idx, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        """Add ``value`` at the end (a Tensor becomes a Parameter); returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Append each element of an iterable; returns self.

        Raises:
            TypeError: ``values`` is not iterable, or is a Tensor.
        """
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return _param_lines(enumerate(self), lambda p: str(p.dtype))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


def _param_lines(items, type_text) -> str:
    """The body of a parameter container's ``repr`` (PyTorch's text: ``(0): Parameter
    containing: [minigrad.float32 of size 2x3]``, the device for cuda ones)."""
    lines = []
    for key, value in items:
        if isinstance(value, Tensor):
            size = "x".join(str(s) for s in value.shape)
            device = f" ({value.device})" if value.device.type == "cuda" else ""
            kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
            lines.append(f"  ({key}): {kind} containing: [{type_text(value)} of size "
                         f"{size}{device}]")
        else:
            lines.append(f"  ({key}): Object of type: {type(value).__name__}")
    return "\n".join(lines)


class ParameterDict(Module):
    """An ordered dict of parameters registered under their keys (``torch.nn.ParameterDict``).

    A plain Tensor put in becomes a ``Parameter``; other objects are kept as plain attributes.
    ``update`` with a plain (non-ordered) ``dict`` adds its items sorted by key, as PyTorch does;
    an ``OrderedDict``, a ParameterDict or an iterable of pairs keeps its order.

    Args:
        parameters: a mapping of str -> value, or an iterable of (str, value) pairs.

    Supports ``pd[key]``, assignment, ``del``, ``in``, ``len``, iteration over keys,
    ``reversed``, ``keys``, ``values``, ``items``, ``get``, ``setdefault``, ``pop``, ``popitem``,
    ``clear``, ``copy``, ``fromkeys``, ``update`` and ``|``, ``|=``.

    Raises:
        TypeError: a non-string key; a non-iterable ``update`` argument. KeyError: a missing
        key. ValueError: an ``update`` pair not of length 2. RuntimeError: calling it.
    """

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key: str):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self):
        """A new ParameterDict holding the same values (not copies of them)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default=None):
        """``self[key]``, after setting it to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every item."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str):
        """Remove ``key`` and return its value (KeyError when absent)."""
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Remove and return the last inserted ``(key, value)`` pair.

        Raises:
            KeyError: the dict is empty.
        """
        k, _ = self._keys.popitem()
        self._keys[k] = None
        return k, self.pop(k)

    def get(self, key: str, default=None):
        """``self[key]`` if present, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``keys``, each set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The keys, in insertion order."""
        return self._keys.keys()

    def items(self):
        """``(key, value)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The values, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        """Add or overwrite entries (see the class docstring for the order).

        Raises:
            TypeError: ``parameters`` is not iterable or an element is not; ValueError: an
                element is not a pair.
        """
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _pairs("ParameterDict", parameters)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return _param_lines(self.items(), typename)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self
