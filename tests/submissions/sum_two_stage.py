"""Submissions for `sum_two_stage(x, out)`: per-program partials, then one program sums them."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # elements per stage-1 program
PARTIALS_BLOCK = 32  # partials per step of the stage-2 loop (small, so the loop matters from N > 32768)


@triton.jit
def partial_sum_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def sum_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program: walk the partials in blocks, always in the same order, so the result is reproducible.
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def sum_two_stage(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_persistent(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed number of programs, each striding over the tiles and storing one partial.
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, num_programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


def sum_two_stage_persistent(x, out, max_programs=40):
    n = x.numel()
    n_partials = min(triton.cdiv(n, BLOCK_SIZE), max_programs)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_persistent[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


# ---- wrong ----


@triton.jit
def sum_partials_kernel_first_block_only(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # BUG: no loop; only the first BLOCK_SIZE partials are summed.
    offsets = tl.arange(0, BLOCK_SIZE)
    partials = tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))


def sum_two_stage_stage2_first_block_only(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel_first_block_only[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_sentinel_one(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)  # BUG: 1.0 is the product's identity, not the sum's
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


def sum_two_stage_sentinel_one(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_sentinel_one[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


def sum_two_stage_grid_floor_div(x, out):
    n = x.numel()
    n_partials = n // BLOCK_SIZE  # BUG: rounds down, the partial last tile is never summed
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


@triton.jit
def partial_sum_kernel_missing_pid_offset(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program sums the first tile
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x, axis=0))


def sum_two_stage_missing_pid_offset(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, BLOCK_SIZE)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    partial_sum_kernel_missing_pid_offset[(n_partials,)](x, partials, n, BLOCK_SIZE=BLOCK_SIZE)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=PARTIALS_BLOCK)


CORRECT = [sum_two_stage, sum_two_stage_persistent]
WRONG = [
    (sum_two_stage_stage2_first_block_only, "first_tile_only"),
    (sum_two_stage_sentinel_one, "wrong_sentinel"),
    (sum_two_stage_grid_floor_div, "tail_not_processed"),
    (sum_two_stage_missing_pid_offset, "missing_program_offset"),
]
