"""The extremes (notebook 03): max and min over the whole input, and the mistakes only an extreme makes, on
top of the shared predictions (utils.checker.families.reductions). The argmax has its own module."""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker.data import (
    describe,
    extra_cases,
    tiles,
    values,
    vector_cases,
    vector_sizes,
)
from utils.checker.families.reductions import SCALAR_MESSAGES, scalar_predictions, total
from utils.checker.messages import TILE_MESSAGES, TWO_STAGE_MESSAGES
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import (
    POWERS_OF_TWO,
    Predictions,
    predict,
)
from utils.checker.tiled import REDUCTIONS

# What a running max or min (or out, or a scratch that atomics combine into) may wrongly start from
# instead of the identity: the sum's habit, 0.0 (tl.zeros, out.zero_(), torch.zeros), or the identity of
# the other extreme.
_WRONG_STARTS = {"max": (0.0, math.inf), "min": (0.0, -math.inf)}
_OPPOSITE = {"max": "min", "min": "max"}


def _extreme_predictions(case: Case, op: str) -> Predictions:
    """scalar_predictions for op "max" or "min", plus a wrong starting value and the other extreme's
    reduction (tl.min in a max), everywhere or in one stage."""
    out = scalar_predictions(case, op)
    x = case.inputs[0].double()
    n = x.numel()
    how, other = REDUCTIONS[op], REDUCTIONS[_OPPOSITE[op]]
    expected = how.reduce(x)
    for start in _WRONG_STARTS[op]:  # the start takes part in the reduction like one more element
        result = how.reduce(torch.cat([x, x.new_tensor([start])]))
        if result != expected:
            predict(out, "wrong_initial_value", ("started at", start), result)
    # Every reduction swapped, other= too: the other extreme of x, whatever the block. The stage 1 and
    # stage 2 forms follow, by block size.
    predict(out, "opposite_reduction", "everywhere", other.reduce(x))
    for b in POWERS_OF_TWO:
        # Stage 1's partials with the other extreme: those of the tiles with no masked lane (reduced here
        # once), then the partial tile's, padded with `pad`. Stage 2 reduces them with op (the swap in
        # stage 1 only) or with the other extreme (swapped everywhere, other= left at op's padding).
        full = n // b
        body = other.reduce_tiles(x[: full * b].view(full, b)) if full else None
        stage_2 = {"stage 1": how, "everywhere": other}  # the reduction of the partials, by form
        reduced = {form: [] if body is None else [r.reduce(body)] for form, r in stage_2.items()}
        for pad in (how.identity, other.identity, 0.0):
            tail = [other.reduce(torch.cat([x[full * b :], x.new_tensor([pad])]))] if n % b else []
            for form, r in stage_2.items():
                if form == "stage 1" or pad != other.identity:
                    result = r.reduce(torch.stack(reduced[form] + tail))
                    predict(out, "opposite_reduction", (b, form, pad), result)
        if -(-n // b) > 1:  # stage 1 right, stage 2 (copied from the other exercise) swapped
            swapped = other.reduce(how.reduce_tiles(tiles(x, b, how.identity)))
            predict(out, "opposite_reduction", (b, "stage 2"), swapped)
    return out


# Every value beyond a finite stand-in for the identity (other=-1e30, a start at -3.4e38): the max's, and
# the min's mirrored. N = 1000 and 6000 leave masked lanes in stage 1, and 6000 in a stage 2 too. N = 5
# runs after every larger case, on fewer programs: a partial kept from an earlier call and read again
# (a scratch kept between calls, read past the slots this call wrote) is larger than all of it. Then the
# extreme last in 2^12 + 1 (tiles of n // 2 rounded to a power of two miss it), and an infinite one a third
# of the way in (a program that stops reading there must still store it).
_BEYOND_FINITE = {
    "max": [
        (5, "huge negative"),
        (1000, "huge negative"),
        (6000, "all -inf"),
        (4097, "ascending"),
        (5000, "inf"),
    ],
    "min": [
        (5, "huge positive"),
        (1000, "huge positive"),
        (6000, "all +inf"),
        (4097, "descending"),
        (5000, "-inf"),
    ],
}


def _max_cases(large: bool) -> list[Case]:
    # 10,000: three tiles of 4,096, all negative: a 0.0 read from a stage 2's fourth, unwritten slot wins
    three = extra_cases([(10000, "negative")], seed=975)
    return vector_cases(large) + three + extra_cases(_BEYOND_FINITE["max"], seed=970)


def _min_cases(large: bool) -> list[Case]:
    """The vector cases, with all-positive data where the max's are all negative (N = 65536, where no lane
    is masked, so that a min started at 0.0 shows without a wrong other= showing too; N = 6000 and
    10,000, whose numbers of tiles are not powers of two, so that a stage 2's wrong other= shows)."""
    sizes = [(n, "positive" if n in (2**16, 6000) else kind) for n, kind in vector_sizes(large)]
    sizes += [(10000, "positive"), *_BEYOND_FINITE["min"]]
    return [Case(describe(n, k), (values(n, k, seed=100 * i),), (1,)) for i, (n, k) in enumerate(sizes)]


def _max_single_tile_cases(large: bool) -> list[Case]:
    # One program holds the whole array, so N stops at 65536 (2**16 lanes).
    sizes = [(n, k) for n, k in vector_sizes(False)] + [(50000, "negative"), (2**16, "positive")]
    sizes += _BEYOND_FINITE["max"]
    return [Case(describe(n, k), (values(n, k, seed=7 + i),), (1,)) for i, (n, k) in enumerate(sizes)]


MAX_WORDS = dict(
    identity="other=float('-inf') for a max",
    reset="out.fill_(float('-inf')) before tl.atomic_max",
    extreme="maximum",
    opposite="minimum",
    start="float('-inf')",
    beaten="all-negative",
    op_fns="tl.max, tl.maximum, tl.atomic_max",
    opposite_fns="tl.min, tl.minimum or tl.atomic_min",
)
MIN_WORDS = dict(
    identity="other=float('inf') for a min",
    reset="out.fill_(float('inf')) before tl.atomic_min",
    extreme="minimum",
    opposite="maximum",
    start="float('inf')",
    beaten="all-positive",
    op_fns="tl.min, tl.minimum, tl.atomic_min",
    opposite_fns="tl.max, tl.maximum or tl.atomic_max",
)
# The mistakes only a max or a min makes (see _extreme_predictions), in the words above.
EXTREME_MESSAGES = {
    "wrong_initial_value": "the {extreme} included a starting value that is not in x: a running {extreme}, "
    "or out or a scratch that atomics combine into, started at 0.0 (tl.zeros, out.zero_() or torch.zeros, "
    "the habit from the sum), which wins on {beaten} data, or at the other infinity, which wins "
    "everywhere; or masked lanes that load other=0.0 in a tile that always has some (a second stage's "
    "tile wider than the partials, say). Start it at {start}: tl.full(..., {start}, tl.float32), or "
    ".fill_({start}); and load masked lanes with other={start}.",
    "opposite_reduction": "out holds a {opposite} where the {extreme} belongs (in every stage, or in "
    "stage 1 or stage 2 alone): the kernel uses {opposite_fns} where a {extreme} needs {op_fns}.",
}


def _extreme(id, signature, description, hint, op, own=None, **fields) -> Exercise:
    """A max or a min over the whole input, with the extremes' predictions and messages (`own`: the
    exercise's own sentences for some codes)."""
    return total(
        id,
        signature,
        description,
        hint,
        op,
        predictions=lambda case, on_gpu: _extreme_predictions(case, op),
        mistakes=mistakes(
            {**TILE_MESSAGES, **SCALAR_MESSAGES, **EXTREME_MESSAGES, **(own or {})},
            **{"max": MAX_WORDS, "min": MIN_WORDS}[op],
        ),
        **fields,
    )


def _two_stage(id, signature, description, hint, op, **fields) -> Exercise:
    """A max or a min in two stages: the extremes' messages, with the two-stage words for out."""
    words = {"max": MAX_WORDS, "min": MIN_WORDS}[op]
    messages = {**TILE_MESSAGES, **SCALAR_MESSAGES, **EXTREME_MESSAGES, **TWO_STAGE_MESSAGES}
    return replace(
        _extreme(id, signature, description, hint, op, **fields),
        mistakes=mistakes(messages, **words),
        combine_in_triton=True,
    )


EXERCISES = [
    _extreme(
        "max_single_tile",
        "max_single_tile(x, out)",
        "out[0] = max(x) with one program holding the whole array (N <= 65536)",
        "one program holds the whole array, in a tile whose size is a power of two; watch what the "
        "masked lanes load: a value the max can never pick, which 0.0 is not when the inputs are "
        "negative.",
        op="max",
        cases=_max_single_tile_cases,
        own={
            "tail_not_processed": "the end of x was left out: one program holds all of x, so its tile must "
            "cover n lanes, BLOCK_SIZE = triton.next_power_of_2(n) (not of n - 1, nor a fixed size); with "
            "several programs, the grid must be triton.cdiv(n, BLOCK_SIZE), not n // BLOCK_SIZE."
        },
    ),
    _two_stage(
        "max_two_stage",
        "max_two_stage(x, out)",
        "out[0] = max(x) for any N: partial maxima, then one program",
        "start from notebook 02's two-stage sum, with a max in place of the sum; watch what the "
        "masked lanes load and what the running maximum starts at, in both stages.",
        op="max",
        cases=_max_cases,
    ),
    _two_stage(
        "min_two_stage",
        "min_two_stage(x, out)",
        "out[0] = min(x) for any N: partial minima, then one program",
        "start from your two-stage max; watch the identity: what must a masked lane load, and the "
        "running minimum start at, so that they never win a min?",
        op="min",
        cases=_min_cases,
    ),
]
