"""The rows family (notebook 05): out[r] = the sum of row r of a 2-D input, in float32.

Four shapes of kernel: one program per row (row_sum, row_sum_atomic), several programs per row that add
their partials with atomics (row_sum_split), and several rows per program in a 2-D tile (row_sum_rows).
The battery lays the same data out contiguously, transposed and sliced, and in fp16 that overflows if
summed in fp16, so that a kernel that assumes stride 1 or accumulates in fp16 fails exactly on those
cases (the traits "strided" and "fp16"). Its rows are of many widths (1, odd, a multiple of every tile,
just over a tile), and one case has more rows than a grid of cdiv(n_rows, 128) or n_rows // BLOCK_ROWS
programs covers.

Predictions are computed from prefix sums along the rows: a mistake that sums the wrong columns of a row
(only the first tile, not the last partial one, a chunk that runs into the next chunk) is the difference of
two prefix sums per program. Kernels that split a row into chunks are predicted for the ways a learner
sizes the chunks: one tile per program, or n_splits chunks of triton.cdiv(n_cols, n_splits) columns, with
n_splits as given or clamped to the row's tiles and the chunk rounded up to whole tiles or not (notebook
05's host code does both).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from utils.checker.data import float16_exact, values
from utils.checker.messages import SUM_WORDS, TILE_MESSAGES
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_each, race

MESSAGES = {
    **TILE_MESSAGES,
    "first_tile_only": "only the first BLOCK_SIZE columns of each row (or of each program's chunk) were "
    "summed: the loop over the column tiles is missing, so a row longer than one tile loses the rest.",
    "tail_not_processed": "each row's last, partial tile of columns was skipped: loop with range(0, n_cols, "
    "BLOCK_SIZE) and mask the last tile with cols < n_cols (a loop that stops at "
    "n_cols // BLOCK_SIZE * BLOCK_SIZE, or a grid of n_cols // BLOCK_SIZE splits, drops "
    "it; a row shorter than one tile then sums to 0).",
    "missing_program_offset": "every program of a row summed the row's first tile (or first chunk): the "
    "column offsets are missing the program's start, split * BLOCK_SIZE or "
    "split * cols_per_split, with split = tl.program_id(1).",
    "missing_row_offset": "rows landed in the wrong place: the row index is missing from the input offset "
    "(x_ptr + row * stride_row) or from the output (out_ptr + row).",
    "ignores_strides": "contiguous inputs pass but transposed or sliced views fail: pass x.stride(0) and "
    "x.stride(1) to the kernel and use both in the offsets (don't assume stride 1).",
    "fp16_accumulation": "only fp16 cases fail: the sum was accumulated in fp16, which loses precision and "
    "overflows past 65504; convert each tile with .to(tl.float32) before adding.",
    "reset_after_launch": "out holds only zeros: it was reset after the launch, which wipes what the kernel "
    "wrote (or the kernel wrote nothing). Reset out before the launch where atomics add "
    "into it, and not at all where each program stores its rows.",
    "missing_rows": "only the first rows of out hold their sums; the others were never written: the grid "
    "has too few programs for the rows (one row per program needs a grid of (n_rows,), not a "
    "1-D tile's triton.cdiv(n_rows, BLOCK_SIZE); BLOCK_ROWS rows per program need "
    "triton.cdiv(n_rows, BLOCK_ROWS), not n_rows // BLOCK_ROWS), or a program's first row is "
    "not tl.program_id(0) * BLOCK_ROWS.",
    "chunk_overlap": "some columns were summed twice: each program's last tile ran past the end of its "
    "chunk into the next program's columns. Mask with cols < chunk_end, where chunk_end = "
    "tl.minimum(start + cols_per_split, n_cols), not with cols < n_cols, or make "
    "cols_per_split a multiple of BLOCK_SIZE.",
    "n_splits_not_followed": "only the case called with n_splits=8 fails (the default n_splits passes): "
    "the grid, the chunks' width or a loop bound did not follow the n_splits of the call. Compute the grid "
    "and cols_per_split from the n_splits argument, both.",
    "rows_summed_together": "each row got the total of its program's whole tile, several rows added "
    "together: reduce along the columns only, tl.sum(acc, axis=1), one sum per row (tl.sum(acc) "
    "with no axis adds up the whole 2-D tile).",
}


def _row_cases(large: bool) -> list[Case]:
    """2-D inputs, including views that are not contiguous, and fp16 that overflows if summed in fp16."""
    shapes: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", torch.float32, "contiguous"),
        (2, 3, "ones", torch.float32, "contiguous"),
        (7, 1000, "mixed", torch.float32, "contiguous"),
        # More rows than a grid of cdiv(n_rows, 128) programs (2), or of n_rows // BLOCK_ROWS (131 is odd),
        # covers; rows of a single short tile keep its 131 programs cheap in the interpreter.
        (131, 3, "negative", torch.float32, "contiguous"),
        (16, 1024, "mixed", torch.float16, "contiguous"),  # a multiple of every tile up to 1024
        (33, 515, "positive", torch.float32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", torch.float16, "sliced"),
        (5, 4099, "positive", torch.float32, "sliced"),  # just over a tile of 4096
        (4, 4096, "overflow", torch.float16, "contiguous"),  # each row sums to 245760 > fp16 max 65504
    ]
    if large:
        shapes += [
            (4096, 4096, "mixed", torch.float16, "contiguous"),
            (64, 65536 + 3, "positive", torch.float32, "sliced"),
        ]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(shapes):
        if kind == "overflow":
            x = torch.full((rows, cols), 60.0, dtype=dtype)
        else:
            x = values(rows * cols, kind, seed=300 + i, dtype=dtype).view(rows, cols)
        cases.append(row_case((x,), (rows,), kind, layout))
    return cases


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
# Rows per program of a 2-D tile.
ROW_BLOCKS = [r for r in POWERS_OF_TWO if 2 <= r <= 64]
# Paddings a learner might give masked lanes instead of 0.0 (-inf is a max's habit).
WRONG_OTHERS = (-math.inf, math.inf, 1.0)
# "Every row stored into out[0]" on a GPU: any row may win; past this many rows, only the first and last
# RACE_ROWS // 2 are offered (a full table would hold n_rows x n_rows values).
RACE_ROWS = 512


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


class _Sums:
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


def _chunks(cols: int, size: int, programs: int) -> tuple[np.ndarray, np.ndarray]:
    """Each program's first column and end, clipped to the row (end <= start: nothing to sum)."""
    starts = np.arange(programs) * size
    return starts, np.minimum(starts + size, cols)


def _inside_chunks(out: Predictions, keys: list[tuple], starts, ends, b: int, sums: _Sums) -> None:
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


def _combine_predictions(out: Predictions, keys: list[tuple], starts, ends, sums: _Sums) -> None:
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


def _chunk_predictions(out: Predictions, sums: _Sums, called: int | None = None) -> None:
    """Rows split into n_splits chunks, for each tile b (keys already expanded: they start with
    "BLOCK_SIZE"). The chunks hold cdiv(n_cols, n_splits) columns, with n_splits as the learner set it or
    clamped to the row's tiles as notebook 05's host code does, or that rounded up to whole tiles.
    `called`: the n_splits the call passes, which every form then takes instead of its default."""
    cols = sums.cols
    for default in SPLITS:
        s = called or default  # the chunks cut as the call asks; the form keeps its default's key
        plain = _chunks(cols, _cdiv(cols, s), s)
        _combine_predictions(out, [("n_splits", default)], *plain, sums)  # the same for every tile
        for b in CHUNK_BLOCKS:
            key = ("BLOCK_SIZE", b, "n_splits", default)
            clamped = max(1, min(s, _cdiv(cols, b)))  # n_splits = max(1, min(n_splits, cdiv(n_cols, b)))
            if clamped == s:  # the same chunks either way
                _inside_chunks(out, [key, (*key, CLAMPED)], *plain, b, sums)
                _combine_predictions(out, [(*key, CLAMPED)], *plain, sums)
            else:
                _inside_chunks(out, [key], *plain, b, sums)
                chunks = _chunks(cols, _cdiv(cols, clamped), clamped)
                _inside_chunks(out, [(*key, CLAMPED)], *chunks, b, sums)
                if clamped > 1:
                    _combine_predictions(out, [(*key, CLAMPED)], *chunks, sums)
            size = _cdiv(_cdiv(cols, s), b) * b  # notebook 05: cols_per_split a multiple of BLOCK_SIZE
            if size < cols:
                starts, ends = _chunks(cols, size, _cdiv(cols, size))
                _combine_predictions(out, [(*key, MULTIPLE)], starts, ends, sums)
                if size > b:
                    tiles = sums.span(starts, np.minimum(starts + b, ends))
                    predict(out, "first_tile_only", (*key, MULTIPLE), tiles)


def _missing_rows_predictions(out: Predictions, sums: _Sums) -> None:
    """Too few programs for the rows: the first k rows written, the others not."""
    rows = sums.rows
    covered: dict[tuple, int] = {}
    for b in POWERS_OF_TWO[1:]:  # one row per program
        covered[("one row per program", f"grid cdiv(n_rows, {b})")] = _cdiv(rows, b)
    for r in ROW_BLOCKS:
        covered[("one row per program", f"grid n_rows // {r}")] = rows // r
        covered[("BLOCK_ROWS", r, "grid n_rows // BLOCK_ROWS")] = rows // r * r
        covered[("BLOCK_ROWS", r, "one program, or rows missing pid * BLOCK_ROWS")] = r
        covered[("BLOCK_ROWS", r, "rows = pid + arange(BLOCK_ROWS)")] = _cdiv(rows, r) + r - 1
    for variant, k in covered.items():
        if k < rows:  # rows k and after are never written
            predict(out, "missing_rows", variant, sums.total, written=np.arange(rows) < k)


def _row_predictions(case: Case, on_gpu: bool) -> Predictions:
    x = case.inputs[0].double().numpy()
    rows, cols = x.shape
    sums = _Sums(x)
    fitted = 1 << max(cols - 1, 0).bit_length()  # triton.next_power_of_2(n_cols)
    out: Predictions = {}
    predict(out, "reset_after_launch", None, np.zeros(rows))
    for b in POWERS_OF_TWO:
        pad = -cols % b
        if b < cols:
            predict(out, "first_tile_only", b, sums.span([0], [b]))  # no loop over the columns
        if pad:  # with no masked lane, a wrong other= changes nothing
            for v in WRONG_OTHERS:
                predict(out, "wrong_sentinel", (b, v), sums.total + pad * v)
            # Whole tiles only. With a tile wider than the row nothing is summed, and with an explicit
            # BLOCK_SIZE wider than every row of the battery that is all zeros, as reset_after_launch
            # gives: that form is left out (keys already expanded, so that core adds no other).
            whole = sums.span([0], [cols - cols % b])
            if b <= MAX_WHOLE_TILE:
                predict(out, "tail_not_processed", ("BLOCK_SIZE", b), whole)
            for cap in POWERS_OF_TWO:
                if min(fitted, cap) == b:
                    predict(
                        out, "tail_not_processed", ("BLOCK_SIZE = min(next_power_of_2(n), cap)", cap), whole
                    )
        if b < cols:  # one tile per program: a grid (n_rows, cdiv(n_cols, BLOCK_SIZE))
            _combine_predictions(out, [(b, "one tile per program")], *_chunks(cols, b, _cdiv(cols, b)), sums)
    _chunk_predictions(out, sums, int(case.kwargs["n_splits"]) if "n_splits" in case.kwargs else None)
    _missing_rows_predictions(out, sums)
    if rows > 1:
        for r in [*ROW_BLOCKS, 128, 256, 512, 1024]:  # tl.sum(acc) over a whole (BLOCK_ROWS, BLOCK_SIZE) tile
            blocks = np.concatenate([sums.total, np.zeros(-rows % r)]).reshape(-1, r).sum(axis=1)
            predict(out, "rows_summed_together", ("BLOCK_ROWS", r), np.repeat(blocks, r)[:rows])
        predict(out, "missing_row_offset", "every program read row 0", np.full(rows, sums.total[0]))
        first_only = np.arange(rows) == 0  # the rows below out[0] are never written
        total = np.where(first_only, x.sum().item(), 0.0)
        predict(out, "missing_row_offset", "every row added into out[0]", total, written=first_only)
        # Every row stored into out[0]: the last one written wins, the last row in the interpreter and
        # any row on a GPU (past RACE_ROWS rows, one of the first or last RACE_ROWS // 2).
        racers = np.arange(rows)
        if rows > RACE_ROWS:
            racers = np.concatenate([racers[: RACE_ROWS // 2], racers[-RACE_ROWS // 2 :]])
        stored = np.zeros((len(racers), rows))
        stored[:, 0] = sums.total[racers]
        predict(out, "missing_row_offset", "every row stored into out[0]", stored[-1], written=first_only)
        raced = race("every row stored into out[0]")
        predict_each(
            out, "missing_row_offset", raced, stored, np.repeat(first_only[None], len(racers), axis=0)
        )
    return out


# Where only the case called with n_splits=8 fails, a prediction that happens to give its sums (the first
# 8,192 columns: a tile without a loop) says less than the trait does: these codes yield to it
CALL_DEPENDENT = ("first_tile_only", "tail_not_processed", "missing_program_offset", "chunk_overlap")


def _split_cases(large: bool) -> list[Case]:
    """The rows' battery, and rows called with n_splits=8, twice the default: a kernel that takes its
    programs a row from anything but the call's n_splits leaves columns out."""
    x = values(6 * 9000, "mixed", seed=390).view(6, 9000)
    name, traits = "6x9000 float32 mixed, contiguous, n_splits=8", frozenset({"called_n_splits"})
    return [*_row_cases(large), Case(name, (x,), (6,), traits=traits, keywords=(("n_splits", 8),))]


def _row_sums(x: torch.Tensor, n_splits: int | None = None) -> torch.Tensor:
    return x.sum(dim=1)  # the chunks a call asks for (n_splits=) change nothing in it


def rows(id, signature, description, hint, identity=None, cases=_row_cases) -> Exercise:
    split = cases is _split_cases
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=cases,
        reference=_row_sums,
        compare="sum",
        predictions=_row_predictions,
        identity=identity,
        mistakes=mistakes(MESSAGES, **SUM_WORDS),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"}
        | ({"called_n_splits": "n_splits_not_followed"} if split else {}),
        trait_probes={"fp16": float16_exact},
        yields={code: frozenset({"n_splits_not_followed"}) for code in CALL_DEPENDENT} if split else {},
    )


EXERCISES = [
    rows(
        "row_sum",
        "row_sum(x, out)",
        "out[r] = sum(x[r, :]) in fp32 for 2-D x of any strides, fp16 or fp32; one program per row",
        "one program per row, looping over the row in tiles; watch the strides (a transposed or "
        "sliced view is not contiguous) and the accumulator's dtype (float16 rows overflow float16).",
    ),
    rows(
        "row_sum_atomic",
        "row_sum_atomic(x, out)",
        "row_sum with one program per row that ends in one scalar tl.atomic_add instead of a store",
        "start from the broken kernel of the error section; watch the verifier's rule (pointer, value "
        "and mask of one shape), and what an atomic adds onto: the checker's out is not clean.",
        identity=0.0,
    ),
    rows(
        "row_sum_split",
        "row_sum_split(x, out, n_splits=4)",
        "row_sum with several programs per row, each adding its partial with one scalar tl.atomic_add",
        "start from exercise 1, with a 2-D grid that gives each row several programs; watch the "
        "chunks' edges (no column twice, none skipped) and what out holds before the first atomic "
        "add.",
        identity=0.0,
        cases=_split_cases,
    ),
    rows(
        "row_sum_rows",
        "row_sum_rows(x, out)",
        "row_sum with several rows per program: a (BLOCK_ROWS, BLOCK_SIZE) tile reduced along axis=1",
        'start from "Short rows: a 2-D tile of several rows"; watch both masks, rows and columns (the '
        "last program's tile hangs past the matrix both ways), and the axis the rows are summed "
        "along.",
    ),
]
