"""Submissions for `max_single_tile(x, out)`: one program holds the whole array and takes tl.max."""

import triton
import triton.language as tl


@triton.jit
def max_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(out_ptr, tl.max(x, axis=0))


def max_single_tile(x, out):
    n = x.numel()
    max_kernel[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


@triton.jit
def max_kernel_where(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Same result, with the padding made explicit: lanes past the end become -inf before the max.
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x = tl.where(mask, x, float("-inf"))
    tl.store(out_ptr, tl.max(x, axis=0))


def max_single_tile_where(x, out):
    n = x.numel()
    max_kernel_where[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


# ---- wrong ----


@triton.jit
def max_kernel_other_zero(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)  # BUG: 0.0 wins whenever every value is negative
    tl.store(out_ptr, tl.max(x, axis=0))


def max_other_zero(x, out):
    n = x.numel()
    max_kernel_other_zero[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


def max_fixed_block(x, out):
    n = x.numel()
    # BUG: a fixed tile of 1024 lanes; with one program, everything past the first tile is ignored.
    max_kernel[(1,)](x, out, n, BLOCK_SIZE=1024)


@triton.jit
def max_kernel_no_mask(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask, the lanes past n read whatever follows x in memory
    tl.store(out_ptr, tl.max(x, axis=0))


def max_no_mask(x, out):
    n = x.numel()
    max_kernel_no_mask[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


def max_block_not_power_of_two(x, out):
    n = x.numel()
    # BUG: tl.arange needs a power-of-two length; BLOCK_SIZE=n fails for most n.
    max_kernel[(1,)](x, out, n, BLOCK_SIZE=n)


CORRECT = [max_single_tile, max_single_tile_where]
WRONG = [
    (max_other_zero, "wrong_sentinel"),
    (max_fixed_block, "first_tile_only"),
    (max_no_mask, "out_of_bounds_read"),
    (max_block_not_power_of_two, "exception"),
]
