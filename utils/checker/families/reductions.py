"""What the sums and the extremes share (notebooks 02 and 03): the whole input reduced to out[0].

A reduction's mistakes are predicted from how it behaves: the identity a masked lane must load and
the paddings a learner might use instead, what several programs that all reduced the first tile add up
to, and which prefix a grid rounded down leaves out. Notebook 04's transforms reuse these predictions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from utils.checker.data import tiles, vector_cases
from utils.checker.model import (
    ANY_ORDER,
    POWERS_OF_TWO,
    UNWRITTEN,
    Case,
    Exercise,
    Predictions,
    predict,
    predict_each,
)


@dataclass(frozen=True)
class Reduction:
    """How a whole-array reduction behaves, for predicting its mistakes."""

    reduce: Callable[[torch.Tensor], torch.Tensor]  # 1-D float64 -> 0-d
    reduce_tiles: Callable[[torch.Tensor], torch.Tensor]  # (tiles, BLOCK_SIZE) -> one result per tile
    prefix: Callable[[torch.Tensor], torch.Tensor]  # 1-D -> [reduce(x[:1]), reduce(x[:2]), ...]
    identity: float  # what a masked lane must load
    wrong_others: tuple[float, ...]  # paddings a learner might use instead
    # The result of `grid` programs that all reduced the first tile; None: the same as one program.
    repeated: Callable[[torch.Tensor, int], torch.Tensor] | None = None


REDUCTIONS = {
    "sum": Reduction(
        lambda t: t.sum(),
        lambda t: t.sum(1),
        lambda t: t.cumsum(0),
        0.0,
        (-math.inf, math.inf, 1.0),
        lambda r, grid: grid * r,
    ),
    "max": Reduction(
        lambda t: t.max(), lambda t: t.max(1).values, lambda t: t.cummax(0).values, -math.inf, (0.0, math.inf)
    ),
    "min": Reduction(
        lambda t: t.min(), lambda t: t.min(1).values, lambda t: t.cummin(0).values, math.inf, (0.0, -math.inf)
    ),
    "logsumexp": Reduction(
        lambda t: t.logsumexp(0),
        lambda t: t.logsumexp(1),
        lambda t: t.logcumsumexp(0),
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
    prefix = how.prefix(x)  # reduce(x[:k]) is prefix[k - 1]: every prefix below costs one lookup
    total = prefix[-1]
    out: Predictions = {}
    for b in POWERS_OF_TWO:
        grid = -(-n // b)
        first = prefix[min(b, n) - 1]
        if n % b:  # with no masked lane, a wrong other= changes nothing
            pad = b - n % b
            for v in how.wrong_others:
                padding = torch.full((pad,), v, dtype=torch.float64)
                predict(out, "wrong_sentinel", (b, v), how.reduce(torch.cat([total.reshape(1), padding])))
        if grid > 1:
            if how.repeated:  # an offset-less max sees exactly the first tile: that is first_tile_only
                predict(out, "missing_program_offset", b, how.repeated(first, grid))
            if op == "sum":  # offsets pid + tl.arange(0, b): program p sums the window x[p : p + b]
                starts = torch.arange(grid)
                ends = torch.clamp(starts + b, max=n)
                windows = prefix[ends - 1] - torch.where(starts > 0, prefix[starts - 1], 0.0)
                predict(out, "missing_program_offset", (b, "pid without the factor"), windows.sum())
            predict(out, "first_tile_only", b, first)  # a grid of one program, no loop
            # A plain tl.store per program: the last writer's partial stays, the last program's in the
            # interpreter, any program's on a GPU.
            predict(out, "store_race", b, how.reduce(x[(grid - 1) * b :]))
            if grid <= MAX_RACE_PROGRAMS:
                predict_each(out, "store_race", (b, ANY_ORDER), how.reduce_tiles(tiles(x, b, how.identity)))
        if n % b:  # grid n // b; when n < b no program runs: out stays as it was (unwritten),
            kept = (n // b) * b  # or a second stage reduces zero partials to the identity
            if kept:
                predict(out, "tail_not_processed", b, prefix[kept - 1])
            else:
                predict(out, "tail_not_processed", b, UNWRITTEN, how.identity)
        # A two-stage kernel whose stage 2 reads only its first block of partials.
        for b2 in POWERS_OF_TWO:
            if b2 < grid:
                predict(out, "first_tile_only", (b, b2), prefix[b * b2 - 1])
        # A stage 2 that pads the partials with a wrong other=: a loop over blocks of b2 < grid whose last
        # block is partial, or one block of next_power_of_2(grid). (One fixed block larger than every grid
        # pads on every case, which looks exactly like a combine started at that value.)
        stage_2_blocks = [(b2, b2) for b2 in POWERS_OF_TWO if b2 < grid]
        stage_2_blocks.append((1 << (grid - 1).bit_length(), "fitted"))
        if grid > 1:
            for v in how.wrong_others:
                for b2, form in stage_2_blocks:
                    if grid % b2:
                        padding = torch.full((-grid % b2,), v, dtype=torch.float64)
                        padded_total = how.reduce(torch.cat([total.reshape(1), padding]))
                        predict(out, "wrong_sentinel", (b, "stage 2", form, v), padded_total)
    return out


def total(id, signature, description, hint, op, **fields) -> Exercise:
    """An exercise that reduces the whole input to out[0] with `op` ("sum", "max" or "min"). `fields`
    gives the family's own predictions and mistakes, and may override any other field (the cases)."""
    stale = {
        "sum": lambda expected, garbage: expected + garbage,  # what atomics onto a stale out give
        "max": lambda expected, garbage: expected.clamp(min=garbage),
        "min": lambda expected, garbage: expected.clamp(max=garbage),
    }[op]
    defaults = dict(
        cases=vector_cases,
        reference=lambda x: REDUCTIONS[op].reduce(x).reshape(1),
        compare="sum" if op == "sum" else "exact",
        stale=stale,
        identity=REDUCTIONS[op].identity,
    )
    return Exercise(id=id, signature=signature, description=description, hint=hint, **{**defaults, **fields})
