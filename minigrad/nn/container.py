"""Containers: ``Sequential`` and ``ModuleList`` (``torch.nn`` containers, PyTorch's indexing,
errors and ``repr``)."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList"]


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
