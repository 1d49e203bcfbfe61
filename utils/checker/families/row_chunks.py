"""A row split among programs (notebook 05's row_sum_split): the row sums each way of cutting the row into
chunks gives, right and with a mistake, from prefix sums along the rows. Used by utils.checker.families.rows.

A mistake that sums the wrong columns of a row (only the first tile of a chunk, a chunk that runs into
the next one) is the difference of two prefix sums per program. Kernels that split a row into chunks are
predicted for the ways a learner sizes them: one tile per program, or n_splits chunks of
triton.cdiv(n_cols, n_splits) columns, with n_splits as given or clamped to the row's tiles and the chunk
rounded up to whole tiles or not (notebook 05's host code does both).
"""

from __future__ import annotations

import math

import numpy as np

from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_each, race

# How a learner splits a row among programs, besides one tile per program (a grid of cdiv(n_cols,
# BLOCK_SIZE) splits): n_splits chunks of triton.cdiv(n_cols, n_splits) columns, with n_splits as given or
# clamped to cdiv(n_cols, BLOCK_SIZE), and the chunk as it is or rounded up to a multiple of BLOCK_SIZE
# (notebook 05's host code clamps and rounds). The checker calls with the learner's default n_splits, and
# once with n_splits=8 (see _split_cases).
SPLITS = (2, 3, 4, 6, 8, 16, 32)
MULTIPLE = "cols_per_split a multiple of BLOCK_SIZE"
CLAMPED = "n_splits at most cdiv(n_cols, BLOCK_SIZE)"
# Tiles tried for chunked splits, as BLOCK_SIZE = b only: in a chunked split every tile at least as wide
# as the row gives the same sums, so BLOCK_SIZE = min(next_power_of_2(n), cap) adds nothing.
CHUNK_BLOCKS = [b for b in POWERS_OF_TWO if 16 <= b <= 16384]
# The widest explicit BLOCK_SIZE tried for a loop over whole tiles only: the battery's widest row is 4099.
MAX_WHOLE_TILE = 4096


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


class Sums:
    """Sums of column ranges of every row, from prefix sums along the rows."""

    def __init__(self, x: np.ndarray):
        self.rows, self.cols = x.shape
        self.total = x.sum(axis=1)
        self.prefix = np.concatenate([np.zeros((self.rows, 1)), x.cumsum(axis=1)], axis=1)

    def parts(self, starts, ends) -> np.ndarray:
        """(programs, rows): program i's sum of columns [starts[i], ends[i]) of each row, clipped to it."""
        a = np.clip(np.asarray(starts), 0, self.cols)
        e = np.maximum(np.clip(np.asarray(ends), 0, self.cols), a)
        return (self.prefix[:, e] - self.prefix[:, a]).T

    def span(self, starts, ends) -> np.ndarray:
        return self.parts(starts, ends).sum(axis=0)


def chunks(cols: int, size: int, programs: int) -> tuple[np.ndarray, np.ndarray]:
    """Each program's first column and end, clipped to the row (end <= start: nothing to sum)."""
    starts = np.arange(programs) * size
    return starts, np.minimum(starts + size, cols)


def _inside_chunks(out: Predictions, keys: list[tuple], starts, ends, b: int, sums: Sums) -> None:
    """Mistakes inside each program's chunk of a row, with tiles of b, predicted under each of `keys`."""
    filled = ends > starts
    starts, ends = starts[filled], ends[filled]
    lengths = ends - starts
    found: list[tuple[str, tuple, np.ndarray]] = []
    if (lengths > b).any():  # no loop inside the chunk: its first tile only
        found.append(("first_tile_only", (), sums.span(starts, np.minimum(starts + b, ends))))
    reads = starts + -(-lengths // b) * b  # masked at n_cols, not at the chunk's end
    if (reads[:-1] > ends[:-1]).any():  # a tile crosses into the next chunk
        found.append(("chunk_overlap", (), sums.span(starts, reads)))
    if (lengths % b).any():  # a wrong other= in a chunk's last, partial tile
        found.append(("wrong_sentinel", (-math.inf,), sums.total - math.inf))
    for key in keys:
        for code, suffix, results in found:
            predict(out, code, (*key, *suffix), results)


def combine_predictions(out: Predictions, keys: list[tuple], starts, ends, sums: Sums) -> None:
    """Several programs per row, each with its chunk of columns, that combine their partials wrongly."""
    partials = sums.parts(starts, ends)  # a program past the row's end has 0
    first_chunk = len(starts) * sums.span([0], [ends[0]])
    for key in keys:
        # A plain tl.store: the last split stores last in the interpreter; on a GPU any split may win,
        # a different one in each row.
        predict(out, "store_race", key, partials[-1])
        predict_each(out, "store_race", race(key, each_element=True), partials)
        # No start offset: every program sums the first chunk.
        predict(out, "missing_program_offset", key, first_chunk)


def chunk_predictions(out: Predictions, sums: Sums, called: int | None = None) -> None:
    """Rows split into n_splits chunks, for each tile b (keys already expanded: they start with
    "BLOCK_SIZE"). The chunks hold cdiv(n_cols, n_splits) columns, with n_splits as the learner set it or
    clamped to the row's tiles as notebook 05's host code does, or that rounded up to whole tiles.
    `called`: the n_splits the call passes, which every form then takes instead of its default."""
    cols = sums.cols
    for default in SPLITS:
        s = called or default  # the chunks cut as the call asks; the form keeps its default's key
        plain = chunks(cols, cdiv(cols, s), s)
        combine_predictions(out, [("n_splits", default)], *plain, sums)  # the same for every tile
        for b in CHUNK_BLOCKS:
            key = ("BLOCK_SIZE", b, "n_splits", default)
            clamped = max(1, min(s, cdiv(cols, b)))  # n_splits = max(1, min(n_splits, cdiv(n_cols, b)))
            if clamped == s:  # the same chunks either way
                _inside_chunks(out, [key, (*key, CLAMPED)], *plain, b, sums)
                combine_predictions(out, [(*key, CLAMPED)], *plain, sums)
            else:
                _inside_chunks(out, [key], *plain, b, sums)
                cut = chunks(cols, cdiv(cols, clamped), clamped)
                _inside_chunks(out, [(*key, CLAMPED)], *cut, b, sums)
                if clamped > 1:
                    combine_predictions(out, [(*key, CLAMPED)], *cut, sums)
            size = cdiv(cdiv(cols, s), b) * b  # notebook 05: cols_per_split a multiple of BLOCK_SIZE
            if size < cols:
                starts, ends = chunks(cols, size, cdiv(cols, size))
                combine_predictions(out, [(*key, MULTIPLE)], starts, ends, sums)
                if size > b:
                    tiles = sums.span(starts, np.minimum(starts + b, ends))
                    predict(out, "first_tile_only", (*key, MULTIPLE), tiles)
