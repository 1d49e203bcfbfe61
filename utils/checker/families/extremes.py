"""The extremes (notebook 03): max, min and argmax over the whole input, and the mistakes only an
extreme makes, on top of the shared predictions (utils.checker.families.reductions)."""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker import data
from utils.checker.data import (
    ODD_TILE_START,
    describe,
    extra_cases,
    tiles,
    values,
    vector_cases,
    vector_sizes,
)
from utils.checker.families.reductions import MAX_RACE_PROGRAMS, SCALAR_MESSAGES, scalar_predictions, total
from utils.checker.messages import TILE_MESSAGES, TWO_STAGE_MESSAGES
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
# (a scratch kept between calls, read past the slots this call wrote) is larger than all of it.
_BEYOND_FINITE = {
    "max": [(5, "huge negative"), (1000, "huge negative"), (6000, "all -inf")],
    "min": [(5, "huge positive"), (1000, "huge positive"), (6000, "all +inf")],
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
