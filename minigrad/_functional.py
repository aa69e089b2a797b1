"""Top-level functional forms (``torch.add``, ``torch.exp``...): each is one ``dispatch`` call.

Every function mirrors the torch function of the same name and signature.
"""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "abs", "maximum",
           "minimum", "clamp", "clip", "tanh", "sigmoid", "relu", "matmul", "mm", "bmm", "mv", "dot", "addmm", "sum",
           "mean", "max", "min", "amax", "amin", "argmax", "argmin", "reshape", "transpose",
           "permute", "t", "unsqueeze", "squeeze", "flatten", "softmax", "log_softmax", "eq",
           "ne", "lt", "le", "gt", "ge", "isfinite", "isnan", "isinf", "clone", "where", "cat",
           "stack", "square", "all", "any", "rsub", "reciprocal", "sign", "logical_not",
           "logical_and", "logical_or"]


def add(input, other, *, alpha=1):
    return dispatch("add", input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    return dispatch("sub", input, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    return dispatch("rsub", input, other, alpha=alpha)


def reciprocal(input):
    return dispatch("reciprocal", input)


def sign(input):
    return dispatch("sign", input)


def logical_not(input):
    return dispatch("logical_not", input)


def logical_and(input, other):
    return dispatch("logical_and", input, other)


def logical_or(input, other):
    return dispatch("logical_or", input, other)


def mul(input, other):
    return dispatch("mul", input, other)


def div(input, other, *, rounding_mode=None):
    return dispatch("div", input, other, rounding_mode=rounding_mode)


def neg(input):
    return dispatch("neg", input)


def pow(input, exponent):
    if not hasattr(input, "dtype"):
        return dispatch("rpow", exponent, input)
    return dispatch("pow", input, exponent)


def exp(input):
    return dispatch("exp", input)


def log(input):
    return dispatch("log", input)


def sqrt(input):
    return dispatch("sqrt", input)


def square(input):
    return dispatch("pow", input, 2)


def abs(input):
    return dispatch("abs", input)


def maximum(input, other):
    return dispatch("maximum", input, other)


def minimum(input, other):
    return dispatch("minimum", input, other)


def clamp(input, min=None, max=None):
    return dispatch("clamp", input, min, max)


clip = clamp


def tanh(input):
    return dispatch("tanh", input)


def sigmoid(input):
    return dispatch("sigmoid", input)


def relu(input):
    return dispatch("relu", input)


def matmul(input, other):
    return dispatch("matmul", input, other)


def mm(input, mat2):
    return dispatch("mm", input, mat2)


def bmm(input, mat2):
    return dispatch("bmm", input, mat2)


def mv(input, vec):
    return dispatch("mv", input, vec)


def dot(input, other):
    return dispatch("dot", input, other)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return dispatch("addmm", input, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return dispatch("sum", input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return dispatch("mean", input, dim, keepdim, dtype=dtype)


def max(input, dim=None, keepdim=False):
    if hasattr(dim, "dtype"):
        return dispatch("maximum", input, dim)
    return dispatch("max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    if hasattr(dim, "dtype"):
        return dispatch("minimum", input, dim)
    return dispatch("min", input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    return dispatch("amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return dispatch("amin", input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return dispatch("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return dispatch("argmin", input, dim, keepdim)


def all(input):
    return dispatch("all", input)


def any(input):
    return dispatch("any", input)


def reshape(input, shape):
    return dispatch("reshape", input, tuple(shape))


def transpose(input, dim0, dim1):
    return dispatch("transpose", input, dim0, dim1)


def permute(input, dims):
    return dispatch("permute", input, tuple(dims))


def t(input):
    return dispatch("t", input)


def unsqueeze(input, dim):
    return dispatch("unsqueeze", input, dim)


def squeeze(input, dim=None):
    return dispatch("squeeze", input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    return dispatch("flatten", input, start_dim, end_dim)


def softmax(input, dim, dtype=None):
    return dispatch("softmax", input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    return dispatch("log_softmax", input, dim, dtype=dtype)


def eq(input, other):
    return dispatch("eq", input, other)


def ne(input, other):
    return dispatch("ne", input, other)


def lt(input, other):
    return dispatch("lt", input, other)


def le(input, other):
    return dispatch("le", input, other)


def gt(input, other):
    return dispatch("gt", input, other)


def ge(input, other):
    return dispatch("ge", input, other)


def isfinite(input):
    return dispatch("isfinite", input)


def isnan(input):
    return dispatch("isnan", input)


def isinf(input):
    return dispatch("isinf", input)


def clone(input):
    return dispatch("clone", input)


def where(condition, input, other):
    return dispatch("where", condition, input, other)


def cat(tensors, dim=0):
    return dispatch("cat", tensors, dim)


def stack(tensors, dim=0):
    return dispatch("stack", tensors, dim)
