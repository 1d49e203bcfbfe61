"""The argmax (notebook 03): the first index of the maximum, NaN counting as the maximum, as torch.argmax
returns it; its cases (ties and NaNs), the mistakes only an index makes, and its entry. The tiling's
mistakes run through the simulator of utils.checker.tiled on ranks."""

from __future__ import annotations

import math

import torch

from utils.checker import data
from utils.checker.data import ODD_TILE_START, extra_cases, vector_cases
from utils.checker.families.reductions import MAX_RACE_PROGRAMS
from utils.checker.messages import TILE_MESSAGES
from utils.checker.model import Case, Exercise, mistakes
from utils.checker.predictions import (
    NOTHING_WRITTEN,
    POWERS_OF_TWO,
    Alternatives,
    Predictions,
    predict,
    predict_each,
    race,
)
from utils.checker.tiled import REDUCTIONS, Stage2, TiledReduction, argmax_ranks


def _argmax_cases(large: bool) -> list[Case]:
    """The vector cases, plus ties (the lowest index must win: among random ties, among one per stretch of
    4,096 with the first in the latest lane, and in one lane of many tiles) and NaNs (the first NaN must
    win; infinities without a NaN, +inf beside -inf, sum to NaN: a NaN test by a sum fails there)."""
    ties = [
        (5, "ones"),
        (1000, "ties"),
        (3001, "ties"),
        (2**15 + 3, "ties"),
        (2**16 + 5, "ties across tiles"),
        (2**15 + 9, "ties in one lane"),
        # from an odd tile on, past as many tiles of 4,096 as 8 programs take in one turn
        (ODD_TILE_START + 2**15 + 1, "ties from an odd tile"),
        (5, "all -inf"),
        (5000, "all -inf"),
        (5000, "signed zeros"),
    ]
    nans = [(1, "nan"), (7, "nan"), (5000, "nan"), (2**15 + 7, "nan"), (2**15 + 13, "three nans")]
    nans += [(5000, "negative nan"), (5000, "inf before nan"), (5000, "inf last"), (7, "signed infinities")]
    if large:  # a turn of a persistent grid of 8 programs an SM over tiles of 4,096 (a GPU's)
        ties += [
            (2**22 + 9, "ties"),
            (ODD_TILE_START + 8 * data.H200_SMS * 4096 + 1, "ties from an odd tile"),
        ]
        nans.append((2**22 + 11, "nan"))
    return (
        vector_cases(large)
        + extra_cases(ties, seed=800, traits={"ties"})
        + extra_cases(nans, seed=900, traits={"nan"})
        + extra_cases([(2**15 + 17, "close maxima")], seed=950)
    )


_FLOAT32_INT32_MAX = float(torch.tensor(2**31 - 1, dtype=torch.float32))  # an int32 sentinel stored as fp32


def _argmax_predictions(case: Case, on_gpu: bool) -> Predictions:
    """What an argmax's mistakes give: indices, as float64 scalars (torch.argmax's rules, unless broken).
    The tiling's mistakes run through the simulator as a max of ranks (utils.checker.tiled.argmax_ranks)."""
    x = case.inputs[0].double()
    n = x.numel()
    nan = x.isnan()
    winner = nan if nan.any() else x == x.max()  # the elements that tie for the maximum
    positions = winner.nonzero().flatten()
    ranks, order = argmax_ranks(x)
    sim = TiledReduction(ranks, REDUCTIONS["max"])

    def index(ranked: Alternatives) -> Alternatives:  # the winning ranks' elements
        return Alternatives(order[ranked.values.long()], ranked.written)

    out: Predictions = {}
    # The maximum itself (NaN if there is one), as float32 stores it: the value where its index belongs.
    predict(out, "value_not_index", None, x.float().max().double())
    if len(positions) > 1:
        if x.max() == -math.inf:  # every element -inf: the masked lanes' -inf ties them, up to the tile's end
            for b in POWERS_OF_TWO:
                predict(out, "ties_highest_index", b, float(-(-n // b) * b - 1))
        else:
            for b in POWERS_OF_TWO:
                predict(out, "ties_highest_index", b, positions[-1])
        # Any of the maxima: the first too, since a tie broken the wrong way shows only where the first
        # maximum loses a comparison (a passing case with ties is no evidence against it).
        predict_each(out, "ties_not_lowest", None, positions.double())
    if not nan.any() and x.max() <= 0:  # a running (0.0, index) that no element beats: its index stays
        # (a maximum of 0, or -0.0, ties it: the lower index wins, so a start at the largest int32 loses)
        for start in (0, -1, _FLOAT32_INT32_MAX) if x.max() < 0 else (0, -1):
            predict(out, "wrong_initial_value", ("started at 0.0 with index", start), start)
    if nan.any() and not nan.all():
        predict(out, "nan_not_maximum", None, torch.where(nan, -math.inf, x).argmax().double())
    for b in POWERS_OF_TWO:
        if b < n:  # every program kept its lane's position; the combine picks the lowest of them
            partials = sim.program_partials(b)
            predict(out, "index_within_tile", b, (positions % b).min())
            predict_each(
                out, "first_tile_only", b, index(sim.combined(sim.program_partials(b, tiles="first")))
            )
            # The last tile's winner: what a plain tl.store's race leaves (the last program's), and what a
            # stage 2 gives that took tl.max of the indices.
            last = index(sim.combined(partials, "store"))
            predict_each(out, "max_of_indices", b, last)
            predict_each(out, "store_race", b, last)
            if len(partials) <= MAX_RACE_PROGRAMS:  # on a GPU, any program's winner
                predict_each(out, "store_race", race(b), index(sim.combined(partials, "any store")))
            for b2 in POWERS_OF_TWO:
                if b * b2 < n:  # a stage 2 that reads its first block of partials only
                    first_block = sim.combined(partials, "stage 2", Stage2(b2, loop=False))
                    predict_each(out, "first_tile_only", (b, b2), index(first_block))
        if n % b:  # grid n // b: the partial tile is never read
            if n // b:
                kept = sim.combined(sim.program_partials(b, tiles="whole"))
                predict_each(out, "tail_not_processed", b, index(kept))
            else:  # no program: out keeps what it held, or holds the combine's starting index
                predict(out, "tail_not_processed", b, NOTHING_WRITTEN, 0, -1, n, _FLOAT32_INT32_MAX)
            if x.max() < 0:  # other=0.0 past the end wins (a NaN would beat it: NaN counts as the maximum)
                predict(out, "wrong_sentinel", b, n)
    return out


ARGMAX_MESSAGES = {
    **TILE_MESSAGES,
    "ties_highest_index": "among equal maxima a higher index won: torch.argmax returns the lowest, so on a "
    "tie keep the lower index (index_a < index_b), in the loop and in the combine. The "
    "lowest lane of a tile is not the lowest index once lanes hold indices from "
    "several tiles.",
    "value_not_index": "out holds the maximum itself, not its index: store the index that travels with the "
    "winning value (the value decides, the index is what argmax returns).",
    "ties_not_lowest": "each failing case's out is the index of a maximum (an element equal to the largest, "
    "or a NaN), but not the first one, which torch.argmax returns. On a tie the lower index must win at "
    "every step: in the loop over tiles, within a tile, and where the programs' partials are combined "
    "(by their indices, whatever the order of the programs that found them).",
    "nan_not_maximum": "the cases with a NaN fail: torch.argmax treats NaN as larger than every number and "
    "returns the first NaN's index. x > y is False when either is NaN, and tl.max "
    "(with or without return_indices) drops NaN: test x != x yourself.",
    "index_within_tile": "out holds the position inside a tile (0 .. BLOCK_SIZE - 1), not in x: keep the "
    "global offsets (start + tl.arange(0, BLOCK_SIZE)) as the indices.",
    "wrong_initial_value": "on all-negative data out holds the starting index: the running maximum started "
    "at 0.0 (tl.zeros, the habit from the sum), which no element beats. Start the running values at "
    "float('-inf'), like other= for the masked lanes.",
    "max_of_indices": "out holds the largest of the programs' indices (the last tile's winner), not the "
    "index of the largest value: combine the partials by their values, carrying each winner's index "
    "along, as in stage 1; not with tl.max of the indices.",
}
ARGMAX_WORDS = dict(identity="other=float('-inf'), the identity of a max", reset="")


EXERCISES = [
    Exercise(
        id="argmax",
        signature="argmax(x, out)",
        description="out[0] = torch.argmax(x) as a float32: the first index of the maximum, NaN counting "
        "as the maximum; any N, on several programs",
        hint="start from your two-stage max, carrying (value, index) pairs through a combine function "
        "of your own; watch torch's two rules at every step, across lanes and across programs: "
        "the lowest index wins a tie, and NaN beats every number (x > y is False when either is "
        "NaN).",
        cases=_argmax_cases,
        reference=lambda x: x.argmax().double().reshape(1),
        compare="exact",
        predictions=_argmax_predictions,
        mistakes=mistakes(ARGMAX_MESSAGES, **ARGMAX_WORDS),
        trait_mistakes={"nan": "nan_not_maximum", "ties": "ties_highest_index"},
        # Where every failing result is a later maximum, a race among the programs' winners is not proven
        # (a combine that breaks ties by program order lands on the same indices, every time).
        yields={
            "store_race": frozenset({"ties_not_lowest"}),
            "ties_not_lowest": frozenset({"ties_highest_index"}),
        },
    ),
]
