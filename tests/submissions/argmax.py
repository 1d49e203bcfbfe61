"""Submissions for `argmax(x, out)`: per-program (value, index) partials, then one program; right and wrong.

torch.argmax's rules: NaN counts as larger than every number (the first NaN wins), and among equal maxima
the lowest index wins. out[0] holds the index as a float32.
"""

import torch
import triton
import triton.language as tl

from utils.setup import runs_on_gpu

BLOCK_SIZE = 2048  # elements per stage-1 tile
PARTIALS_BLOCK = 8  # partials per step of the stage-2 loop (small, so the loop matters from N > 16384)
MAX_PROGRAMS = 8  # the persistent stage 1 launches at most this many programs, each looping over tiles
BIG = 2147483647  # an index larger than any real one: it loses every tie


@triton.jit
def argmax_combine(value_a, index_a, value_b, index_b):
    # NaN above every number; among equal values (or two NaNs) the lower index. Elementwise or scalar.
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    same = (value_a == value_b) | (a_nan & b_nan)
    a_wins = (value_a > value_b) | (a_nan & ~b_nan) | (same & (index_a < index_b))
    return tl.where(a_wins, value_a, value_b), tl.where(a_wins, index_a, index_b)


@triton.jit
def argmax_combine_nans_apart(value_a, index_a, value_b, index_b):
    # BUG: two NaNs are not a tie (NaN == NaN is False), so of two NaNs in one lane the later one wins
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    same = value_a == value_b
    a_wins = (value_a > value_b) | (a_nan & ~b_nan) | (same & (index_a < index_b))
    return tl.where(a_wins, value_a, value_b), tl.where(a_wins, index_a, index_b)


@triton.jit
def lowest_index_of_max(values, indices):
    # Across lanes with builtins: a NaN lane if there is one (tl.max drops NaN), else the lanes equal to
    # the maximum; of those, the lowest index.
    nan_lanes = values != values
    has_nan = tl.max(nan_lanes.to(tl.int32), axis=0) > 0
    top = tl.max(values, axis=0)
    winners = tl.where(has_nan, nan_lanes, values == top)
    return tl.where(has_nan, float("nan"), top), tl.min(tl.where(winners, indices, 2147483647), axis=0)


@triton.jit
def partial_argmax_kernel(
    x_ptr,
    partial_values_ptr,
    partial_indices_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    NANS_TIE: tl.constexpr = True,  # False: argmax_combine_nans_apart, a wrong submission's combine
):
    # Persistent: program pid takes tiles pid, pid + G, ...; each lane keeps its running (value, index).
    best_value = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    best_index = tl.full((BLOCK_SIZE,), 2147483647, tl.int32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        if NANS_TIE:
            best_value, best_index = argmax_combine(best_value, best_index, x, offsets)
        else:
            best_value, best_index = argmax_combine_nans_apart(best_value, best_index, x, offsets)
    value, index = lowest_index_of_max(best_value, best_index)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


@triton.jit
def argmax_partials_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    best_value = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    best_index = tl.full((BLOCK_SIZE,), 2147483647, tl.int32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_partials
        value = tl.load(partial_values_ptr + offsets, mask=mask, other=float("-inf"))
        index = tl.load(partial_indices_ptr + offsets, mask=mask, other=2147483647)
        best_value, best_index = argmax_combine(best_value, best_index, value, index)
    value, index = lowest_index_of_max(best_value, best_index)
    tl.store(out_ptr, index.to(tl.float32))


def _scratch(programs, device):
    return (
        torch.empty(programs, dtype=torch.float32, device=device),
        torch.empty(programs, dtype=torch.int32, device=device),
    )


def argmax_persistent(x, out):
    n = x.numel()
    programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    values, indices = _scratch(programs, x.device)
    partial_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_kernel(x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One tile per program: tl.max(..., return_indices=True) gives the lowest lane among equal maxima, but
    # drops NaN, so the first NaN of the tile is looked for apart.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    first_nan = tl.min(tl.where(x != x, offsets, 2147483647), axis=0)
    top, lane = tl.max(x, axis=0, return_indices=True)
    has_nan = first_nan < 2147483647
    tl.store(partial_values_ptr + tl.program_id(0), tl.where(has_nan, float("nan"), top))
    tl.store(
        partial_indices_ptr + tl.program_id(0),
        tl.where(has_nan, first_nan, tl.program_id(0) * BLOCK_SIZE + lane),
    )


def argmax_return_indices(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def argmax_partials_reduce_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    # The same combine, with tl.reduce over a tuple for the last step (cheap here: a small block).
    best_value = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    best_index = tl.full((BLOCK_SIZE,), 2147483647, tl.int32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_partials
        value = tl.load(partial_values_ptr + offsets, mask=mask, other=float("-inf"))
        index = tl.load(partial_indices_ptr + offsets, mask=mask, other=2147483647)
        best_value, best_index = argmax_combine(best_value, best_index, value, index)
    value, index = tl.reduce((best_value, best_index), 0, argmax_combine)
    tl.store(out_ptr, index.to(tl.float32))


def argmax_tuple_reduce(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_reduce_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


# ---- wrong ----


@triton.jit
def argmax_combine_highest(value_a, index_a, value_b, index_b):
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    same = (value_a == value_b) | (a_nan & b_nan)
    a_wins = (value_a > value_b) | (a_nan & ~b_nan) | (same & (index_a > index_b))  # BUG: > keeps the higher
    return tl.where(a_wins, value_a, value_b), tl.where(a_wins, index_a, index_b)


@triton.jit
def tile_argmax_highest_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    nan_lanes = x != x
    has_nan = tl.max(nan_lanes.to(tl.int32), axis=0) > 0
    top = tl.max(x, axis=0)
    winners = tl.where(has_nan, nan_lanes, x == top)
    tl.store(partial_values_ptr + tl.program_id(0), tl.where(has_nan, float("nan"), top))
    # BUG: tl.max of the winners' offsets: the highest index among equal maxima
    tl.store(partial_indices_ptr + tl.program_id(0), tl.max(tl.where(winners, offsets, -1), axis=0))


@triton.jit
def argmax_partials_highest_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    best_value = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    best_index = tl.full((BLOCK_SIZE,), -1, tl.int32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_partials
        value = tl.load(partial_values_ptr + offsets, mask=mask, other=float("-inf"))
        index = tl.load(partial_indices_ptr + offsets, mask=mask, other=-1)
        best_value, best_index = argmax_combine_highest(best_value, best_index, value, index)
    value, index = tl.reduce((best_value, best_index), 0, argmax_combine_highest)
    tl.store(out_ptr, index.to(tl.float32))


def argmax_ties_highest(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_highest_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_highest_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_ignore_nan_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    x = tl.where(x != x, float("-inf"), x)  # BUG: NaN pushed to the bottom instead of the top
    top, lane = tl.max(x, axis=0, return_indices=True)
    tl.store(partial_values_ptr + tl.program_id(0), top)
    tl.store(partial_indices_ptr + tl.program_id(0), tl.program_id(0) * BLOCK_SIZE + lane)


def argmax_nan_ignored(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_ignore_nan_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_local_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    lanes = tl.arange(0, BLOCK_SIZE)
    offsets = tl.program_id(0) * BLOCK_SIZE + lanes
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    value, index = lowest_index_of_max(x, lanes)  # BUG: the lanes' positions, not the offsets
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_index_within_tile(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_local_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_other_zero_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)  # BUG: 0.0 beats negative data
    value, index = lowest_index_of_max(x, offsets)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_other_zero(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_other_zero_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


def argmax_grid_floor_div(x, out):
    n = x.numel()
    programs = n // BLOCK_SIZE  # BUG: rounds down, so the partial last tile gets no program
    values, indices = _scratch(programs, x.device)
    if programs:
        tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def argmax_partials_first_block_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    # BUG: no loop; only the first BLOCK_SIZE partials are compared.
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_partials
    value = tl.load(partial_values_ptr + offsets, mask=mask, other=float("-inf"))
    index = tl.load(partial_indices_ptr + offsets, mask=mask, other=2147483647)
    value, index = lowest_index_of_max(value, index)
    tl.store(out_ptr, index.to(tl.float32))


def argmax_stage2_first_block_only(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_first_block_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


def argmax_one_program(x, out):
    n = x.numel()
    values, indices = _scratch(1, x.device)
    # BUG: one program, and the tile kernel has no loop: only the first BLOCK_SIZE elements are seen
    tile_argmax_kernel[(1,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, 1, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_no_offset_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: pid * BLOCK_SIZE missing; every program reads tile 0
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    value, index = lowest_index_of_max(x, offsets)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_missing_program_offset(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_no_offset_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def argmax_partials_max_index_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    best = tl.full((BLOCK_SIZE,), -1, tl.int32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        index = tl.load(partial_indices_ptr + offsets, mask=offsets < n_partials, other=-1)
        best = tl.maximum(best, index)  # BUG: the largest index, not the index of the largest value
    tl.store(out_ptr, tl.max(best, axis=0).to(tl.float32))


def argmax_max_of_indices(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_max_index_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def tile_argmax_store_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    value, index = lowest_index_of_max(x, offsets)
    # BUG: a plain store of every program's winner into out[0]; only the last store survives
    tl.store(out_ptr, index.to(tl.float32))


def argmax_store_race(x, out):
    n = x.numel()
    tile_argmax_store_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def tile_argmax_no_mask_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask; the last tile reads past the end of x
    value, index = lowest_index_of_max(x, offsets)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_no_mask(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE)
    values, indices = _scratch(programs, x.device)
    tile_argmax_no_mask_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_argmax_zeros_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    best_value = tl.zeros((BLOCK_SIZE,), tl.float32)  # BUG: the sum's accumulator; 0.0 beats negatives
    best_index = tl.zeros((BLOCK_SIZE,), tl.int32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        best_value, best_index = argmax_combine(best_value, best_index, x, offsets)
    value, index = lowest_index_of_max(best_value, best_index)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_running_max_from_zero(x, out):
    n = x.numel()
    programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    values, indices = _scratch(programs, x.device)
    partial_argmax_zeros_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def argmax_partials_by_slot_kernel(
    partial_values_ptr, partial_indices_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr
):
    # BUG: equal partial maxima are resolved by slot (program id), not by the index each one carries. With
    # the persistent stage 1, program 0's winner may lie in a later tile than program 1's.
    slots = tl.arange(0, BLOCK_SIZE)
    value = tl.load(partial_values_ptr + slots, mask=slots < n_partials, other=float("-inf"))
    _, slot = lowest_index_of_max(value, slots)
    index = tl.load(partial_indices_ptr + slot)
    tl.store(out_ptr, index.to(tl.float32))


def argmax_ties_by_program(x, out):
    n = x.numel()
    programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    values, indices = _scratch(programs, x.device)
    partial_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE)
    argmax_partials_by_slot_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=MAX_PROGRAMS)


CORRECT = [argmax_persistent, argmax_return_indices, argmax_tuple_reduce]


def argmax_two_nans_apart(x, out):
    n = x.numel()
    programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    values, indices = _scratch(programs, x.device)
    partial_argmax_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=BLOCK_SIZE, NANS_TIE=False)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


# ---- Unseen round of 2026-12-05 (session 24): written from the notebook by a helper who did not read the
# checker; shown wrong on ties.
@triton.jit
def partial_argmax_later_tie_kernel(
    x_ptr, partial_values_ptr, partial_indices_ptr, n, BLOCK_SIZE: tl.constexpr
):
    best_value = tl.full((BLOCK_SIZE,), float("-inf"), tl.float32)
    best_index = tl.full((BLOCK_SIZE,), 2147483647, tl.int32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        valid = offsets < n
        x = tl.load(x_ptr + offsets, mask=valid, other=float("-inf"))
        x_nan, best_nan = x != x, best_value != best_value
        # BUG: >= lets a later equal value take the lane from an earlier one
        take = valid & ((x_nan & ~best_nan) | (~x_nan & ~best_nan & (x >= best_value)))
        best_value = tl.where(take, x, best_value)
        best_index = tl.where(take, offsets, best_index)
    value, index = lowest_index_of_max(best_value, best_index)
    tl.store(partial_values_ptr + tl.program_id(0), value)
    tl.store(partial_indices_ptr + tl.program_id(0), index)


def argmax_later_tie_in_lane(x, out):
    n = x.numel()
    programs = min(3, triton.cdiv(n, 256))
    values, indices = _scratch(programs, x.device)
    partial_argmax_later_tie_kernel[(programs,)](x, values, indices, n, BLOCK_SIZE=256)
    argmax_partials_kernel[(1,)](values, indices, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


WRONG = [
    # Only the case with two NaNs in one lane of one program (at 0 and 2^15) fails: a later maximum
    (argmax_two_nans_apart, "ties_not_lowest"),
    (argmax_ties_highest, "ties_highest_index"),
    (argmax_nan_ignored, "nan_not_maximum"),
    (argmax_index_within_tile, "index_within_tile"),
    (argmax_other_zero, "wrong_sentinel"),
    (argmax_grid_floor_div, "tail_not_processed"),
    (argmax_stage2_first_block_only, "first_tile_only"),
    (argmax_one_program, "first_tile_only"),
    (argmax_missing_program_offset, "first_tile_only"),
    # The largest index is always the last tile's winner: what a plain store race leaves in the interpreter.
    (argmax_max_of_indices, ("max_of_indices", "store_race")),
    # In the interpreter the last program's store survives, which is the largest index too; on a GPU any
    # program's may.
    (argmax_store_race, "store_race" if runs_on_gpu() else ("store_race", "max_of_indices")),
    (argmax_no_mask, "out_of_bounds_read"),
    (argmax_running_max_from_zero, "wrong_initial_value"),
    # Only the ties across programs fail, each with a later maximum: no race is named, on a GPU either.
    (argmax_ties_by_program, "ties_not_lowest"),
    (argmax_later_tie_in_lane, "ties_not_lowest"),
]
