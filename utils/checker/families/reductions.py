"""What the sums and the extremes share (notebooks 02 and 03): the whole input reduced to out[0].

A reduction's mistakes are predicted by running the course's tiled kernel with one stage set wrong
(utils.checker.tiled): a wrong other=, a grid that misses tiles, programs that all read the first tile, a
plain store where partials must be combined, a stage 2 that reads a block of partials or pads it wrong.
Notebook 04's transforms reuse these predictions.
"""

from __future__ import annotations

import torch

from utils.checker.data import vector_cases
from utils.checker.model import ANY_ORDER, POWERS_OF_TWO, Case, Exercise, Predictions, Variant, predict_each
from utils.checker.tiled import REDUCTIONS, Stage2, TiledReduction

# A race is predicted as "any one program's partial won": at most this many alternatives per block size.
MAX_RACE_PROGRAMS = 1 << 16


def put(predictions: Predictions, code: str, variant: Variant, alternatives: torch.Tensor) -> None:
    """Record a simulated result (utils.checker.tiled: a tensor of alternatives for out[0])."""
    predict_each(predictions, code, variant, alternatives.reshape(-1, 1))


def scalar_predictions(case: Case, op: str) -> Predictions:
    """Predictions for whole-array reductions to one scalar (op: a key of REDUCTIONS), by block size: each
    mistake is the tiled kernel (utils.checker.tiled) with one stage set wrong."""
    sim = TiledReduction(case.inputs[0], REDUCTIONS[op])
    n, how = sim.n, sim.reduction
    out: Predictions = {}
    for b in POWERS_OF_TWO:
        grid = sim.grid(b)
        partials = sim.program_partials(b)
        if n % b:  # with no masked lane, a wrong other= changes nothing
            for v in how.wrong_others:
                put(out, "wrong_sentinel", (b, v), sim.combined(sim.program_partials(b, other=v)))
        if grid > 1:
            first = sim.combined(sim.program_partials(b, tiles="first"))  # a grid of one program, no loop
            put(out, "first_tile_only", b, first)
            if not how.idempotent:  # a max of copies of the first tile's max is first_tile_only's effect
                every_program_first = sim.combined(sim.program_partials(b, offsets="none"))
                put(out, "missing_program_offset", b, every_program_first)
            if op == "sum":  # offsets pid + tl.arange(0, b): program p sums the window x[p : p + b]
                windows = sim.program_partials(b, offsets="pid")
                put(out, "missing_program_offset", (b, "pid without the factor"), sim.combined(windows))
            # A plain tl.store per program: the last writer's partial stays, the last program's in the
            # interpreter, any program's on a GPU.
            put(out, "store_race", b, sim.combined(partials, "store"))
            if grid <= MAX_RACE_PROGRAMS:
                put(out, "store_race", (b, ANY_ORDER), sim.combined(partials, "any store"))
        if n % b:  # a grid of n // b programs; with none (n < b), out keeps its garbage or the identity
            put(out, "tail_not_processed", b, sim.combined(sim.program_partials(b, tiles="whole")))
        # A two-stage kernel whose stage 2 reads only its first block of partials.
        for b2 in POWERS_OF_TWO:
            if b2 < grid:
                first_block = sim.combined(partials, "stage 2", Stage2(b2, loop=False))
                put(out, "first_tile_only", (b, b2), first_block)
        # A stage 2 that pads the partials with a wrong other=: a loop over blocks of b2 < grid whose last
        # block is partial, or one block of next_power_of_2(grid). (One fixed block larger than every grid
        # pads on every case, which looks exactly like a combine started at that value.)
        if grid > 1:
            stage_2_blocks = [(b2, b2) for b2 in POWERS_OF_TWO if b2 < grid and grid % b2]
            fitted = 1 << (grid - 1).bit_length()
            stage_2_blocks += [(None, "fitted")] if grid % fitted else []
            for v in how.wrong_others:
                for b2, form in stage_2_blocks:
                    padded_total = sim.combined(partials, "stage 2", Stage2(b2, other=v))
                    put(out, "wrong_sentinel", (b, "stage 2", form, v), padded_total)
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
