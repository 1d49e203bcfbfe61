"""Submissions for `sum_atomic(x, out)`: one tl.sum and one tl.atomic_add per program, right and wrong."""

import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_atomic(x, out):
    n = x.numel()
    out.zero_()  # the kernel adds into out, so it must start at 0
    sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def sum_kernel_persistent(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed number of programs, each striding over the tiles; one atomic per program at the end.
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, num_programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def sum_atomic_persistent(x, out, max_programs=8):
    n = x.numel()
    out.zero_()
    grid = (min(triton.cdiv(n, BLOCK_SIZE), max_programs),)
    sum_kernel_persistent[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


# ---- wrong ----


def sum_not_zeroed(x, out):
    # BUG: no out.zero_(); the atomics add onto whatever out held before.
    n = x.numel()
    sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def sum_kernel_sentinel_neg_inf(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))  # BUG: -inf is max's identity, not sum's
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_sentinel_neg_inf(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_sentinel_neg_inf[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def sum_kernel_no_mask(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask, the last tile sums whatever lies past the end of x
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_no_mask(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_no_mask[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def sum_kernel_missing_pid_offset(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program sums the first tile
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_missing_pid_offset(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_missing_pid_offset[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def sum_grid_floor_div(x, out):
    n = x.numel()
    out.zero_()
    grid = (n // BLOCK_SIZE,)  # BUG: rounds down, the partial last tile is never summed
    sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [sum_atomic, sum_atomic_persistent]
WRONG = [
    (sum_not_zeroed, "stale_out"),
    (sum_sentinel_neg_inf, "wrong_sentinel"),
    (sum_no_mask, "out_of_bounds_read"),
    (sum_missing_pid_offset, "missing_program_offset"),
    (sum_grid_floor_div, "tail_not_processed"),
]
