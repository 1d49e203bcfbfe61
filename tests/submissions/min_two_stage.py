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


@triton.jit
def min_kernel_atomic(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("inf"))
    tl.atomic_min(out_ptr, tl.min(x, axis=0))


def min_atomic_not_initialised(x, out):
    # Replaces the two stages with tl.atomic_min into out, but
    # BUG: out is not reset to +inf first, so a small (very negative) stale value in out survives.
    n = x.numel()
    min_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [min_two_stage, min_two_stage_persistent]
WRONG = [
    (min_two_stage_other_zero, "wrong_sentinel"),
    (min_two_stage_stage2_first_block_only, "first_tile_only"),
    (min_two_stage_grid_floor_div, "tail_not_processed"),
    (min_atomic_not_initialised, "stale_out"),
]
