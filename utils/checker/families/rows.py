"""The rows family (notebook 05): out[r] = the sum of row r of a 2-D input, in float32.

Four shapes of kernel: one program per row (row_sum, row_sum_atomic), several programs per row that add
their partials with atomics (row_sum_split), and several rows per program in a 2-D tile (row_sum_rows).
The battery lays the same data out contiguously, transposed and sliced, and in fp16 that overflows if
summed in fp16, so that a kernel that assumes stride 1 or accumulates in fp16 fails exactly on those
cases (the traits "strided" and "fp16"). Its rows are of many widths (1, odd, a multiple of every tile,
just over a tile), and one case has more rows than a grid of cdiv(n_rows, 128) or n_rows // BLOCK_ROWS
programs covers.

Predictions are computed from prefix sums along the rows (utils.checker.families.row_chunks, which also
predicts the ways of cutting a row into chunks among programs).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from utils.checker.data import float16_exact, values
from utils.checker.families.row_chunks import (
    MAX_WHOLE_TILE,
    Sums,
    cdiv,
    chunk_predictions,
    chunks,
    combine_predictions,
)
from utils.checker.messages import SUM_WORDS, TILE_MESSAGES
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_each, race

MESSAGES = {
    **TILE_MESSAGES,
    "atomics_not_one_per_row": "each row must end in one scalar tl.atomic_add: reduce the row to one number "
    "first (total = tl.sum(acc, axis=0)), then tl.atomic_add(out_ptr + row, total). More lanes than rows: "
    "an atomic per lane (a tile of pointers to out[row], the notebook's Fix 2) or one per column tile; "
    "none at all: a tl.store, right when one program owns its row, but not the exercise. Atomics of other "
    "kinds count too (a tl.atomic_xchg that resets out[row]): reset out on the host, or with a tl.store.",
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
    "ignores_strides": "contiguous inputs pass but transposed or sliced views (some or all) fail: pass "
    "x.stride(0) and x.stride(1) to the kernel and use both in the offsets (don't assume stride 1), and "
    "take the row's length from x.shape (x.stride(0) is n_cols only for a contiguous x).",
    "fp16_accumulation": "only fp16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: the sum went through float16, which loses precision and overflows past "
    "65504: added in it (convert each tile with .to(tl.float32) before adding) or converted to it before "
    "the store (out is float32: store the float32 sum).",
    "store_race": "each row's out holds one part of its sum, the last: the loop over the row's column tiles "
    "resets or assigns its accumulator (acc = ... inside the loop), so that only its last tile counts, or "
    "several programs stored into one row's element with a plain tl.store (the last writer won). "
    "One program per row (or tile of rows) adds every tile into an accumulator made before the loop and "
    "stores once; several programs per row combine with tl.atomic_add into a zeroed out.",
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
        (9, 1, "mixed", torch.float32, "sliced"),  # a column of a wider matrix: reshape(-1) is no copy
        (3, 2049, "mixed", torch.float32, "transposed"),  # a second tile of 2,048 along strided columns
        (9, 256, "mixed", torch.float32, "contiguous"),  # the tile divides the row, not the rows (9)
        (1, 4096, "overflow", torch.float16, "contiguous"),  # one row: a path of its own overflows too
        (3, 9000, "positive", torch.float32, "transposed"),  # past a tile of 8,192, the largest one
        (5, 2048, "mixed", torch.float32, "contiguous"),  # whole tiles of 1,024 in float32 too
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


# Rows per program of a 2-D tile.
ROW_BLOCKS = [r for r in POWERS_OF_TWO if 2 <= r <= 64]
# Paddings a learner might give masked lanes instead of 0.0 (-inf is a max's habit).
WRONG_OTHERS = (-math.inf, math.inf, 1.0)
# "Every row stored into out[0]" on a GPU: any row may win; past this many rows, only the first and last
# RACE_ROWS // 2 are offered (a full table would hold n_rows x n_rows values).
RACE_ROWS = 512


def _missing_rows_predictions(out: Predictions, sums: Sums) -> None:
    """Too few programs for the rows: the first k rows written, the others not."""
    rows = sums.rows
    covered: dict[tuple, int] = {}
    for b in POWERS_OF_TWO[1:]:  # one row per program
        covered[("one row per program", f"grid cdiv(n_rows, {b})")] = cdiv(rows, b)
    for r in ROW_BLOCKS:
        covered[("one row per program", f"grid n_rows // {r}")] = rows // r
        covered[("BLOCK_ROWS", r, "grid n_rows // BLOCK_ROWS")] = rows // r * r
        covered[("BLOCK_ROWS", r, "one program, or rows missing pid * BLOCK_ROWS")] = r
        covered[("BLOCK_ROWS", r, "rows = pid + arange(BLOCK_ROWS)")] = cdiv(rows, r) + r - 1
    for variant, k in covered.items():
        if k < rows:  # rows k and after are never written
            predict(out, "missing_rows", variant, sums.total, written=np.arange(rows) < k)


def _row_predictions(case: Case, on_gpu: bool) -> Predictions:
    x = case.inputs[0].double().numpy()
    rows, cols = x.shape
    sums = Sums(x)
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
            combine_predictions(out, [(b, "one tile per program")], *chunks(cols, b, cdiv(cols, b)), sums)
    chunk_predictions(out, sums, int(case.kwargs["n_splits"]) if "n_splits" in case.kwargs else None)
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
    eight = Case(name, (x,), (6,), traits=traits, keywords=(("n_splits", 8),))
    # then the same width with the default n_splits: a plan kept by width from the call before fails here
    y = values(6 * 9000, "mixed", seed=391).view(6, 9000)
    return [*_row_cases(large), eight, Case("6x9000 float32 mixed, contiguous, default n_splits", (y,), (6,))]


def _row_sums(x: torch.Tensor, **tiling: int) -> torch.Tensor:
    return x.sum(dim=1)  # the tiling a call asks for (n_splits=, BLOCK_ROWS=) changes nothing in it


def _rows_cases(large: bool) -> list[Case]:
    """The rows' battery, and a call with BLOCK_ROWS=2 and the default BLOCK_SIZE: a host function that
    fills in its defaults only when both are None, or passes None on, fails it; then a BLOCK_SIZE shorter
    than the row, as notebook 05's row_sum_best passes (one tile a row, no loop over the columns, fails)."""
    x = values(7 * 1000, "mixed", seed=2_950).view(7, 1000)
    name = "7x1000 float32 mixed, contiguous, BLOCK_ROWS=2"
    short = Case(
        name[:-1] + "4, BLOCK_SIZE=256", (x,), (7,), keywords=(("BLOCK_ROWS", 4), ("BLOCK_SIZE", 256))
    )
    return [*_row_cases(large), Case(name, (x,), (7,), keywords=(("BLOCK_ROWS", 2),)), short]


# A split row's chunks of n_cols // n_splits columns, rounded down, leave its last n_cols % n_splits columns
# to no program: the same sums as whole tiles of n_splits columns, which the effects cannot tell apart.
SPLIT_MESSAGES = MESSAGES | {
    "tail_not_processed": "each row's last columns, past a multiple of a power of two, were left out: the "
    "last, partial tile skipped (loop with range(0, n_cols, BLOCK_SIZE) and mask the last tile with "
    "cols < n_cols; a loop that stops at n_cols // BLOCK_SIZE * BLOCK_SIZE, or a grid of n_cols // "
    "BLOCK_SIZE splits, drops it, and a row shorter than one tile then sums to 0), or chunks of "
    "n_cols // n_splits columns, rounded down, which leave the last n_cols % n_splits columns to no "
    "program (chunks of triton.cdiv(n_cols, n_splits) columns cover them).",
}


def rows(id, signature, description, hint, identity=None, cases=_row_cases, atomic_lanes=None) -> Exercise:
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
        mistakes=mistakes(SPLIT_MESSAGES if split else MESSAGES, **SUM_WORDS),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"}
        | ({"called_n_splits": "n_splits_not_followed"} if split else {}),
        trait_probes={"fp16": float16_exact},
        yields={code: frozenset({"n_splits_not_followed"}) for code in CALL_DEPENDENT} if split else {},
        atomic_lanes=atomic_lanes,
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
        atomic_lanes=lambda case: case.inputs[0].shape[0],  # one scalar atomic per row
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
        "row_sum_rows(x, out, BLOCK_ROWS=None, BLOCK_SIZE=None, num_warps=4)",
        "row_sum with several rows per program: a (BLOCK_ROWS, BLOCK_SIZE) tile reduced along axis=1",
        'start from "Short rows: a 2-D tile of several rows"; watch both masks, rows and columns (the '
        "last program's tile hangs past the matrix both ways), and the axis the rows are summed "
        "along.",
        cases=_rows_cases,
    ),
]
