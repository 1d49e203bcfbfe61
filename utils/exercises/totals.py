"""The totals family (notebooks 02 and 03): the whole input reduced to out[0] by a sum, a max or a min.

A reduction's mistakes are predicted from how it behaves: the identity a masked lane must load and
the paddings a learner might use instead, what several programs that all reduced the first tile add up
to, and which prefix a grid rounded down leaves out. Notebook 04's transforms reuse these predictions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from utils.exercises.core import (
    ANY_ORDER,
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    UNWRITTEN,
    Case,
    Exercise,
    Predictions,
    describe,
    extra_cases,
    mistakes,
    padded,
    predict,
    tiles,
    values,
    vector_cases,
    vector_sizes,
)


@dataclass(frozen=True)
class Reduction:
    """How a whole-array reduction behaves, for predicting its mistakes."""

    reduce: Callable[[torch.Tensor], torch.Tensor]  # 1-D float64 -> 0-d
    reduce_tiles: Callable[[torch.Tensor], torch.Tensor]  # (tiles, BLOCK_SIZE) -> one result per tile
    identity: float  # what a masked lane must load
    wrong_others: tuple[float, ...]  # paddings a learner might use instead
    # The result of `grid` programs that all reduced the first tile; None: the same as one program.
    repeated: Callable[[torch.Tensor, int], torch.Tensor] | None = None


REDUCTIONS = {
    "sum": Reduction(
        lambda t: t.sum(), lambda t: t.sum(1), 0.0, (-math.inf, math.inf, 1.0), lambda r, grid: grid * r
    ),
    "max": Reduction(lambda t: t.max(), lambda t: t.max(1).values, -math.inf, (0.0, math.inf)),
    "min": Reduction(lambda t: t.min(), lambda t: t.min(1).values, math.inf, (0.0, -math.inf)),
    "logsumexp": Reduction(
        lambda t: t.logsumexp(0),
        lambda t: t.logsumexp(1),
        -math.inf,
        (0.0, 1.0),
        lambda r, grid: r + math.log(grid),
    ),
}
# A race is predicted as "any one program's partial won": at most this many alternatives per block size.
MAX_RACE_PROGRAMS = 1 << 16


def scalar_predictions(case: Case, op: str) -> Predictions:
    """Predictions for whole-array reductions to one scalar (op: a key of REDUCTIONS), by block size."""
    x = case.inputs[0].double()
    n = x.numel()
    how = REDUCTIONS[op]
    out: Predictions = {}
    for b in POWERS_OF_TWO:
        grid = -(-n // b)
        first = x[: min(b, n)]
        if n % b:  # with no masked lane, a wrong other= changes nothing
            for v in how.wrong_others:
                predict(out, "wrong_sentinel", (b, v), how.reduce(padded(x, b, v)))
        if grid > 1:
            if how.repeated:  # an offset-less max sees exactly the first tile: that is first_tile_only
                predict(out, "missing_program_offset", b, how.repeated(how.reduce(first), grid))
            predict(out, "first_tile_only", b, how.reduce(first))  # a grid of one program, no loop
            # A plain tl.store per program: the last writer's partial stays, the last program's in the
            # interpreter, any program's on a GPU.
            partials = how.reduce_tiles(tiles(x, b, how.identity))
            predict(out, "store_race", b, partials[-1])
            if grid <= MAX_RACE_PROGRAMS:
                predict(out, "store_race", (b, ANY_ORDER), *partials)
        if n % b:  # grid n // b; when n < b no program runs: out stays as it was (unwritten),
            kept = (n // b) * b  # or a second stage reduces zero partials to the identity
            if kept:
                predict(out, "tail_not_processed", b, how.reduce(x[:kept]))
            else:
                predict(out, "tail_not_processed", b, UNWRITTEN, how.identity)
        # A two-stage kernel whose stage 2 reads only its first block of partials.
        for b2 in POWERS_OF_TWO:
            if b2 < grid:
                predict(out, "first_tile_only", (b, b2), how.reduce(x[: b * b2]))
    return out


def _max_single_tile_cases(large: bool) -> list[Case]:
    # One program holds the whole array, so N stops at 65536 (2**16 lanes).
    sizes = [(n, k) for n, k in vector_sizes(False)] + [(50000, "negative"), (2**16, "positive")]
    return [Case(describe(n, k), (values(n, k, seed=7 + i),), (1,)) for i, (n, k) in enumerate(sizes)]


def _argmax_cases(large: bool) -> list[Case]:
    """The vector cases, plus ties (the lowest index must win) and NaNs (the first NaN must win)."""
    ties = [(5, "ones"), (1000, "ties"), (3001, "ties"), (2**15 + 3, "ties")]
    nans = [(1, "nan"), (7, "nan"), (5000, "nan"), (2**15 + 7, "nan")]
    if large:
        ties.append((2**22 + 9, "ties"))
        nans.append((2**22 + 11, "nan"))
    return (
        vector_cases(large)
        + extra_cases(ties, seed=800, traits={"ties"})
        + extra_cases(nans, seed=900, traits={"nan"})
    )


_FLOAT32_INT32_MAX = float(torch.tensor(2**31 - 1, dtype=torch.float32))  # an int32 sentinel stored as fp32


def _argmax_predictions(case: Case) -> Predictions:
    """What an argmax's mistakes give: indices, as float64 scalars (torch.argmax's rules, unless broken)."""
    x = case.inputs[0].double()
    n = x.numel()
    nan = x.isnan()
    winner = nan if nan.any() else x == x.max()  # the elements that tie for the maximum
    positions = winner.nonzero().flatten()

    def argmax(t: torch.Tensor) -> torch.Tensor:
        return t.argmax().double()

    out: Predictions = {}
    if len(positions) > 1:
        predict(out, "ties_highest_index", None, positions[-1])
    if nan.any() and not nan.all():
        predict(out, "nan_not_maximum", None, argmax(torch.where(nan, -math.inf, x)))
    for b in POWERS_OF_TWO:
        if b < n:  # every program kept its lane's position; the combine picks the lowest of them
            predict(out, "index_within_tile", b, (positions % b).min())
            predict(out, "first_tile_only", b, argmax(x[:b]))
            for b2 in POWERS_OF_TWO:
                if b * b2 < n:
                    predict(out, "first_tile_only", (b, b2), argmax(x[: b * b2]))
        if n % b:
            kept = (n // b) * b  # grid n // b: the partial tile is never read
            # With no partials at all, out is unwritten or holds the combine's starting index.
            if kept:
                predict(out, "tail_not_processed", b, argmax(x[:kept]))
            else:
                predict(out, "tail_not_processed", b, UNWRITTEN, 0, -1, n, _FLOAT32_INT32_MAX)
            if x.max() < 0 or nan.all():  # other=0.0 (or +inf) past the end wins
                predict(out, "wrong_sentinel", b, n)
    return out


ARGMAX_MESSAGES = {
    **TILE_MESSAGES,
    "ties_highest_index": "among equal maxima a higher index won: torch.argmax returns the lowest, so on a "
    "tie keep the lower index (index_a < index_b), in the loop and in the combine. The "
    "lowest lane of a tile is not the lowest index once lanes hold indices from "
    "several tiles.",
    "nan_not_maximum": "the cases with a NaN fail: torch.argmax treats NaN as larger than every number and "
    "returns the first NaN's index. x > y is False when either is NaN, and tl.max "
    "(with or without return_indices) drops NaN: test x != x yourself.",
    "index_within_tile": "out holds the position inside a tile (0 .. BLOCK_SIZE - 1), not in x: keep the "
    "global offsets (start + tl.arange(0, BLOCK_SIZE)) as the indices.",
}
ARGMAX_WORDS = dict(identity="other=float('-inf'), the identity of a max", reset="")
MAX_WORDS = dict(
    identity="other=float('-inf') for a max", reset="out.fill_(float('-inf')) before tl.atomic_max"
)
MIN_WORDS = dict(
    identity="other=float('inf') for a min", reset="out.fill_(float('inf')) before tl.atomic_min"
)


def total(id, signature, description, hint, op, **options) -> Exercise:
    """An exercise that reduces the whole input to out[0] with `op` ("sum", "max" or "min")."""
    stale = {
        "sum": lambda expected, garbage: expected + garbage,  # what atomics onto a stale out give
        "max": lambda expected, garbage: expected.clamp(min=garbage),
        "min": lambda expected, garbage: expected.clamp(max=garbage),
    }[op]
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=options.pop("cases", vector_cases),
        reference=lambda x: REDUCTIONS[op].reduce(x).reshape(1),
        compare="sum" if op == "sum" else "exact",
        predictions=lambda case: scalar_predictions(case, op),
        stale=stale,
        identity=REDUCTIONS[op].identity,
        mistakes=mistakes(TILE_MESSAGES, **{"sum": SUM_WORDS, "max": MAX_WORDS, "min": MIN_WORDS}[op]),
        **options,
    )


EXERCISES = [
    total(
        "sum_atomic",
        "sum_atomic(x, out)",
        "out[0] = sum(x): tl.sum per program, one tl.atomic_add each",
        "each program loads its tile with other=0.0, reduces it with tl.sum, and does one tl.atomic_add "
        "into out; zero out on the host first.",
        op="sum",
    ),
    total(
        "sum_two_stage",
        "sum_two_stage(x, out)",
        "out[0] = sum(x) without atomics: partials to scratch, one program combines them; bit-identical",
        "stage 1 stores one partial per program into a scratch tensor; stage 2 is one program that loops "
        "over the partials in a fixed order and stores the total.",
        op="sum",
        repeats=5,
    ),
    total(
        "max_single_tile",
        "max_single_tile(x, out)",
        "out[0] = max(x) with one program holding the whole array (N <= 65536)",
        "one program, BLOCK_SIZE = triton.next_power_of_2(n), other=float('-inf'), tl.max, tl.store.",
        op="max",
        cases=_max_single_tile_cases,
    ),
    total(
        "max_two_stage",
        "max_two_stage(x, out)",
        "out[0] = max(x) for any N: partial maxima, then one program",
        "stage 1 stores each program's tl.max into scratch; stage 2, one program, reduces the partials.",
        op="max",
    ),
    total(
        "min_two_stage",
        "min_two_stage(x, out)",
        "out[0] = min(x) for any N: partial minima, then one program",
        "the two-stage max with tl.min, and the identity of a min, other=float('inf'), for masked lanes.",
        op="min",
    ),
    Exercise(
        id="argmax",
        signature="argmax(x, out)",
        description="out[0] = torch.argmax(x) as a float32: the first index of the maximum, NaN counting "
        "as the maximum; any N, on several programs",
        hint="each program keeps a running (value, index) per lane with a combine function that puts NaN "
        "first and the lower index first on ties, and stores its winner to scratch; one program "
        "combines the partials the same way and stores the index.",
        cases=_argmax_cases,
        reference=lambda x: x.argmax().double().reshape(1),
        compare="exact",
        predictions=_argmax_predictions,
        mistakes=mistakes(ARGMAX_MESSAGES, **ARGMAX_WORDS),
        trait_mistakes={"nan": "nan_not_maximum", "ties": "ties_highest_index"},
    ),
]
