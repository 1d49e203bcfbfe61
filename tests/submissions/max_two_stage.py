"""Submissions for `max_two_stage(x, out)`: partial maxima into scratch, then one program; right and wrong."""

import torch
import triton
import triton.language as tl

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


@triton.jit
def max_kernel_atomic(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.atomic_max(out_ptr, tl.max(x, axis=0))


def max_atomic_not_initialised(x, out):
    # Replaces the two stages with tl.atomic_max into out, but
    # BUG: out is not reset to -inf first, so a large stale value in out survives.
    n = x.numel()
    max_kernel_atomic[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [max_two_stage, max_two_stage_scalar_combine]
WRONG = [
    (max_two_stage_other_zero, "wrong_sentinel"),
    (max_two_stage_stage2_first_block_only, "first_tile_only"),
    (max_two_stage_grid_floor_div, "tail_not_processed"),
    (max_atomic_not_initialised, "stale_out"),
]
