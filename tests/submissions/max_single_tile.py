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


@triton.jit
def max_kernel_loop(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Still one program, but it walks the array in tiles with a running elementwise maximum.
    running = tl.full((BLOCK_SIZE,), float("-inf"), dtype=tl.float32)
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
        running = tl.maximum(running, x)
    tl.store(out_ptr, tl.max(running, axis=0))


def max_single_tile_loop(x, out):
    max_kernel_loop[(1,)](x, out, x.numel(), BLOCK_SIZE=4096)


@triton.jit
def max_kernel_scalar_loop(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # One program, a scalar running maximum: one tl.max per tile of 1024.
    result = float("-inf")
    for start in range(0, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements)
        result = tl.maximum(result, tl.max(tl.where(offsets < n_elements, x, float("-inf")), axis=0))
    tl.store(out_ptr, result)


def max_single_tile_scalar_loop(x, out):
    max_kernel_scalar_loop[(1,)](x, out, x.numel(), BLOCK_SIZE=1024)


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


@triton.jit
def max_kernel_other_inf(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("inf"))  # BUG: +inf, the min's identity
    tl.store(out_ptr, tl.max(x, axis=0))


def max_other_inf(x, out):
    n = x.numel()
    max_kernel_other_inf[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


def max_capped_block(x, out):
    n = x.numel()
    # BUG: the block is capped at 4096 lanes, but there is still one program and no loop.
    max_kernel[(1,)](x, out, n, BLOCK_SIZE=min(triton.next_power_of_2(n), 4096))


@triton.jit
def max_kernel_mask_off_by_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets <= n_elements  # BUG: <= lets lane n read the element just past the end
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(out_ptr, tl.max(x, axis=0))


def max_mask_off_by_one(x, out):
    n = x.numel()
    max_kernel_mask_off_by_one[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


@triton.jit
def max_kernel_zeros_accumulator(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)  # BUG: a running max must start at -inf, not 0
    acc = tl.maximum(acc, x)
    tl.store(out_ptr, tl.max(acc, axis=0))


def max_zeros_accumulator(x, out):
    n = x.numel()
    max_kernel_zeros_accumulator[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


@triton.jit
def max_kernel_uses_min(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(out_ptr, tl.min(x, axis=0))  # BUG: tl.min, copied from the min exercise


def max_uses_min(x, out):
    n = x.numel()
    max_kernel_uses_min[(1,)](x, out, n, BLOCK_SIZE=triton.next_power_of_2(n))


@triton.jit
def max_kernel_tiles(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(out_ptr, tl.max(x, axis=0))  # BUG: a plain store from every program: the last one wins


def max_several_programs_store(x, out):
    n = x.numel()
    max_kernel_tiles[(triton.cdiv(n, 2048),)](x, out, n, BLOCK_SIZE=2048)


@triton.jit
def max_kernel_partials(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.store(out_ptr + pid, tl.max(x, axis=0))  # BUG: one partial per program, into out of one element


def max_partials_into_out(x, out):
    n = x.numel()
    max_kernel_partials[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)


@triton.jit
def max_kernel_other(x_ptr, out_ptr, n_elements, OTHER: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=OTHER)
    tl.store(out_ptr, tl.max(x, axis=0))


def max_finite_other(x, out):
    # BUG: a finite stand-in for -inf; an input whose values all lie below it returns -1e30
    n = x.numel()
    max_kernel_other[(1,)](x, out, n, OTHER=-1e30, BLOCK_SIZE=triton.next_power_of_2(n))


def max_block_of_n_minus_one(x, out):
    # BUG: the tile is sized for n - 1 elements: for n = 2^k + 1 it covers 2^k, and the last is left out
    n = x.numel()
    block = triton.next_power_of_2(max(n - 1, 1))
    max_kernel[(1,)](x, out, n, BLOCK_SIZE=block)


CORRECT = [max_single_tile, max_single_tile_where, max_single_tile_loop, max_single_tile_scalar_loop]
WRONG = [
    (max_other_zero, "wrong_sentinel"),
    (max_other_inf, "wrong_sentinel"),
    (max_fixed_block, "first_tile_only"),
    (max_capped_block, "first_tile_only"),
    (max_no_mask, "out_of_bounds_read"),
    (max_mask_off_by_one, "out_of_bounds_read"),
    (max_zeros_accumulator, "wrong_initial_value"),
    (max_uses_min, "opposite_reduction"),
    (max_several_programs_store, "store_race"),
    # Out holds the first program's partial, and the others' were written past its end.
    (max_partials_into_out, ("out_of_bounds_write", "first_tile_only")),
    (max_block_not_power_of_two, "exception"),
    (max_finite_other, "wrong_values"),
    (max_block_of_n_minus_one, "tail_not_processed"),
]
