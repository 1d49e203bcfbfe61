"""Submissions for `l1_norm(x, out)`: tl.abs inside the reduction, one atomic per program; right and wrong."""

import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def abs_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x), axis=0))


def l1_norm(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_persistent(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.abs(tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0))
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def l1_norm_persistent(x, out, programs=24):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_persistent[(min(programs, triton.cdiv(n, 256)),)](x, out, n, BLOCK_SIZE=256)


# ---- wrong ----


@triton.jit
def abs_after_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.abs(tl.sum(x, axis=0)))  # BUG: |sum x| per tile, not sum |x|


def l1_abs_after_sum(x, out):
    n = x.numel()
    out.zero_()
    abs_after_sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_other_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=1.0)  # BUG: each masked lane adds 1
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x), axis=0))


def l1_other_one(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_other_one[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def l1_out_not_zeroed(x, out):
    n = x.numel()
    abs_sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: no out.zero_()


def l1_grid_floor(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel[(n // BLOCK_SIZE,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: the last partial tile is lost


CORRECT = [l1_norm, l1_norm_persistent]
WRONG = [
    (l1_abs_after_sum, "transform_after_reduce"),
    (l1_other_one, "wrong_sentinel"),
    (l1_out_not_zeroed, "stale_out"),
    (l1_grid_floor, "tail_not_processed"),
]
