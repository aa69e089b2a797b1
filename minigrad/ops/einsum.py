"""``einsum`` on PyTorch's ``bmm`` path (``at::einsum`` in ``aten/src/ATen/native/Linear.cpp``),
without ``opt_einsum`` (PyTorch's path when that package is absent, as here): operands are
unsqueezed and permuted to one dim order (output labels first, then contracted labels by label
index), dims that only the current operand still needs are summed away, and each pair is
contracted left to right by ``sumproduct_pair``: permute + reshape to 3-D, one ``bmm``, view +
permute back (a plain ``mul`` when nothing is summed). Every step is a dispatched op, so graphs
show PyTorch's nodes and 16-bit results round where PyTorch's do. A label repeated within one
operand (``"ii->i"``, ``"ii"``) first takes that diagonal, as PyTorch does.
"""
from __future__ import annotations

from ..dispatch import dispatch, register_op
from .linalg import _check_tensor

__all__ = ["einsum"]


def _label_index(c):
    """PyTorch's label order: 'A'-'Z' then 'a'-'z'."""
    if "A" <= c <= "Z":
        return ord(c) - ord("A")
    if "a" <= c <= "z":
        return 26 + ord(c) - ord("a")
    raise RuntimeError(f"einsum(): invalid subscript {c!r} given in the equation string, "
                       "subscripts must be in [a-zA-Z]")


def _parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(terms) < len(operands) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    ell_dims = 0
    parsed = []
    for term, op in zip(terms, operands):
        labels = []
        rest = term
        if "..." in rest:
            a, b = rest.split("...", 1)
            n_ell = op.ndim - len(a) - len(b)
            if n_ell < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(a) + len(b)}) is more than the number of dimensions "
                                   f"({op.ndim}) for operand {len(parsed)}")
            ell_dims = max(ell_dims, n_ell)
            labels = list(a) + ["..."] * n_ell + list(b)
        else:
            labels = list(rest)
            if len(labels) != op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(labels)}) does not match the number of dimensions "
                                   f"({op.ndim}) for operand {len(parsed)} and no ellipsis "
                                   "was given")
        for c in labels:
            if c != "...":
                _label_index(c)
        parsed.append(labels)
    counts = {}
    for labels in parsed:
        for c in labels:
            if c != "...":
                counts[c] = counts.get(c, 0) + 1
    if arrow:
        out = []
        if "..." in rhs:
            a, b = rhs.split("...", 1)
            out = list(a) + ["..."] + list(b)
        else:
            out = list(rhs)
        for c in out:
            if c != "..." and c not in counts:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
    else:
        out = ["..."] + sorted((c for c, k in counts.items() if k == 1), key=_label_index)
    return parsed, out, ell_dims


def _check_sizes(operands, parsed, ell_dims):
    """PyTorch's size check, operand by operand: a subscript's size (and each dim the ellipsis
    covers, right-aligned) must equal the size seen before it, or one of the two be 1.

    Raises:
        RuntimeError: "einsum(): subscript j has size 4 for operand 1 which does not broadcast
            with previously seen size 3" (the ellipsis: PyTorch's message, its missing space
            included).
    """
    seen, ell_seen = {}, [1] * ell_dims
    for i, (op, labels) in enumerate(zip(operands, parsed)):
        first = labels.index("...") if "..." in labels else 0
        n_ell = labels.count("...")
        for d, c in enumerate(labels):
            n = op.shape[d]
            if c == "...":
                k = ell_dims - n_ell + d - first
                if n != 1 and ell_seen[k] != 1 and n != ell_seen[k]:
                    raise RuntimeError(f"einsum(): dimension {k} covered by ellipsis in operand "
                                       f"{i}has size {n} which does not broadcast with "
                                       f"previously seen ellipsis with size {ell_seen[k]} for "
                                       "the respective dimension")
                ell_seen[k] = n if ell_seen[k] == 1 else ell_seen[k]
                continue
            if c in labels[:d]:
                continue                # a diagonal: ``_take_diagonals`` checks it
            m = seen.get(c, 1)
            if n != 1 and m != 1 and n != m:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {m}")
            seen[c] = n if m == 1 else m


def _take_diagonals(op, labels, i):
    """Collapse each label repeated within operand ``i`` to one dim (a diagonal, ``"ii->i"``), as
    PyTorch: ``diagonal`` of the two dims, moved back to the first one's place."""
    labels = list(labels)
    d = 0
    while d < len(labels):
        c = labels[d]
        if c == "..." or c not in labels[:d]:
            d += 1
            continue
        j = labels.index(c)
        if op.shape[d] != op.shape[j]:
            raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the "
                               f"sizes don't match, {op.shape[d]} != {op.shape[j]}")
        op = dispatch("diagonal", op, 0, j, d)          # the diagonal becomes the last dim
        perm = list(range(op.ndim - 1))
        perm.insert(j, op.ndim - 1)
        op = dispatch("permute", op, tuple(perm))
        del labels[d]
    return op, labels


def _aligned(op, labels, order, ell_dims):
    """``op`` unsqueezed (at the end) for missing labels and permuted to ``order``."""
    n_ell = labels.count("...")
    pos = {}
    e = 0
    for d, c in enumerate(labels):
        if c == "...":
            pos[("...", ell_dims - n_ell + e)] = d
            e += 1
        else:
            pos[c] = d
    perm = []
    t = op
    nd = op.ndim
    for key in order:
        if key in pos:
            perm.append(pos[key])
        else:
            t = dispatch("unsqueeze", t, -1)
            perm.append(nd)
            nd += 1
    if perm != list(range(len(perm))):
        t = dispatch("permute", t, tuple(perm))
    return t


def _sumproduct_pair(left, right, sum_dims):
    """PyTorch's ``sumproduct_pair`` (keepdim=False): ``(left * right).sum(sum_dims)`` through
    one ``bmm`` of the permuted, reshaped operands (a plain ``mul`` when nothing is summed)."""
    if not sum_dims:
        return dispatch("mul", left, right)
    nd = left.ndim
    lro, lo, ro, sums = [], [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(nd):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = dispatch("sum", left, i, True)
            elif sr:
                right = dispatch("sum", right, i, True)
            sums.append(i)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sums) + \
        [right.shape[d] for d in ro]
    lperm = lro + lo + sums + ro
    rperm = lro + sums + ro + lo
    operm = [0] * nd
    for i, d in enumerate(lro + lo + sums + ro):
        operm[d] = i
    a = dispatch("reshape", dispatch("permute", left, tuple(lperm)), (lro_size, lo_size, sum_size))
    b = dispatch("reshape", dispatch("permute", right, tuple(rperm)),
                 (lro_size, sum_size, ro_size))
    res = dispatch("permute", dispatch("view", dispatch("bmm", a, b), tuple(out_size)),
                   tuple(operm))
    sizes = [s for i, s in enumerate(res.shape) if i not in sum_dims]
    return dispatch("view", res, tuple(sizes))


@register_op("einsum")
def einsum(equation, *operands):
    """``einsum(equation, *operands)`` (``torch.einsum``; operands also as one list), lowered
    to PyTorch's path: unsqueeze/permute, sums, ``bmm`` per pair, left to right. Inputs must
    share a dtype (``bmm``'s rule).

    Raises:
        RuntimeError: PyTorch's equation errors (operand count, subscript count, unknown output
            subscript), mismatched sizes, a repeated label whose sizes differ.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, op in enumerate(operands):
        _check_tensor(op, "einsum", "operands")
    parsed, out, ell_dims = _parse(equation, operands)
    out_keys = []
    for c in out:
        if c == "...":
            out_keys += [("...", k) for k in range(ell_dims)]
        else:
            out_keys.append(c)
    used = {c for labels in parsed for c in labels if c != "..."}
    contracted = sorted((c for c in used if c not in out), key=_label_index)
    if "..." not in out:          # ellipsis dims missing from the output are summed too
        contracted = [("...", k) for k in range(ell_dims)] + contracted
    order = out_keys + contracted
    _check_sizes(operands, parsed, ell_dims)
    ops = [_aligned(*_take_diagonals(op, labels, i), order, ell_dims)
           for i, (op, labels) in enumerate(zip(operands, parsed))]
    n_out = len(out_keys)
    for j in range(len(order)):                 # sizes must agree where not 1
        sizes = {op.shape[j] for op in ops if op.shape[j] != 1}
        if len(sizes) > 1:
            raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes "
                               f"(original->remapped): {[list(o.shape) for o in operands]}")
    last = [0] * len(order)
    for i, op in enumerate(ops):
        for j in range(len(order)):
            if op.shape[j] != 1:
                last[j] = i
    result = ops[0]
    if len(ops) == 1:
        dims = tuple(range(n_out, len(order)))
        return dispatch("sum", result, dims) if dims else result
    dim = n_out
    for j in range(n_out, len(order)):
        if last[j] == 0:
            result = dispatch("squeeze", result, dim) if result.shape[dim] == 1 else \
                dispatch("sum", result, dim)
        else:
            dim += 1
    for i in range(1, len(ops)):
        op = ops[i]
        sum_dims = []
        dim = n_out
        for j in range(n_out, len(order)):
            if last[j] < i:
                op = dispatch("squeeze", op, dim)
            elif last[j] == i:
                if result.shape[dim] == 1:
                    op = dispatch("sum", op, dim)
                    result = dispatch("squeeze", result, dim)
                elif op.shape[dim] == 1:
                    result = dispatch("sum", result, dim)
                    op = dispatch("squeeze", op, dim)
                else:
                    sum_dims.append(dim)
                    dim += 1
            else:
                dim += 1
        result = _sumproduct_pair(result, op, sum_dims)
    return result
