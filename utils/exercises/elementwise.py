"""The elementwise family (notebook 01): out has the input's shape, one element per lane.

Their mistakes show as which prefix of out got written: a grid without the program offset writes the
first tile over and over, a grid rounded down leaves the last, partial tile unwritten.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from utils.exercises.core import (
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    Case,
    Exercise,
    Predictions,
    mistakes,
    predict,
    unwritten,
    vector_cases,
)

MESSAGES = {
    **{code: TILE_MESSAGES[code] for code in ("missing_program_offset", "tail_not_processed")},
    "first_tile_only": "only the first tile of out was written: a grid of one program, (1,), where it "
    "must be (triton.cdiv(n, BLOCK_SIZE),).",
}


def _prefix_written(full: torch.Tensor, k: int) -> torch.Tensor:
    result = unwritten(full)
    result[:k] = full[:k]
    return result


def _predictions(case: Case, op: Callable[..., torch.Tensor]) -> Predictions:
    """Which prefix of out got written, by block size."""
    n = case.n
    full = op(*(x.double() for x in case.inputs))
    out: Predictions = {}
    for b in POWERS_OF_TWO:
        if b < n:  # every program wrote the first tile, or only one program ran: the two look the same
            predict(out, "missing_program_offset", b, _prefix_written(full, b))
            predict(out, "first_tile_only", b, _prefix_written(full, b))
        if n % b:
            predict(out, "tail_not_processed", b, _prefix_written(full, (n // b) * b))
    return out


def elementwise(id, signature, description, hint, op, arity=1) -> Exercise:
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=lambda large: vector_cases(large, arity=arity, out_like_input=True),
        reference=op,
        compare="elementwise",
        predictions=lambda case: _predictions(case, op),
        mistakes=mistakes(MESSAGES, **SUM_WORDS),
    )


EXERCISES = [
    elementwise(
        "copy",
        "copy(x, out)",
        "out = x: the worked example of notebook 01",
        "load a tile with a mask and store it to the same offsets of out.",
        op=lambda x: x.clone(),
    ),
    elementwise(
        "vector_add",
        "vector_add(x, y, out)",
        "out = x + y, one element per lane, any N",
        "write the kernel body (offsets, mask, load, add, store) and launch it on a grid of "
        "triton.cdiv(n, BLOCK_SIZE) programs.",
        op=lambda x, y: x + y,
        arity=2,
    ),
    elementwise(
        "relu",
        "relu(x, out)",
        "out = max(x, 0) elementwise, any N",
        "like vector add with one input: load, tl.maximum(x, 0.0), store.",
        op=lambda x: x.clamp(min=0),
    ),
]
