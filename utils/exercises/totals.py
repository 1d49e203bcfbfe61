"""The totals family (notebooks 02 and 03): the whole input reduced to out[0] by a sum, a max or a min.

A reduction's mistakes are predicted from how it behaves: the identity a masked lane must load and
the paddings a learner might use instead, what several programs that all reduced the first tile add up
to, and which prefix a grid rounded down leaves out. Notebook 04's transforms reuse these predictions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import torch

from utils.diagnose import PREDICTED_UP_TO
from utils.exercises.core import (
    ANY_ORDER,
    ONE_LAUNCH_MESSAGES,
    POWERS_OF_TWO,
    SUM_WORDS,
    TILE_MESSAGES,
    UNWRITTEN,
    Case,
    Exercise,
    Predictions,
    describe,
    extra_cases,
    float16_exact,
    mistakes,
    predict,
    predict_each,
    tiles,
    values,
    vector_cases,
    vector_sizes,
)
from utils.setup import runs_on_gpu


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


# ----------------------------------------------------------------------------------------------------
# Max and min: the mistakes only an extreme makes, on top of scalar_predictions

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


def _min_cases(large: bool) -> list[Case]:
    """The vector cases, with all-positive data where the max's are all negative (N = 65536, where no lane
    is masked, so that a min started at 0.0 shows without a wrong other= showing too; N = 6000, whose
    number of tiles is not a power of two, so that a stage 2's wrong other= shows)."""
    sizes = [(n, "positive" if n in (2**16, 6000) else kind) for n, kind in vector_sizes(large)]
    return [Case(describe(n, k), (values(n, k, seed=100 * i),), (1,)) for i, (n, k) in enumerate(sizes)]


def _max_single_tile_cases(large: bool) -> list[Case]:
    # One program holds the whole array, so N stops at 65536 (2**16 lanes).
    sizes = [(n, k) for n, k in vector_sizes(False)] + [(50000, "negative"), (2**16, "positive")]
    return [Case(describe(n, k), (values(n, k, seed=7 + i),), (1,)) for i, (n, k) in enumerate(sizes)]


def _argmax_cases(large: bool) -> list[Case]:
    """The vector cases, plus ties (the lowest index must win: among random ties, among one per stretch of
    4,096 with the first in the latest lane, and in one lane of many tiles) and NaNs (the first NaN must
    win)."""
    ties = [
        (5, "ones"),
        (1000, "ties"),
        (3001, "ties"),
        (2**15 + 3, "ties"),
        (2**16 + 5, "ties across tiles"),
        (2**15 + 9, "ties in one lane"),
    ]
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
    if not nan.any() and x.max() < 0:  # a running (0.0, index) that no element beats: its index stays
        for start in (0, -1, _FLOAT32_INT32_MAX):
            predict(out, "wrong_initial_value", ("started at 0.0 with index", start), start)
    if nan.any() and not nan.all():
        predict(out, "nan_not_maximum", None, argmax(torch.where(nan, -math.inf, x)))
    for b in POWERS_OF_TWO:
        if b < n:  # every program kept its lane's position; the combine picks the lowest of them
            predict(out, "index_within_tile", b, (positions % b).min())
            predict(out, "first_tile_only", b, argmax(x[:b]))
            # The last tile's winner, by torch.argmax's rules, as an index into x: what a plain tl.store's
            # race leaves (the last program's), and what a stage 2 gives that took tl.max of the indices.
            grid = -(-n // b)
            last = (grid - 1) * b + argmax(x[(grid - 1) * b :])
            predict(out, "max_of_indices", b, last)
            predict(out, "store_race", b, last)
            if grid <= MAX_RACE_PROGRAMS:  # on a GPU, any program's winner
                full = n // b  # the tiles with no masked lane, then the partial one
                winners = x[: full * b].view(full, b).argmax(1).double() + b * torch.arange(full)
                if n % b:
                    winners = torch.cat([winners, last.reshape(1)])
                predict_each(out, "store_race", (b, ANY_ORDER), winners)
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
    "everywhere. Start it at {start}: tl.full(..., {start}, tl.float32), or .fill_({start}).",
    "opposite_reduction": "out holds a {opposite} where the {extreme} belongs (in every stage, or in "
    "stage 1 or stage 2 alone): the kernel uses {opposite_fns} where a {extreme} needs {op_fns}.",
}


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
        predictions=lambda case: (
            _extreme_predictions(case, op) if op in _OPPOSITE else scalar_predictions(case, op)
        ),
        stale=stale,
        identity=REDUCTIONS[op].identity,
        mistakes=mistakes(
            {**TILE_MESSAGES, **(EXTREME_MESSAGES if op in _OPPOSITE else {})},
            **{"sum": SUM_WORDS, "max": MAX_WORDS, "min": MIN_WORDS}[op],
        ),
        **options,
    )


# ----------------------------------------------------------------------------------------------------
# Sums (sum_atomic, sum_two_stage): the mistakes only a sum makes, on top of scalar_predictions

# Grids a persistent (grid-stride) kernel may be launched on: a fixed count, or min(count, tiles);
# 108, 132 and 264: programs per SM of an A100, an H200, two per SM of an H200. Tiles from 32 up.
PERSISTENT_PROGRAMS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32, 40, 64, 100, 108, 128, 132, 256, 264, 512, 1024)
_PERSISTENT_BLOCKS = [b for b in POWERS_OF_TWO if b >= 32]
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
    return cases


def _sum_predictions(case: Case) -> Predictions:
    """scalar_predictions for a sum, plus what only a sum shows: x * x summed, out left at 0, a
    grid-stride loop that steps by one tile (tile t is added once by each program p <= t), and a plain
    tl.store from a persistent kernel (the last program's partial over its stride of tiles survives)."""
    out = scalar_predictions(case, "sum")
    x = case.inputs[0].double()
    n = x.numel()
    expected = x.sum()
    squares = x * x
    if squares.sum() != expected:  # float32 squares overflow to inf past 1.8e19
        overflows = squares.max() > _FLOAT32_MAX or squares.sum() > _FLOAT32_MAX
        predict(out, "summed_squares", None, math.inf if overflows else squares.sum())
    if expected != 0:
        predict(out, "zeroed_after_launch", None, 0.0)
    on_gpu = runs_on_gpu()  # the any-order alternatives count only there (utils.diagnose)
    # The battery's largest N that the checker predicts (utils.diagnose.PREDICTED_UP_TO; see _sum_cases)
    largest = max(size for size, _ in vector_sizes(on_gpu) if size <= PREDICTED_UP_TO)
    programs = torch.tensor(PERSISTENT_PROGRAMS)
    for b in _PERSISTENT_BLOCKS + (_LARGE_TILES if n > POWERS_OF_TWO[-1] else []):
        grid = -(-n // b)
        sums = tiles(x, b, 0.0).sum(1)  # one partial per tile
        if b > POWERS_OF_TWO[-1]:  # only a stage-2 race makes tiles this large
            if grid > 1:
                predict(out, "store_race", b, sums[-1])
                if on_gpu:
                    predict_each(out, "store_race", (b, ANY_ORDER), sums)
            continue
        # Stepping by one tile: tile t is summed by programs 0 .. min(t, P - 1).
        counts = torch.minimum(torch.arange(1, grid + 1).unsqueeze(0), programs.unsqueeze(1))
        stepped = (counts * sums).sum(1, keepdim=True)
        if grid > 1:
            per_tile = (torch.arange(1, grid + 1) * sums).sum()  # a grid of one program per tile
            predict_each(out, "grid_stride_by_tile", (b, "a program per tile"), per_tile.reshape(1, 1))
        # A persistent kernel's plain store: program p summed tiles p, p + P, ..., and the last program's
        # partial stays (on a GPU, any program's). Launched on min(P, tiles) programs, or on P: then with
        # P > tiles the programs past the tiles summed nothing (0.0). A grid so large that its last
        # program idles on every case of the battery leaves out at 0.0 everywhere in the interpreter:
        # that is zeroed_after_launch's effect, whose sentence names it, so the race is not predicted.
        zero = sums.new_zeros(1)
        for i, p in enumerate(PERSISTENT_PROGRAMS):
            if grid > 1:
                predict_each(out, "grid_stride_by_tile", (b, p), stepped[i : i + 1])
            if (p - 1) * b >= largest:
                continue
            if p > grid:  # one tile per program: the plain race's last tile, or an idle program's 0.0
                last, partials = torch.cat([zero, sums[-1:]]), torch.cat([sums, zero])
            else:
                partials = torch.cat([sums, sums.new_zeros(-grid % p)]).view(-1, p).sum(0)
                last = partials[-1:]
            predict_each(out, "store_race", (b, p, "persistent"), last.reshape(-1, 1))
            if on_gpu:
                predict_each(out, "store_race", (b, p, "persistent", ANY_ORDER), partials.reshape(-1, 1))
    return out


SUM_MESSAGES = {
    **TILE_MESSAGES,
    "fp16_accumulation": "the small integers, which float16 holds exactly (their partial sums too), pass, "
    "and only cases whose values it cannot hold fail: the sum went through float16 (an fp16 accumulator, "
    "a .to(tl.float16), or a float16 scratch for the partials), which keeps 11 significant bits and "
    "overflows past 65504. Load, accumulate and keep the partials in float32.",
    "grid_stride_by_tile": "tiles were added more than once, the later ones most: the grid-stride loop "
    "steps by one tile, so program p sums tile p and every tile after it. Step by the whole grid: "
    "range(pid * BLOCK_SIZE, n, tl.num_programs(0) * BLOCK_SIZE).",
    "summed_squares": "out holds the sum of x * x, not of x: sum the loaded values themselves "
    "(tl.sum(x, axis=0)).",
    "zeroed_after_launch": "out holds 0.0 on every case: it was reset after the kernel had added into it "
    "({reset}, not after it), or the last plain tl.store into it came from a program with "
    "nothing to sum (a grid of more programs than tiles): combine the programs' partials instead, with an "
    "atomic or through a scratch and a second stage.",
}


def _sum_total(id, signature, description, hint, **options) -> Exercise:
    """total(..., op="sum") with the sum's own battery, predictions and messages."""
    return replace(
        total(id, signature, description, hint, op="sum", cases=_sum_cases, **options),
        predictions=_sum_predictions,
        mistakes=mistakes(SUM_MESSAGES, **SUM_WORDS),
        trait_mistakes={"fp16_inexact": "fp16_accumulation"},
        trait_probes={"fp16_inexact": float16_exact},
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
    _sum_total(
        "sum_two_stage",
        "sum_two_stage(x, out)",
        "out[0] = sum(x) without atomics: partials to scratch, one program combines them; bit-identical",
        "start from sum_persistent_kernel for stage 1; watch that no atomic is left, that stage 2's "
        "one program covers every partial however many programs stage 1 had, and that it adds them in "
        "the same order every run.",
        repeats=5,
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
    total(
        "max_single_tile",
        "max_single_tile(x, out)",
        "out[0] = max(x) with one program holding the whole array (N <= 65536)",
        "one program holds the whole array, in a tile whose size is a power of two; watch what the "
        "masked lanes load: a value the max can never pick, which 0.0 is not when the inputs are "
        "negative.",
        op="max",
        cases=_max_single_tile_cases,
    ),
    total(
        "max_two_stage",
        "max_two_stage(x, out)",
        "out[0] = max(x) for any N: partial maxima, then one program",
        "start from notebook 02's two-stage sum, with a max in place of the sum; watch what the "
        "masked lanes load and what the running maximum starts at, in both stages.",
        op="max",
    ),
    total(
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
    ),
]
