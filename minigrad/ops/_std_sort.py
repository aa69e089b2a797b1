"""The order in which PyTorch's CPU ``sort`` (``stable=False``) leaves equal keys.

ATen's CPU sort kernel runs ``std::sort`` on (key, position) pairs compared by key only (below
``GRAIN_SIZE`` elements; a 1-d integer tensor of at least that many goes to fbgemm's radix sort,
which is stable). libstdc++'s ``std::sort`` is an introsort: median-of-three quicksort down to
runs of 16, a heapsort where the recursion gets too deep, then one insertion sort. It is not
stable, so equal keys come out in an order that only replaying the algorithm reproduces.

A kernel needs that order where it accumulates in sorted order (``_embedding_bag_dense_backward``
adds each index's gradient rows in the order its sort left them, and a float sum depends on
its order), and so does ``sort`` itself wherever its input has ties. ``std_sort_order(keys)``
returns that permutation for 1-d integer keys (radix sort included); ``introsort_order(keys)`` is
the replay alone, for any keys that compare with ``<``. It is a Python loop over the elements
(O(n log n) steps): cheap for the bags of a batch, slow beyond ~10^5 elements.
"""
from __future__ import annotations

import numpy as np

_THRESHOLD = 16         # libstdc++'s _S_threshold
GRAIN_SIZE = 32768      # at::internal::GRAIN_SIZE (radix sort from here, for 1-d integer keys)


def std_sort_order(keys) -> np.ndarray:
    """The permutation ``torch.sort(keys).indices`` of a 1-d integer array on CPU.

    Below ``GRAIN_SIZE`` elements: libstdc++'s ``std::sort`` replayed on (key, position) pairs
    compared by key (``__introsort_loop`` + ``__final_insertion_sort``, heapsort fallback as
    ``__partial_sort``). From ``GRAIN_SIZE`` on: the stable order (fbgemm's radix sort).
    """
    keys = np.asarray(keys).reshape(-1)
    if keys.size >= GRAIN_SIZE:
        return np.argsort(keys, kind="stable")
    return introsort_order(keys)


def introsort_order(keys) -> np.ndarray:
    """The permutation libstdc++'s ``std::sort`` leaves a 1-d array of keys in (int64), equal
    keys compared by ``<`` only: ``__introsort_loop`` (median-of-three quicksort down to runs of
    ``_THRESHOLD``, heapsort below the depth limit) then ``__final_insertion_sort``."""
    keys = np.asarray(keys).reshape(-1)
    n = keys.size
    k = keys.tolist()
    p = list(range(n))

    def swap(i, j):
        k[i], k[j] = k[j], k[i]
        p[i], p[j] = p[j], p[i]

    def median_to_first(r, a, b, c):                 # std::__move_median_to_first
        if k[a] < k[b]:
            swap(r, b if k[b] < k[c] else c if k[a] < k[c] else a)
        else:
            swap(r, a if k[a] < k[c] else c if k[b] < k[c] else b)

    def partition(first, last, pivot):               # std::__unguarded_partition
        kp = k[pivot]
        while True:
            while k[first] < kp:
                first += 1
            last -= 1
            while kp < k[last]:
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def adjust_heap(first, hole, length, vk, vp):    # std::__adjust_heap + __push_heap
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if k[first + child] < k[first + child - 1]:
                child -= 1
            k[first + hole], p[first + hole] = k[first + child], p[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            k[first + hole], p[first + hole] = k[first + child - 1], p[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and k[first + parent] < vk:
            k[first + hole], p[first + hole] = k[first + parent], p[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        k[first + hole], p[first + hole] = vk, vp

    def heap_sort(first, last):                      # std::__partial_sort(first, last, last)
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            adjust_heap(first, parent, length, k[first + parent], p[first + parent])
        while last - first > 1:
            last -= 1
            vk, vp = k[last], p[last]
            k[last], p[last] = k[first], p[first]
            adjust_heap(first, 0, last - first, vk, vp)

    def introsort(first, last, depth):               # std::__introsort_loop
        while last - first > _THRESHOLD:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    def linear_insert(i):                            # std::__unguarded_linear_insert
        vk, vp = k[i], p[i]
        j = i - 1
        while vk < k[j]:
            k[j + 1], p[j + 1] = k[j], p[j]
            j -= 1
        k[j + 1], p[j + 1] = vk, vp

    def insertion(first, last):                      # std::__insertion_sort
        for i in range(first + 1, last):
            if k[i] < k[first]:
                vk, vp = k[i], p[i]
                k[first + 1:i + 1], p[first + 1:i + 1] = k[first:i], p[first:i]
                k[first], p[first] = vk, vp
            else:
                linear_insert(i)

    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        if n > _THRESHOLD:
            insertion(0, _THRESHOLD)
            for i in range(_THRESHOLD, n):
                linear_insert(i)
        else:
            insertion(0, n)
    return np.array(p, dtype=np.int64)
