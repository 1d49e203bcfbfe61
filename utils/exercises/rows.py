"""The rows family (notebook 05): out[r] = the sum of row r of a 2-D input, in float32.

The battery lays the same data out contiguously, transposed and sliced, and in fp16 that overflows if
summed in fp16, so that a kernel that assumes stride 1 or accumulates in fp16 fails exactly on those
cases (the traits "strided" and "fp16"). Predictions cover rows cut to their first tile and rows that
land in the wrong place.
"""

from __future__ import annotations

import torch

from utils.exercises.core import (
    ANY_ORDER,
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    UNWRITTEN,
    Case,
    Exercise,
    Layout,
    Predictions,
    mistakes,
    predict,
    values,
)

MESSAGES = {
    **TILE_MESSAGES,
    "missing_row_offset": "rows landed in the wrong place: the row index is missing from the input offset "
    "(x_ptr + row * stride_row) or from the output (out_ptr + row).",
    "ignores_strides": "contiguous inputs pass but transposed or sliced views fail: pass x.stride(0) and "
    "x.stride(1) to the kernel and use both in the offsets (don't assume stride 1).",
    "fp16_accumulation": "the fp16 cases fail: the sum was accumulated in fp16, which loses precision and "
    "overflows past 65504; convert each tile with .to(tl.float32) before adding.",
}


def _row_cases(large: bool) -> list[Case]:
    """2-D inputs, including views that are not contiguous, and fp16 that overflows if summed in fp16."""
    shapes: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", torch.float32, "contiguous"),
        (2, 3, "ones", torch.float32, "contiguous"),
        (7, 1000, "mixed", torch.float32, "contiguous"),
        (64, 3, "negative", torch.float32, "contiguous"),
        (16, 1024, "mixed", torch.float16, "contiguous"),
        (33, 515, "positive", torch.float32, "transposed"),
        (20, 700, "mixed", torch.float16, "sliced"),
        (5, 4099, "positive", torch.float32, "sliced"),
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
        name = f"{rows}x{cols} {str(dtype).removeprefix('torch.')} {kind}, {layout}"
        traits = {"fp16"} if dtype == torch.float16 else set()
        traits |= {"strided"} if layout != "contiguous" else set()
        cases.append(Case(name, (x,), (rows,), layout, frozenset(traits)))
    return cases


def _row_predictions(case: Case) -> Predictions:
    x = case.inputs[0].double()
    rows, cols = x.shape
    out: Predictions = {}
    for b in POWERS_OF_TWO:
        if b < cols:
            predict(out, "first_tile_only", b, x[:, :b].sum(dim=1))
    if rows > 1:
        predict(out, "missing_row_offset", "every program read row 0", x[0].sum().expand(rows))
        total = torch.full((rows,), UNWRITTEN, dtype=x.dtype)
        total[0] = x.sum()
        predict(out, "missing_row_offset", "every row added into out[0]", total)
        # Every row stored into out[0]: the last one written wins, the last row in the interpreter and
        # any row on a GPU.
        stored = torch.full((rows, rows), UNWRITTEN, dtype=x.dtype)
        stored[:, 0] = x.sum(dim=1)
        predict(out, "missing_row_offset", "every row stored into out[0]", stored[-1])
        if rows <= 512:
            predict(out, "missing_row_offset", ("every row stored into out[0]", ANY_ORDER), *stored)
    return out


def rows(id, signature, description, hint, identity=None) -> Exercise:
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=_row_cases,
        reference=lambda x: x.sum(dim=1),
        compare="sum",
        predictions=_row_predictions,
        identity=identity,
        mistakes=mistakes(MESSAGES, **SUM_WORDS),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"},
    )


EXERCISES = [
    rows(
        "row_sum",
        "row_sum(x, out)",
        "out[r] = sum(x[r, :]) in fp32 for 2-D x of any strides, fp16 or fp32; one program per row",
        "one program per row: loop over the columns in tiles, accumulate .to(tl.float32) into a vector, "
        "tl.sum after the loop, tl.store(out_ptr + row, ...); pass both strides.",
    ),
    rows(
        "row_sum_atomic",
        "row_sum_atomic(x, out)",
        "row_sum with one program per row that ends in one scalar tl.atomic_add instead of a store",
        "reduce acc with tl.sum first, then tl.atomic_add(out_ptr + row, row_total): a scalar pointer with "
        "a scalar value; zero out on the host before the launch.",
        identity=0.0,
    ),
    rows(
        "row_sum_split",
        "row_sum_split(x, out)",
        "row_sum with several programs per row, each adding its partial with one scalar tl.atomic_add",
        "a 2-D grid (rows, splits): each program sums its chunk of the row, then one "
        "tl.atomic_add(out_ptr + row, partial); zero out on the host first.",
        identity=0.0,
    ),
]
