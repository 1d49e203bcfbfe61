"""Submissions for `max_two_stage(x, out)`: partial maxima into scratch, then one program; right and wrong."""

import torch
import triton
import triton.language as tl

from utils.setup import runs_on_gpu

BLOCK_SIZE = 1024  # elements per stage-1 program
PARTIALS_BLOCK = 32  # partials per step of the stage-2 loop (small, so the loop matters from N > 32768)


@triton.jit
def partial_max_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(partials_ptr + pid, tl.max(x, axis=0))


@triton.jit
def max_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program: a running elementwise maximum over blocks of partials, one tl.max at the end.
    running = tl.full((BLOCK_SIZE,), float("-inf"), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
        running = tl.maximum(running, block)
    tl.store(out_ptr, tl.max(running, axis=0))


def _launch_two_stage(stage1, stage2, x, out, n_partials=None):
    """Scratch for one partial per stage-1 program, then stage 2 on one program."""
    n = x.numel()
    if n_partials is None:
        n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    stage1[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    stage2[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def max_two_stage(x, out):
    _launch_two_stage(partial_max_kernel, max_partials_kernel, x, out)


@triton.jit
def max_partials_kernel_scalar(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # Same combine, with a scalar running maximum: one tl.max per block of partials.
    result = float("-inf")
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
        result = tl.maximum(result, tl.max(block, axis=0))
    tl.store(out_ptr, result)


def max_two_stage_scalar_combine(x, out):
    _launch_two_stage(partial_max_kernel, max_partials_kernel_scalar, x, out)


@triton.jit
def max_kernel_atomic(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.atomic_max(out_ptr, tl.max(x, axis=0))


def max_atomic(x, out):
    # One launch instead of two stages: every program combines its maximum into out with tl.atomic_max.
    n = x.numel()
    out.fill_(float("-inf"))
    max_kernel_atomic[(triton.cdiv(n, 4096),)](x, out, n, BLOCK_SIZE=4096)


@triton.jit
def partial_max_kernel_persistent(
    x_ptr,
    partials_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    STORE_IF_SEEN: tl.constexpr = False,  # True: max_two_stage_store_if_seen's store, below
):
    # A fixed grid; program pid takes the tiles pid, pid + num_programs, ... with a running maximum.
    pid = tl.program_id(axis=0)
    running = tl.full((BLOCK_SIZE,), float("-inf"), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, tl.num_programs(axis=0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements)
        running = tl.maximum(running, tl.where(offsets < n_elements, x, float("-inf")))
    result = tl.max(running, axis=0)
    if STORE_IF_SEEN:
        # Right too: the host fills the partials with -inf, so a program whose maximum is -inf need not
        # store it; a launch of several programs may then store nothing at all (an x of -inf).
        tl.store(partials_ptr + pid, result, mask=result > float("-inf"))
    else:
        tl.store(partials_ptr + pid, result)


def max_two_stage_persistent(x, out):
    n = x.numel()
    programs = min(8, triton.cdiv(n, 2048))
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    partial_max_kernel_persistent[(programs,)](x, partials, n, BLOCK_SIZE=2048)
    # Stage 2 in a single block: next_power_of_2(programs) lanes hold every partial.
    max_partials_kernel[(1,)](partials, out, programs, BLOCK_SIZE=triton.next_power_of_2(programs))


# ---- wrong ----


@triton.jit
def partial_max_kernel_other_zero(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)  # BUG: 0.0 wins whenever every value is negative
    tl.store(partials_ptr + pid, tl.max(x, axis=0))


def max_two_stage_other_zero(x, out):
    _launch_two_stage(partial_max_kernel_other_zero, max_partials_kernel, x, out)


@triton.jit
def max_partials_kernel_first_block_only(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: no loop; only the first BLOCK_SIZE partials are compared.
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
    tl.store(out_ptr, tl.max(partials, axis=0))


def max_two_stage_stage2_first_block_only(x, out):
    _launch_two_stage(partial_max_kernel, max_partials_kernel_first_block_only, x, out)


def max_two_stage_grid_floor_div(x, out):
    # BUG: n // BLOCK_SIZE rounds down, so the partial last tile gets no program.
    _launch_two_stage(partial_max_kernel, max_partials_kernel, x, out, n_partials=x.numel() // BLOCK_SIZE)


def max_atomic_not_initialised(x, out):
    # Replaces the two stages with tl.atomic_max into out, but
    # BUG: out is not reset to -inf first, so a large stale value in out survives.
    n = x.numel()
    max_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def max_atomic_zeroed(x, out):
    n = x.numel()
    out.zero_()  # BUG: the habit from the sum; 0.0 beats every element of all-negative data
    max_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def partial_max_kernel_atomic(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.atomic_max(partials_ptr + pid, tl.max(x, axis=0))


def max_two_stage_scratch_zeros(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    # BUG: stage 1 combines into the scratch with tl.atomic_max, but the scratch starts at 0.0, not -inf
    partials = torch.zeros(n_partials, dtype=torch.float32, device=x.device)
    partial_max_kernel_atomic[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    max_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def max_partials_kernel_zero_start(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    running = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)  # BUG: a running max starts at -inf, not 0
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
        running = tl.maximum(running, block)
    tl.store(out_ptr, tl.max(running, axis=0))


def max_two_stage_combine_starts_at_zero(x, out):
    _launch_two_stage(partial_max_kernel, max_partials_kernel_zero_start, x, out)


@triton.jit
def partial_max_kernel_persistent_zero(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    running = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)  # BUG: the sum's accumulator, for a max
    for start in range(pid * BLOCK_SIZE, n_elements, tl.num_programs(axis=0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        running = tl.maximum(running, x)
    tl.store(partials_ptr + pid, tl.max(running, axis=0))


def max_two_stage_running_max_from_zero(x, out):
    n = x.numel()
    programs = min(8, triton.cdiv(n, 2048))
    partials = torch.empty(programs, dtype=torch.float32, device=x.device)
    partial_max_kernel_persistent_zero[(programs,)](x, partials, n, BLOCK_SIZE=2048)
    max_partials_kernel[(1,)](partials, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_max_kernel_no_mask(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask; the last tile reads past the end of x
    tl.store(partials_ptr + pid, tl.max(x, axis=0))


def max_two_stage_no_mask(x, out):
    _launch_two_stage(partial_max_kernel_no_mask, max_partials_kernel, x, out)


@triton.jit
def max_kernel_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    # BUG: a plain store of every program's maximum into out[0]; only the last store survives
    tl.store(out_ptr, tl.max(x, axis=0))


def max_store_race(x, out):
    # One launch, no scratch and no second stage.
    n = x.numel()
    max_kernel_store[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def max_kernel_load_max_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    # BUG: out[0] loaded, combined and stored back by every program, with no atomic: right when the
    # programs run one after another, as in the interpreter; on a GPU two read the same old maximum
    tl.store(out_ptr, tl.maximum(tl.load(out_ptr), tl.max(x, axis=0)))


def max_load_max_store(x, out):
    n = x.numel()
    out.fill_(float("-inf"))
    max_kernel_load_max_store[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def partial_max_kernel_no_offset(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: pid * BLOCK_SIZE missing; every program reads tile 0
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.store(partials_ptr + pid, tl.max(x, axis=0))


def max_two_stage_missing_program_offset(x, out):
    _launch_two_stage(partial_max_kernel_no_offset, max_partials_kernel, x, out)


@triton.jit
def partial_max_kernel_uses_min(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.store(partials_ptr + pid, tl.min(x, axis=0))  # BUG: tl.min, copied from the min exercise


def max_two_stage_stage1_min(x, out):
    _launch_two_stage(partial_max_kernel_uses_min, max_partials_kernel, x, out)


@triton.jit
def max_partials_kernel_other_zero(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)  # BUG: not -inf
    tl.store(out_ptr, tl.max(partials, axis=0))


def max_two_stage_partials_other_zero(x, out):
    # Stage 1 is right; stage 2 is one block of next_power_of_2(partials), padded with 0.0: it wins
    # wherever every partial is negative and the number of partials is not a power of two.
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_max_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    block = triton.next_power_of_2(n_partials)
    max_partials_kernel_other_zero[(1,)](partials, out, n_partials, BLOCK_SIZE=block)


# ---- Unseen round of 2026-12-05 (session 22): written from the notebook alone, by a helper who
# did not read the checker; each wrong one was shown wrong on an input the exercise allows.
@triton.jit
def wmax_partial_kernel(x_ptr, partials_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for t in range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(x_ptr + offs, mask=offs < n, other=float("-inf")))
    tl.store(partials_ptr + pid, tl.max(acc, axis=0))


@triton.jit
def wmax_final_kernel(p_ptr, out_ptr, m, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(out_ptr, tl.max(tl.load(p_ptr + o, mask=o < m, other=float("-inf")), axis=0))


W3_PROGRAMS = 4


def max_two_stage_zero_slots(x, out):
    n = x.numel()
    partials = torch.zeros(W3_PROGRAMS, dtype=torch.float32, device=x.device)
    grid = min(W3_PROGRAMS, triton.cdiv(n, 128))
    wmax_partial_kernel[(grid,)](x, partials, n, BLOCK=128)
    wmax_final_kernel[(1,)](partials, out, W3_PROGRAMS, B=W3_PROGRAMS)


# ---- Unseen round of 2026-12-05 (session 24), as above (a right one whose stores may all be masked off).
def max_two_stage_store_if_seen(x, out):
    n = x.numel()
    programs = min(3, triton.cdiv(n, BLOCK_SIZE))
    partials = torch.full((programs,), float("-inf"), dtype=torch.float32, device=x.device)
    partial_max_kernel_persistent[(programs,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE, STORE_IF_SEEN=True)
    max_partials_kernel[(1,)](partials, out, programs, BLOCK_SIZE=PARTIALS_BLOCK)


def max_two_stage_tiles_of_4096_partials_other_zero(x, out):
    """Tiles of 4,096 and a stage 2 of the next power of two of slots, masked lanes read as 0.0: wrong
    only where the tiles are not a power of two in number and every element is negative (3 tiles)."""
    n = x.numel()
    n_partials = triton.cdiv(n, 4096)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_max_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=4096)
    block = triton.next_power_of_2(n_partials)
    max_partials_kernel_other_zero[(1,)](partials, out, n_partials, BLOCK_SIZE=block)


CORRECT = [
    max_two_stage,
    max_two_stage_scalar_combine,
    max_atomic,
    max_two_stage_persistent,
    max_two_stage_store_if_seen,
]
WRONG = [
    (max_two_stage_partials_other_zero, "wrong_sentinel"),
    (max_two_stage_other_zero, "wrong_sentinel"),
    (max_two_stage_stage2_first_block_only, "first_tile_only"),
    (max_two_stage_missing_program_offset, "first_tile_only"),
    (max_two_stage_grid_floor_div, "tail_not_processed"),
    (max_atomic_not_initialised, "stale_out"),
    (max_atomic_zeroed, "wrong_initial_value"),
    (max_two_stage_scratch_zeros, "wrong_initial_value"),
    (max_two_stage_combine_starts_at_zero, "wrong_initial_value"),
    (max_two_stage_running_max_from_zero, "wrong_initial_value"),
    (max_two_stage_no_mask, "out_of_bounds_read"),
    (max_store_race, "store_race"),
    (max_two_stage_stage1_min, "opposite_reduction"),
    (max_two_stage_zero_slots, "wrong_sentinel"),
    (max_two_stage_tiles_of_4096_partials_other_zero, "wrong_sentinel"),
]
if not runs_on_gpu():  # the interpreter's stores show the race; a GPU's results may or may not
    WRONG.append((max_load_max_store, "unordered_stores"))
