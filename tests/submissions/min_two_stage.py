"""Submissions for `min_two_stage(x, out)`: partial minima into scratch, then one program; right and wrong."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per stage-1 tile
PARTIALS_BLOCK = 32  # partials per step of the stage-2 loop (small, so the loop matters from N > 32768)
MAX_PROGRAMS = 8  # the persistent stage 1 launches at most this many programs, each looping over tiles


@triton.jit
def partial_min_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("inf"))
    tl.store(partials_ptr + pid, tl.min(x, axis=0))


@triton.jit
def min_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program: a running elementwise minimum over blocks of partials, one tl.min at the end.
    running = tl.full((BLOCK_SIZE,), float("inf"), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("inf"))
        running = tl.minimum(running, block)
    tl.store(out_ptr, tl.min(running, axis=0))


def _launch_two_stage(stage1, stage2, x, out, n_partials=None):
    """Scratch for one partial per stage-1 program, then stage 2 on one program."""
    n = x.numel()
    if n_partials is None:
        n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    stage1[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    stage2[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def min_two_stage(x, out):
    _launch_two_stage(partial_min_kernel, min_partials_kernel, x, out)


@triton.jit
def partial_min_kernel_persistent(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed number of programs; each strides over the tiles pid, pid + num_programs, ... and keeps a
    # running elementwise minimum, reduced with one tl.min at the end.
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    n_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    running = tl.full((BLOCK_SIZE,), float("inf"), dtype=tl.float32)
    for tile in range(pid, n_tiles, num_programs):
        offsets = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("inf"))
        running = tl.minimum(running, x)
    tl.store(partials_ptr + pid, tl.min(running, axis=0))


def min_two_stage_persistent(x, out):
    n = x.numel()
    n_programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    partials = torch.empty(n_programs, dtype=torch.float32, device=x.device)
    partial_min_kernel_persistent[(n_programs,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    min_partials_kernel[(1,)](partials, out, n_programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def min_kernel_atomic(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("inf"))
    tl.atomic_min(out_ptr, tl.min(x, axis=0))


def min_atomic(x, out):
    # One launch instead of two stages: every program combines its minimum into out with tl.atomic_min.
    n = x.numel()
    out.fill_(float("inf"))
    min_kernel_atomic[(triton.cdiv(n, 4096),)](x, out, n, BLOCK_SIZE=4096)


@triton.jit
def partial_min_kernel_where(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # The padding made explicit: lanes past the end become +inf before the min.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(partials_ptr + pid, tl.min(tl.where(mask, x, float("inf")), axis=0))


@triton.jit
def min_partials_kernel_one_block(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # Every partial in one block of next_power_of_2(n_partials) lanes.
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("inf"))
    tl.store(out_ptr, tl.min(partials, axis=0))


def min_two_stage_where(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, 4096)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_min_kernel_where[(n_partials,)](x, partials, n, BLOCK_SIZE=4096)
    block = triton.next_power_of_2(n_partials)
    min_partials_kernel_one_block[(1,)](partials, out, n_partials, BLOCK_SIZE=block)


# ---- wrong ----


@triton.jit
def partial_min_kernel_other_zero(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)  # BUG: 0.0 wins whenever every value is positive
    tl.store(partials_ptr + pid, tl.min(x, axis=0))


def min_two_stage_other_zero(x, out):
    _launch_two_stage(partial_min_kernel_other_zero, min_partials_kernel, x, out)


@triton.jit
def min_partials_kernel_first_block_only(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: no loop; only the first BLOCK_SIZE partials are compared.
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("inf"))
    tl.store(out_ptr, tl.min(partials, axis=0))


def min_two_stage_stage2_first_block_only(x, out):
    _launch_two_stage(partial_min_kernel, min_partials_kernel_first_block_only, x, out)


def min_two_stage_grid_floor_div(x, out):
    # BUG: n // BLOCK_SIZE rounds down, so the partial last tile gets no program.
    _launch_two_stage(partial_min_kernel, min_partials_kernel, x, out, n_partials=x.numel() // BLOCK_SIZE)


def min_atomic_not_initialised(x, out):
    # Replaces the two stages with tl.atomic_min into out, but
    # BUG: out is not reset to +inf first, so a small (very negative) stale value in out survives.
    n = x.numel()
    min_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def partial_min_kernel_other_neg_inf(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # BUG: other=-inf, copied from the max: a masked lane is the minimum of every tile it is in
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.store(partials_ptr + pid, tl.min(x, axis=0))


def min_two_stage_other_neg_inf(x, out):
    _launch_two_stage(partial_min_kernel_other_neg_inf, min_partials_kernel, x, out)


def min_atomic_zeroed(x, out):
    n = x.numel()
    out.zero_()  # BUG: the habit from the sum; 0.0 is below every element of all-positive data
    min_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def partial_min_kernel_persistent_zero(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    n_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    running = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)  # BUG: a running min starts at +inf, not 0
    for tile in range(pid, n_tiles, num_programs):
        offsets = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("inf"))
        running = tl.minimum(running, x)
    tl.store(partials_ptr + pid, tl.min(running, axis=0))


def min_two_stage_running_min_from_zero(x, out):
    n = x.numel()
    n_programs = min(MAX_PROGRAMS, triton.cdiv(n, BLOCK_SIZE))
    partials = torch.empty(n_programs, dtype=torch.float32, device=x.device)
    partial_min_kernel_persistent_zero[(n_programs,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    min_partials_kernel[(1,)](partials, out, n_programs, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_min_kernel_uses_max(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("inf"))
    tl.store(partials_ptr + pid, tl.max(x, axis=0))  # BUG: tl.max left over from the max exercise


def min_two_stage_stage1_max(x, out):
    _launch_two_stage(partial_min_kernel_uses_max, min_partials_kernel, x, out)


@triton.jit
def min_kernel_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("inf"))
    # BUG: a plain store of every program's minimum into out[0]; only the last store survives
    tl.store(out_ptr, tl.min(x, axis=0))


def min_store_race(x, out):
    n = x.numel()
    min_kernel_store[(triton.cdiv(n, 2048),)](x, out, n, BLOCK_SIZE=2048)


@triton.jit
def partial_min_kernel_no_mask(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask; the last tile reads past the end of x
    tl.store(partials_ptr + pid, tl.min(x, axis=0))


def min_two_stage_no_mask(x, out):
    _launch_two_stage(partial_min_kernel_no_mask, min_partials_kernel, x, out)


def min_one_program(x, out):
    # BUG: a grid of one program, whose kernel has no loop: only the first tile is reduced
    _launch_two_stage(partial_min_kernel, min_partials_kernel, x, out, n_partials=1)


@triton.jit
def min_partials_kernel_copied_from_max(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # Stage 2 copied from the max exercise and not changed: a running maximum of the partial minima.
    running = tl.full((BLOCK_SIZE,), float("-inf"), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("-inf"))
        running = tl.maximum(running, block)  # BUG: tl.minimum
    tl.store(out_ptr, tl.max(running, axis=0))  # BUG: tl.min


def min_two_stage_stage2_from_max(x, out):
    _launch_two_stage(partial_min_kernel, min_partials_kernel_copied_from_max, x, out)


@triton.jit
def min_partials_kernel_finite_start(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: the running minimum starts at float32's largest, not +inf: an all-inf input returns 3.4e38
    running = tl.full((BLOCK_SIZE,), 3.4028234663852886e38, dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        block = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=float("inf"))
        running = tl.minimum(running, block)
    tl.store(out_ptr, tl.min(running, axis=0))


def min_two_stage_finite_start(x, out):
    _launch_two_stage(partial_min_kernel, min_partials_kernel_finite_start, x, out)


CORRECT = [min_two_stage, min_two_stage_persistent, min_atomic, min_two_stage_where]
WRONG = [
    (min_two_stage_stage2_from_max, "opposite_reduction"),
    (min_two_stage_other_zero, "wrong_sentinel"),
    (min_two_stage_other_neg_inf, "wrong_sentinel"),
    (min_two_stage_stage2_first_block_only, "first_tile_only"),
    (min_one_program, "first_tile_only"),
    (min_two_stage_grid_floor_div, "tail_not_processed"),
    (min_atomic_not_initialised, "stale_out"),
    (min_atomic_zeroed, "wrong_initial_value"),
    (min_two_stage_running_min_from_zero, "wrong_initial_value"),
    (min_two_stage_stage1_max, "opposite_reduction"),
    (min_store_race, "store_race"),
    (min_two_stage_no_mask, "out_of_bounds_read"),
    (min_two_stage_finite_start, "wrong_values"),
]
