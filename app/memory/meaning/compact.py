"""The rows of the stack of vectors in int8 for a quick first pass, and the exact best rows.

A search by meaning scores every row of the stack (about 113,000 at 1,000,000 events). Read as
float32 that is 173 MB for each query, the longest part of a search. So the stack also keeps
each row x as int8 codes r = round(x / s) with one scale s = max |x| / 127 and the sum of its
codes' sizes L = sum |r|: 43 MB. The query is made int8 the same way (q8, scale t) and
simsimd's integer dot product scores every row, s * t * (r . q8), in a fraction of that time
(ADR 0029). Without simsimd, numpy scores the codes against the float32 query BLOCK rows at a
time (each block turned into float32 in a buffer that stays in the cache: as slow as float32
once the codes are out of the cache, twice as quick while they are in it).

That first score is off by at most s * t / 2 * (L + sum |q8| + dims / 2) (each code is off by at
most half a step, and so is each of the query's), or s / 2 * sum |q| with the float32 query.
Every row whose first score, plus its bound, could reach the `count`-th best first score less
the largest bound is scored again from its float16 row, the .vec's own values: the answer is
the very ranking float32 rows give, the same rows in the same order with the same scores.
"""

import numpy as np

try:
    import simsimd
except ImportError:  # a platform without its wheel: numpy's first pass serves
    simsimd = None

BLOCK = 512  # rows turned into float32 at once: 768 kB, inside the cache (2,048: twice slower)
# Values (rows x dims) up to which a stack keeps its exact rows as float32 (25 MB) rather
# than float16 and scores them all without a first pass: a small stack would rescore most of
# its rows anyway (ADR 0029).
SMALL = 16_384 * 384
STEP = 2048  # rows quantised at once (bounds the float32 copies made while a stack is built)


def quantised(matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int8 codes, float32 scale of each row, float32 sum of each row's |codes|)."""
    rows, dims = matrix.shape
    codes = np.empty((rows, dims), dtype=np.int8)
    scales = np.empty(rows, dtype=np.float32)
    sums = np.empty(rows, dtype=np.float32)
    for start in range(0, rows, STEP):
        part = np.asarray(matrix[start : start + STEP], dtype=np.float32)
        scale, made = _codes(part)
        codes[start : start + len(part)] = made
        scales[start : start + len(part)] = scale
        sums[start : start + len(part)] = np.abs(made, dtype=np.float32).sum(axis=1)
    return codes, scales, sums


def _codes(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scale = (np.abs(part).max(axis=-1, initial=0.0) / 127).astype(np.float32)
    steps = np.where(scale > 0, scale, 1.0).astype(np.float32)
    made = np.rint(part / steps[..., None])  # within -127..127: |x| <= 127 * scale
    return scale, made.astype(np.int8)


def held(rows):
    """A stack's rows as a search holds them: the exact rows as float32 when there are few."""
    if rows.codes.size > SMALL or rows.exact.dtype == np.float32:
        return rows
    exact = np.asarray(rows.exact, dtype=np.float32)
    return type(rows)(rows.codes, rows.scales, rows.sums, exact)


def rough(codes, scales, sums, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first score of every row, the bound of its error)."""
    dims = codes.shape[1]
    if simsimd is not None and len(codes):
        step, made = _codes(query)
        dots = np.asarray(simsimd.cdist(made[None], codes, metric="dot", threads=1))[0]
        first = dots.astype(np.float32) * (scales * step)
        spread = float(np.abs(made, dtype=np.float32).sum()) + dims / 2
        return first, scales * (step / 2) * (sums + spread)
    first = np.empty(len(codes), dtype=np.float32)
    buffer = np.empty((min(BLOCK, len(codes)), dims), dtype=np.float32)
    for start in range(0, len(codes), BLOCK):
        part = codes[start : start + BLOCK]
        block = buffer[: len(part)]
        np.copyto(block, part, casting="unsafe")
        np.matmul(block, query, out=first[start : start + len(part)])
    first *= scales
    return first, scales * (float(np.abs(query).sum()) / 2)


def best(rows, query, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(row numbers, scores) of the `count` rows (a vectors.Rows) with the highest float32
    score (`scores`), best first (equal scores: the lower row number first)."""
    query = np.asarray(query, dtype=np.float32)
    count = min(count, len(rows.codes))
    if count <= 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    if rows.codes.size <= SMALL:
        exact = scores(rows.exact, query)
        chosen = np.arange(len(exact))
        if len(exact) > 2 * count:  # sort only the rows that can be among the best
            chosen = np.flatnonzero(exact >= np.partition(exact, len(exact) - count)[-count])
            exact = exact[chosen]
    else:
        first, error = rough(rows.codes, rows.scales, rows.sums, query)
        error += 1e-4 * (1 + np.abs(first))  # room for float32's own rounding of the sums
        kth = np.partition(first, len(first) - count)[len(first) - count]
        chosen = np.flatnonzero(first + error >= kth - float(error.max()))
        exact = scores(rows.exact[chosen], query)
    order = np.lexsort((chosen, -exact))[:count]
    return chosen[order], exact[order]


def scores(rows, query: np.ndarray) -> np.ndarray:
    """The float32 score of each row: its products with the query summed in float32 row by
    row (einsum), the same for a row whichever rows are scored with it (a matrix product sums
    rows in blocks whose rounding depends on how many there are: equal scores came 1e-7
    apart; einsum is also quicker than multiplying then summing)."""
    return np.einsum("ij,j->i", np.asarray(rows, dtype=np.float32), query)
