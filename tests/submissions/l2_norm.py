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


CORRECT = [l2_norm, l2_norm_in_out]
WRONG = [
    (l2_square_after_reduce, "transform_after_reduce"),
    (l2_sqrt_per_program, "finish_before_combine"),
    (l2_missing_sqrt, "missing_finish"),
    (l2_out_not_zeroed, "stale_out"),
    (l2_sentinel_one, "wrong_sentinel"),
]
