"""Submissions for `l2_norm(x, out)`: square inside the reduction, atomics, sqrt after; right and wrong."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def sum_of_squares_kernel(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x * x, axis=0))


def l2_norm(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    sum_of_squares_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, scratch, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.sqrt(scratch))


def l2_norm_in_out(x, out):
    # No scratch: accumulate straight into the zeroed out, then take the sqrt in place.
    n = x.numel()
    out.zero_()
    sum_of_squares_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    out.sqrt_()


@triton.jit
def sum_of_squares_partial_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x * x, axis=0))


@triton.jit
def sqrt_of_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    # One program adds the partials in a fixed order and takes the sqrt once, at the end.
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sqrt(tl.sum(acc, axis=0)))


def l2_norm_two_stage(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, 2048)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    sum_of_squares_partial_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=2048)
    sqrt_of_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=16)


@triton.jit
def sum_of_squares_kernel_persistent(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
        acc += x * x
    tl.atomic_add(acc_ptr, tl.sum(acc, axis=0))


def l2_norm_persistent(x, out, programs=12):
    n = x.numel()
    block = min(triton.next_power_of_2(n), 2048)
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    grid = (min(programs, triton.cdiv(n, block)),)
    sum_of_squares_kernel_persistent[grid](x, scratch, n, BLOCK_SIZE=block)
    out.copy_(scratch.sqrt())


# ---- wrong ----


@triton.jit
def l2_kernel_square_after_reduce(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tile_sum = tl.sum(x, axis=0)
    tl.atomic_add(acc_ptr, tile_sum * tile_sum)  # BUG: (sum x)^2, not sum(x^2)


def l2_square_after_reduce(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    l2_kernel_square_after_reduce[(triton.cdiv(n, BLOCK_SIZE),)](x, scratch, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.sqrt(scratch))


@triton.jit
def l2_kernel_sqrt_per_program(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(acc_ptr, tl.sqrt(tl.sum(x * x, axis=0)))  # BUG: sqrt(a) + sqrt(b) != sqrt(a + b)


def l2_sqrt_per_program(x, out):
    n = x.numel()
    out.zero_()
    l2_kernel_sqrt_per_program[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def l2_missing_sqrt(x, out):
    n = x.numel()
    out.zero_()
    sum_of_squares_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    # BUG: no out.sqrt_(): out holds the sum of squares


def l2_out_not_zeroed(x, out):
    n = x.numel()
    # BUG: no out.zero_(); the atomics add onto whatever out held before.
    sum_of_squares_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    out.sqrt_()


@triton.jit
def l2_kernel_sentinel_one(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)  # BUG: each padding lane adds 1.0^2
    tl.atomic_add(acc_ptr, tl.sum(x * x, axis=0))


def l2_sentinel_one(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    l2_kernel_sentinel_one[(triton.cdiv(n, BLOCK_SIZE),)](x, scratch, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.sqrt(scratch))


@triton.jit
def sum_of_squares_kernel_store(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(acc_ptr, tl.sum(x * x, axis=0))  # BUG: every program overwrites the one scratch element


def l2_plain_store(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    sum_of_squares_kernel_store[(triton.cdiv(n, BLOCK_SIZE),)](x, scratch, n, BLOCK_SIZE=BLOCK_SIZE)
    out.copy_(torch.sqrt(scratch))


def l2_grid_floor(x, out):
    n = x.numel()
    out.zero_()
    # BUG: n // BLOCK_SIZE programs: the partial last tile is never read
    sum_of_squares_kernel[(n // BLOCK_SIZE,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    out.sqrt_()


@triton.jit
def sum_of_squares_kernel_no_pid(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program squares the first tile
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x * x, axis=0))


def l2_missing_pid_offset(x, out):
    n = x.numel()
    out.zero_()
    sum_of_squares_kernel_no_pid[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)
    out.sqrt_()


def l2_grid_of_one(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    sum_of_squares_kernel[(1,)](x, scratch, n, BLOCK_SIZE=4096)  # BUG: one program and no loop
    out.copy_(torch.sqrt(scratch))


@triton.jit
def plain_sum_kernel(x_ptr, acc_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x, axis=0))  # BUG: x, not x * x


def l2_not_squared(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    plain_sum_kernel[(triton.cdiv(n, 512),)](x, scratch, n, BLOCK_SIZE=512)
    out.copy_(torch.sqrt(scratch))  # NaN where the sum is negative


# ---- Unseen round of 2026-12-05 (session 22): written from the notebook alone, by a helper who
# did not read the checker; each wrong one was shown wrong on an input the exercise allows.
@triton.jit
def l2_sumsq_kernel(x_ptr, scratch_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(scratch_ptr, tl.sum(x * x, axis=0))


def l2_norm_rsqrt_finish(x, out):
    n = x.numel()
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    l2_sumsq_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
    out.copy_(scratch * torch.rsqrt(scratch))


def l2_norm_single_element_shortcut(x, out):
    n = x.numel()
    if n == 1:
        out.copy_(x.reshape(1))  # "the norm of one number is that number"
        return
    scratch = torch.zeros(1, dtype=torch.float32, device=x.device)
    l2_sumsq_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
    out.copy_(torch.sqrt(scratch))


CORRECT = [l2_norm, l2_norm_in_out, l2_norm_two_stage, l2_norm_persistent]
WRONG = [
    (l2_square_after_reduce, "transform_after_reduce"),
    (l2_sqrt_per_program, "finish_before_combine"),
    (l2_missing_sqrt, "missing_finish"),
    (l2_out_not_zeroed, "stale_out"),
    (l2_sentinel_one, "wrong_sentinel"),
    (l2_plain_store, "store_race"),
    (l2_grid_floor, "tail_not_processed"),
    # Every program squaring the first tile is the first tile times the grid: a sample, rescaled.
    (l2_missing_pid_offset, "missing_program_offset"),
    (l2_grid_of_one, "first_tile_only"),
    (l2_not_squared, "missing_transform"),
    (l2_norm_rsqrt_finish, "produced_nan"),
    (l2_norm_single_element_shortcut, "wrong_values"),
]
