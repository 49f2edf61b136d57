"""The rows of the stack of vectors in int8 for a quick first pass, and the exact best rows.

A search by meaning scores every row of the stack (about 113,000 at 1,000,000 events). Read as
float32 that is 173 MB for each query, 10 ms of one core on the 2-core machine these figures
come from. So the stack also keeps each row as int8 codes with one scale (code = round(x /
scale), scale = max |x| / 127): 43 MB, scored BLOCK rows at a time, each block turned into
float32 in one buffer that stays in the processor's cache (5.7 ms; float16 rows multiplied by
numpy took 185 ms, int8 upcast in blocks of 8,192 rows 14.6 ms: docs/decisions/0029-...).

That first score is off by at most scale / 2 * sum |query| (each code is off by at most half
a step). Every row whose first score, plus that bound, could reach the `count`-th best (less
the largest bound) is scored again from its float16 row, the .vec's own values: the answer is
the very ranking float32 rows give, the same rows in the same order with the same scores.
"""

import numpy as np

BLOCK = 512  # rows turned into float32 at once: 768 kB, inside the cache (2,048: twice slower)
STEP = 8192  # rows quantised at once (bounds the float32 copy made while a stack is built)


def quantised(matrix) -> tuple[np.ndarray, np.ndarray]:
    """(int8 codes, float32 scale of each row) of a matrix of rows."""
    rows, dims = matrix.shape
    codes = np.empty((rows, dims), dtype=np.int8)
    scales = np.empty(rows, dtype=np.float32)
    for start in range(0, rows, STEP):
        part = np.asarray(matrix[start : start + STEP], dtype=np.float32)
        scale = np.abs(part).max(axis=1, initial=0.0) / 127
        steps = np.where(scale > 0, scale, 1.0).astype(np.float32)
        np.rint(part / steps[:, None], out=part)  # within -127..127: |x| <= 127 * scale
        codes[start : start + len(part)] = part
        scales[start : start + len(part)] = scale
    return codes, scales


def rough(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The first score of every row: its codes times the query, times its scale."""
    out = np.empty(len(codes), dtype=np.float32)
    buffer = np.empty((min(BLOCK, len(codes)), codes.shape[1]), dtype=np.float32)
    for start in range(0, len(codes), BLOCK):
        part = codes[start : start + BLOCK]
        block = buffer[: len(part)]
        np.copyto(block, part, casting="unsafe")
        np.matmul(block, query, out=out[start : start + len(part)])
    out *= scales
    return out


def best(codes, scales, rows, query, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(row numbers, scores) of the `count` rows with the highest float32 score (`scores`),
    best first (equal scores: the lower row number first)."""
    query = np.asarray(query, dtype=np.float32)
    count = min(count, len(codes))
    if count <= 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    first = rough(codes, scales, query)
    # the bound of each row's error, with room for float32's own rounding of the sums
    half = float(np.abs(query).sum()) / 2
    error = scales * half + 1e-5
    kth = np.partition(first, len(first) - count)[len(first) - count]
    chosen = np.flatnonzero(first + error >= kth - float(error.max()))
    exact = scores(rows[chosen], query)
    order = np.lexsort((chosen, -exact))[:count]
    return chosen[order], exact[order]


def scores(rows, query: np.ndarray) -> np.ndarray:
    """The float32 score of each row: its products with the query summed in float32, the same
    for a row whichever rows are scored with it (a matrix product sums rows in blocks whose
    rounding depends on how many there are: equal scores came 1e-7 apart)."""
    return np.multiply(np.asarray(rows, dtype=np.float32), query).sum(axis=1, dtype=np.float32)
