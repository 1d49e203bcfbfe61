"""The sums (notebooks 02 and 07): sum_atomic, sum_two_stage and sum_one_launch, and the mistakes only a
sum makes, on top of the shared predictions (utils.checker.families.reductions)."""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker.data import describe, extra_cases, float16_exact, vector_cases, vector_sizes
from utils.checker.families.reductions import (
    PERSISTENT_BLOCKS,
    PERSISTENT_PROGRAMS,
    SCALAR_MESSAGES,
    put,
    scalar_predictions,
    total,
)
from utils.checker.judge import PREDICTED_UP_TO
from utils.checker.messages import ONE_LAUNCH_MESSAGES, SUM_WORDS, TILE_MESSAGES, TWO_STAGE_MESSAGES
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, race
from utils.checker.tiled import REDUCTIONS, TiledReduction

# Tiles a stage-2 race may leave on the GPU's large cases: block sizes past POWERS_OF_TWO (a stage-1
# tile of b elements times a stage-2 block of b2 partials).
_LARGE_TILES = [2**k for k in range(17, 23)]
_FLOAT32_MAX = torch.finfo(torch.float32).max


def _sum_cases(large: bool) -> list[Case]:
    """The vector cases, whose values float16 cannot hold exactly (trait "fp16_inexact"), and small odd
    integers that float16 holds exactly, partial sums included: only those pass with an fp16 accumulator.
    Their N is odd and over 32768, so every other mistake changes them too (any tail holds an odd number
    of odd values, so it never sums to 0)."""
    cases = [replace(case, traits=case.traits | {"fp16_inexact"}) for case in vector_cases(large)]
    sizes = [40_001] + ([2**20 + 1] if large else [])
    for i, n in enumerate(sizes):
        g = torch.Generator().manual_seed(4_000 + i)
        odd = torch.tensor([-3.0, -1.0, 1.0, 3.0])[torch.randint(0, 4, (n,), generator=g)]
        cases.append(Case(describe(n, "odd integers -3..3"), (odd,), (1,)))
    # a NaN or an inf in x: the sum is NaN or inf, whatever else the partials hold (a combine that drops
    # NaN, or a compensated sum whose inf - inf gives NaN, does not keep it). No mistake is predicted on
    # them: they count neither way.
    return cases + extra_cases([(5000, "nan"), (500, "inf")], seed=4_100, traits={"unpredicted"})


def _two_stage_cases(large: bool) -> list[Case]:
    """_sum_cases, and 129 tiles of 1,024: more partials than a stage 2 of one fixed block of up to 128
    holds, which every other CPU case (65,536 at most: 64 tiles) let pass."""
    return _sum_cases(large) + extra_cases([(2**17 + 3, "mixed")], seed=4_200, traits={"fp16_inexact"})


def _sum_predictions(case: Case, on_gpu: bool) -> Predictions:
    """scalar_predictions for a sum, plus what only a sum shows: x * x summed, out left at 0, a
    grid-stride loop that steps by one tile (tile t is added once by each program p <= t), and a plain
    tl.store from a persistent kernel (the last program's partial over its stride of tiles survives)."""
    if "unpredicted" in case.traits:  # x holds inf or NaN: running sums give inf - inf, no prediction holds
        return {}
    sim = TiledReduction(case.inputs[0], REDUCTIONS["sum"])
    out = scalar_predictions(case, "sum", sim)
    x = case.inputs[0].double()
    n = x.numel()
    expected = x.sum()
    squares = x * x
    if squares.sum() != expected:  # float32 squares overflow to inf past 1.8e19
        overflows = squares.max() > _FLOAT32_MAX or squares.sum() > _FLOAT32_MAX
        predict(out, "summed_squares", None, math.inf if overflows else squares.sum())
    if expected != 0:
        predict(out, "zeroed_after_launch", None, 0.0)
    # The battery's largest N that the checker predicts (utils.checker.judge.PREDICTED_UP_TO; see _sum_cases)
    largest = max(size for size, _ in vector_sizes(on_gpu) if size <= PREDICTED_UP_TO)
    for b in PERSISTENT_BLOCKS + (_LARGE_TILES if n > POWERS_OF_TWO[-1] else []):
        grid = sim.grid(b)
        partials = sim.program_partials(b)
        if b > POWERS_OF_TWO[-1]:  # only a stage-2 race makes tiles this large
            if grid > 1:
                put(out, "store_race", b, sim.combined(partials, "store"))
                if on_gpu:
                    put(out, "store_race", race(b), sim.combined(partials, "any store"))
            continue
        # A grid of one program per tile, each looping from its tile to the end; with P >= tiles
        # programs, every P gives that one result.
        every_tile = sim.combined(sim.program_partials(b, programs=grid, stride="tile"))
        if grid > 1:
            put(out, "grid_stride_by_tile", (b, "a program per tile"), every_tile)
        for p in PERSISTENT_PROGRAMS:
            if grid > 1:
                by_tile = every_tile
                if p < grid:
                    by_tile = sim.combined(sim.program_partials(b, programs=p, stride="tile"))
                put(out, "grid_stride_by_tile", (b, p), by_tile)
            # A persistent kernel's plain store: the last program's partial stays (on a GPU, any
            # program's). Launched on min(P, tiles) programs, or on P, where the programs past the tiles
            # sum nothing. A grid so large that its last program idles on every case of the battery
            # leaves out at 0.0 everywhere in the interpreter: that is zeroed_after_launch's effect,
            # whose sentence names it, so the race is not predicted.
            if (p - 1) * b >= largest:
                continue
            launched = sim.program_partials(b, programs=min(p, grid + 1))  # past the tiles, all alike
            last = sim.combined(launched, "store")
            if p > grid:  # either launch
                last = last + sim.combined(partials, "store")
            put(out, "store_race", (b, p, "persistent"), last)
            if on_gpu:
                put(out, "store_race", race((b, p, "persistent")), sim.combined(launched, "any store"))
    return out


SUM_MESSAGES = {
    **TILE_MESSAGES,
    **SCALAR_MESSAGES,
    "fp16_accumulation": "the small integers, which float16 holds exactly (their partial sums too), pass, "
    "and only cases whose values it cannot hold fail: the sum went through float16 (an fp16 accumulator, "
    "a .to(tl.float16), or a float16 scratch for the partials), which keeps 11 significant bits and "
    "overflows past 65504. Load, accumulate and keep the partials in float32.",
    "grid_stride_by_tile": "tiles were added more than once, the later ones most: the grid-stride loop "
    "steps by less than the whole grid, by one tile (program p then sums tile p and every tile after it) "
    "or by fewer programs' tiles than the grid has (a program count written into the kernel, and a "
    "larger grid launched). Step by the whole grid: range(pid * BLOCK_SIZE, n, tl.num_programs(0) * "
    "BLOCK_SIZE).",
    "summed_squares": "out holds the sum of x * x, not of x: sum the loaded values themselves "
    "(tl.sum(x, axis=0)).",
    "zeroed_after_launch": "out holds 0.0 on every case: it was reset after the kernel had added into it "
    "({reset}, not after it), or the last plain tl.store into it came from a program with "
    "nothing to sum (a grid of more programs than tiles): combine the programs' partials instead, with an "
    "atomic or through a scratch and a second stage.",
}


# The two-stage sum's text asks for no atomics: counted in the interpreter (utils.checker.races), where
# programs run one after another and a float atomic add always meets the same order.
NO_ATOMICS = {
    "atomics_used": "the exercise asks for no atomics: on a GPU, float atomic adds land in whatever order "
    "the programs reach them, so the bits of the sum change from run to run (the interpreter runs the "
    "programs in order, so its results cannot show this). Store each program's partial with tl.store into "
    "partials[pid], and let stage 2's one program add them in index order.",
}


def _sum_total(id, signature, description, hint, **fields) -> Exercise:
    """A sum over the whole input, with the sums' own battery, predictions and messages."""
    return total(
        id,
        signature,
        description,
        hint,
        op="sum",
        cases=_sum_cases,
        predictions=_sum_predictions,
        mistakes=mistakes(SUM_MESSAGES, **SUM_WORDS),
        trait_mistakes={"fp16_inexact": "fp16_accumulation"},
        trait_probes={"fp16_inexact": float16_exact},
        **fields,
    )


EXERCISES = [
    _sum_total(
        "sum_atomic",
        "sum_atomic(x, out)",
        "out[0] = sum(x): tl.sum per program, one tl.atomic_add each",
        "start from the sum_atomic of section 3 (for exercise 1, from what the checker said about "
        "broken_sum); watch what a masked lane adds to the sum, and what out holds before the first "
        "atomic add.",
    ),
    replace(
        _sum_total(
            "sum_two_stage",
            "sum_two_stage(x, out)",
            "out[0] = sum(x) without atomics: partials to scratch, one program combines them; bit-identical",
            "start from sum_persistent_kernel for stage 1; watch that no atomic is left, that stage 2's "
            "one program covers every partial however many programs stage 1 had, and that it adds them in "
            "the same order every run.",
            repeats=5,
        ),
        cases=_two_stage_cases,
        mistakes=mistakes({**SUM_MESSAGES, **TWO_STAGE_MESSAGES, **NO_ATOMICS}, **SUM_WORDS, start="0.0"),
        combine_in_triton=True,
        atomic_lanes=lambda case: 0,
    ),
    replace(
        _sum_total(
            "sum_one_launch",
            "sum_one_launch(x, out)",
            "out[0] = sum(x) in one launch: partials to a workspace, an atomic ticket, the last program "
            "combines in a fixed order and resets the ticket; bit-identical, right when called twice",
            "start from max_one_launch (section 3's ticket, in four steps) with a sum in place of the "
            "max; watch the order of the steps: a partial stored after its ticket is drawn, or a "
            "ticket never reset, is wrong on one of two calls in a row.",
            repeats=5,
        ),
        one_launch=True,
        mistakes=mistakes(
            {**SUM_MESSAGES, **ONE_LAUNCH_MESSAGES}, **SUM_WORDS, finish="a torch.sum of the partials"
        ),
    ),
]
