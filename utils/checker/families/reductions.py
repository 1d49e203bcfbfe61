"""What the sums and the extremes share (notebooks 02 and 03): the whole input reduced to out[0].

A reduction's mistakes are predicted by running the course's tiled kernel with one stage set wrong
(utils.checker.tiled): a wrong other=, a grid that misses tiles, programs that all read the first tile, a
plain store where partials must be combined, a stage 2 that reads a block of partials or pads it wrong.
Notebook 04's transforms reuse these predictions.
"""

from __future__ import annotations

from utils.checker.data import vector_cases
from utils.checker.model import Case, Exercise
from utils.checker.predictions import (
    POWERS_OF_TWO,
    Alternatives,
    Predictions,
    Variant,
    indistinct,
    predict_each,
    race,
)
from utils.checker.tiled import REDUCTIONS, Stage2, TiledReduction

# A race is predicted as "any one program's partial won": at most this many alternatives per block size.
MAX_RACE_PROGRAMS = 1 << 16
# Grids a persistent (grid-stride) kernel may be launched on: a fixed count, or min(count, tiles);
# 108, 132 and 264: programs per SM of an A100, an H200, two per SM of an H200. Tiles from 32 up.
PERSISTENT_PROGRAMS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32, 40, 64, 100, 108, 128, 132, 256, 264, 512, 1024)
PERSISTENT_BLOCKS = [b for b in POWERS_OF_TWO if b >= 32]

# The mistakes of a scalar reduction's combine and loop that scalar_predictions names, beyond the tiling's.
SCALAR_MESSAGES = {
    "partial_missing": "out holds everything but one program's partial, the first or the last on every "
    "case: that program's partial never reached out. It skipped its atomic or its store into the "
    "scratch (a branch on pid, or on a full tile, that leaves it out), or stage 2 leaves its slot out "
    "(a mask of offsets < P - 1, partials stored one slot off). Every program must combine its partial, "
    "and stage 2 must read slots 0 .. P - 1.",
    "partial_twice": "out holds every program's partial plus one of them again, the first or the last on "
    "every case: that partial was counted twice (stage 2 seeded with partials[0] and then looping from 0, "
    "or a program that adds its partial both with its loop and after it). Start the combine at the "
    "identity and add each partial once.",
    "accumulator_overwritten": "out combines only the last tile each program visited: in the grid-stride "
    "loop the accumulator is assigned (acc = x) instead of combined with (acc += x, or "
    "acc = tl.maximum(acc, x)), so each program keeps its last tile alone.",
    "last_element_dropped": "x[n - 1] was left out (always, or where n is odd): a mask of offsets < n - 1, "
    "or elements taken in pairs, n // 2 of them, which leave the last one out when n is odd. Mask "
    "with offsets < n; for pairs, launch for cdiv(n, 2) pairs and mask each element on its own.",
}


def put(predictions: Predictions, code: str, variant: Variant, alternatives: Alternatives) -> None:
    """Record a simulated result (utils.checker.tiled: the alternatives for out[0])."""
    predict_each(predictions, code, variant, alternatives)


def scalar_predictions(case: Case, op: str, sim: TiledReduction | None = None) -> Predictions:
    """Predictions for whole-array reductions to one scalar (op: a key of REDUCTIONS), by block size: each
    mistake is the tiled kernel (utils.checker.tiled) with one stage set wrong. `sim`: the case's
    simulator, where the caller predicts more with it (its tile partials are then computed once)."""
    sim = sim or TiledReduction(case.inputs[0], REDUCTIONS[op])
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
                put(out, "store_race", race(b), sim.combined(partials, "any store"))
            # A persistent loop that assigns to its accumulator: each program keeps its last tile. (Tiles
            # of 256 and up, the course's persistent kernels' and the ones copied from them.)
            for p in PERSISTENT_PROGRAMS if b >= 256 else ():
                if p < grid:
                    last_tiles = sim.program_partials(b, programs=p, accumulate="last tile")
                    put(out, "accumulator_overwritten", (b, p), sim.combined(last_tiles))
        # One program's partial lost, or counted twice (a max is not changed by a second copy). Cases where
        # that is another mistake's effect, which that one names, are no evidence: with one program, out
        # at the identity or the total twice (tail_not_processed, zeroed_after_launch, a factor); with two,
        # one tile alone (store_race); all but the last of a power of two plus one, a stage 2 that reads
        # its first block (first_tile_only); all but a ragged last tile, tail_not_processed; with a tile
        # of one element, last_element_dropped.
        for which in ("first", "last"):
            for code, times in (("partial_missing", 0), ("partial_twice", 2)):
                if times == 2 and how.idempotent or b == 1:
                    continue
                lost_last = which == "last" and times == 0
                result = sim.combined(sim.one_partial(partials, which, times))
                if grid <= 2 or lost_last and ((grid - 1) & (grid - 2) == 0 or n % b):
                    indistinct(out, code, (b, which), result)
                else:
                    put(out, code, (b, which), result)
        # A grid sized for a block B of 2, 4 or 8 times the kernel's (a constant changed in one place only):
        # only the first cdiv(n, B) tiles are reduced. A power-of-two count of them is a power-of-two
        # prefix, first_tile_only's effect, which that names: those cases are no evidence. Sums (and the
        # transforms) only: a max of one prefix is the max of most prefixes around it, so for an extreme
        # the effects rarely tell this grid from first_tile_only's.
        for b_grid in (2 * b, 4 * b, 8 * b) if not how.idempotent else ():
            covered = -(-n // b_grid)
            if covered < grid:
                prefix = sim.combined(sim.program_partials(b, tiles=covered))
                if covered & (covered - 1) == 0:
                    indistinct(out, "grid_block_mismatch", (b, b_grid), prefix)
                else:
                    put(out, "grid_block_mismatch", (b, b_grid), prefix)
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
    # x[n - 1] left out (a mask of offsets < n - 1); with n = 1 nothing is reduced
    put(out, "last_element_dropped", "always", sim.combined(sim.x[:-1]))
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
