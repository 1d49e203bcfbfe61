"""Submissions for `l1_norm(x, out)`: tl.abs inside the reduction, one atomic per program; right and wrong."""

import torch
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


@triton.jit
def abs_partial_kernel(x_ptr, partials_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(tl.abs(x), axis=0))


@triton.jit
def sum_partials_kernel(partials_ptr, out_ptr, n_partials, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(partials_ptr + offsets, mask=offsets < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def l1_norm_two_stage(x, out):
    # No atomics: one partial per program into scratch, then one program adds them up in a fixed order.
    n = x.numel()
    block = 512
    n_partials = triton.cdiv(n, block)
    partials = torch.empty(n_partials, dtype=torch.float32, device=x.device)
    abs_partial_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=block)
    sum_partials_kernel[(1,)](partials, out, n_partials, BLOCK_SIZE=64)


def l1_norm_fitted_block(x, out):
    # BLOCK_SIZE from the input: one tile when N is small, tiles of 4096 past it.
    n = x.numel()
    block = min(triton.next_power_of_2(n), 4096)
    out.zero_()
    abs_sum_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK_SIZE=block)


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


@triton.jit
def sum_kernel_no_abs(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # BUG: no tl.abs, negative values cancel positive ones


def l1_no_abs(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_no_abs[(triton.cdiv(n, 2048),)](x, out, n, BLOCK_SIZE=2048)


@triton.jit
def sum_of_squares_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))  # BUG: x * x makes every value positive, but it is no abs


def l1_squares(x, out):
    n = x.numel()
    out.zero_()
    sum_of_squares_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_fp16_acc(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # BUG: a float16 accumulator, to "save registers": 11 significant bits, and inf past 65504
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float16)
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
        acc += tl.abs(x).to(tl.float16)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def l1_fp16_accumulator(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_fp16_acc[(min(8, triton.cdiv(n, 256)),)](x, out, n, BLOCK_SIZE=256)


@triton.jit
def abs_sum_kernel_fp16_load(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # BUG: the tile is converted to float16 (half the bytes), so tl.sum adds it up in float16 too
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0).to(tl.float16)
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x), axis=0))


def l1_fp16_load(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_fp16_load[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def l1_fp16_scratch(x, out):
    n = x.numel()
    total = torch.zeros(1, dtype=torch.float16, device=x.device)  # BUG: the atomics add up in float16
    abs_sum_kernel[(triton.cdiv(n, 512),)](x, total, n, BLOCK_SIZE=512)
    out.copy_(total)


@triton.jit
def abs_sum_kernel_sampled(x_ptr, out_ptr, n_elements, STRIDE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # BUG: a quick estimate, every STRIDE-th element times STRIDE, is not the L1 norm
    offsets = (tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)) * STRIDE
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, STRIDE * tl.sum(tl.abs(x), axis=0))


def l1_sampled(x, out):
    n = x.numel()
    out.zero_()
    grid = (triton.cdiv(n, 4 * BLOCK_SIZE),)
    abs_sum_kernel_sampled[grid](x, out, n, STRIDE=4, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_pairs(x_ptr, out_ptr, n_pairs, BLOCK_SIZE: tl.constexpr):
    # Two elements per lane: x[2i] and x[2i + 1].
    pairs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = pairs < n_pairs
    even = tl.load(x_ptr + 2 * pairs, mask=mask, other=0.0)
    odd = tl.load(x_ptr + 2 * pairs + 1, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.abs(even) + tl.abs(odd), axis=0))


def l1_pairs(x, out):
    n = x.numel()
    n_pairs = n // 2  # BUG: when n is odd, the last element belongs to no pair
    out.zero_()
    abs_sum_kernel_pairs[(triton.cdiv(n_pairs, 512),)](x, out, n_pairs, BLOCK_SIZE=512)


@triton.jit
def abs_sum_kernel_mask_off_by_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements - 1, other=0.0)  # BUG: n - 1 drops x[n - 1]
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x), axis=0))


def l1_mask_off_by_one(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_mask_off_by_one[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_int(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x.to(tl.int32)), axis=0))  # BUG: the cast drops the fractions


def l1_int_cast(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_int[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def l1_int_partials(x, out):
    n = x.numel()
    n_partials = triton.cdiv(n, 1024)
    partials = torch.empty(n_partials, dtype=torch.int32, device=x.device)  # BUG: each partial truncated
    abs_partial_kernel[(n_partials,)](x, partials, n, BLOCK_SIZE=1024)
    out.copy_(partials.sum())


@triton.jit
def abs_sum_kernel_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(out_ptr, tl.sum(tl.abs(x), axis=0))  # BUG: every program overwrites out[0]


def l1_plain_store(x, out):
    n = x.numel()
    abs_sum_kernel_store[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def abs_sum_kernel_no_pid(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program reads the first tile
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(tl.abs(x), axis=0))


def l1_missing_pid_offset(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel_no_pid[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def l1_grid_of_one(x, out):
    n = x.numel()
    out.zero_()
    abs_sum_kernel[(1,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: one program, no loop: the first tile only


CORRECT = [l1_norm, l1_norm_persistent, l1_norm_two_stage, l1_norm_fitted_block]
WRONG = [
    (l1_abs_after_sum, "transform_after_reduce"),
    (l1_other_one, "wrong_sentinel"),
    (l1_out_not_zeroed, "stale_out"),
    (l1_grid_floor, "tail_not_processed"),
    (l1_no_abs, "missing_abs"),
    (l1_squares, "squares_instead_of_abs"),
    (l1_fp16_accumulator, "fp16_accumulation"),
    (l1_fp16_load, "fp16_accumulation"),
    (l1_fp16_scratch, "fp16_accumulation"),
    (l1_sampled, "sampled_input"),
    # Pairs leave out x[n - 1] exactly when a grid rounded down to tiles of 2 would: the same effect.
    (l1_pairs, ("last_element_dropped", "tail_not_processed")),
    (l1_mask_off_by_one, "last_element_dropped"),
    (l1_int_cast, "integer_truncation"),
    (l1_int_partials, "integer_truncation"),
    (l1_plain_store, "store_race"),
    # Every program summing the first tile is the first tile times the grid: a sample, rescaled.
    (l1_missing_pid_offset, "missing_program_offset"),
    (l1_grid_of_one, "first_tile_only"),
]
