"""Submissions for `sum_atomic(x, out)`: one tl.sum and one tl.atomic_add per program, right and wrong."""

import torch
import triton
import triton.language as tl

from utils.setup import runs_on_gpu

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


def sum_atomic_fitted_block(x, out):
    # One program for a small input (BLOCK_SIZE = next_power_of_2(n)), tiles of 4096 for a large one.
    n = x.numel()
    out.zero_()
    block = min(triton.next_power_of_2(n), 4096)
    sum_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK_SIZE=block)


@triton.jit
def sum_kernel_where(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Masked lanes zeroed with tl.where instead of other=.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.atomic_add(out_ptr, tl.sum(tl.where(mask, x, 0.0), axis=0))


def sum_atomic_where(x, out):
    n = x.numel()
    out.fill_(0.0)
    sum_kernel_where[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)


@triton.jit
def sum_kernel_tiles_per_program(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, TILES: tl.constexpr):
    # Each program sums TILES consecutive tiles into a scalar, then one atomic.
    pid = tl.program_id(axis=0)
    total = 0.0
    for i in tl.static_range(TILES):
        offsets = (pid * TILES + i) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        total += tl.sum(tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0), axis=0)
    tl.atomic_add(out_ptr, total)


def sum_atomic_tiles_per_program(x, out):
    n = x.numel()
    out.zero_()
    grid = (triton.cdiv(n, 4 * 1024),)
    sum_kernel_tiles_per_program[grid](x, out, n, BLOCK_SIZE=1024, TILES=4)


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
def sum_kernel_sentinel_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)  # BUG: 1.0 is the product's identity, not the sum's
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_sentinel_one(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_sentinel_one[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)


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


def sum_grid_of_one(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel[(1,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: one program, and the kernel has no loop


@triton.jit
def sum_kernel_plain_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(x, axis=0))  # BUG: a plain store, every program overwrites out[0]


def sum_plain_store(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_plain_store[(triton.cdiv(n, 2048),)](x, out, n, BLOCK_SIZE=2048)


@triton.jit
def sum_kernel_persistent_tile_step(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    # BUG: steps by one tile, not by the whole grid: program p sums tiles p, p + 1, ... to the end
    for start in range(pid * BLOCK_SIZE, n_elements, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def sum_persistent_tile_step(x, out):
    n = x.numel()
    out.zero_()
    grid = (min(triton.cdiv(n, BLOCK_SIZE), 4),)
    sum_kernel_persistent_tile_step[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def sum_persistent_tile_step_fixed_grid(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_persistent_tile_step[(8,)](x, out, n, BLOCK_SIZE=4096)  # the same bug, on a fixed grid


@triton.jit
def sum_kernel_persistent_plain_store(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(pid * BLOCK_SIZE, n_elements, num_programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))  # BUG: a plain store, the programs' partials are not combined


def sum_persistent_plain_store(x, out):
    n = x.numel()
    out.zero_()
    grid = (min(triton.cdiv(n, BLOCK_SIZE), 8),)
    sum_kernel_persistent_plain_store[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def sum_persistent_plain_store_fixed_grid(x, out):
    # The same bug on a fixed grid of 32 programs of 4096 lanes: on every input of the CPU's battery the
    # last program has no tile left, so out ends at 0.0, as if it were reset after the launch.
    n = x.numel()
    out.zero_()
    sum_kernel_persistent_plain_store[(32,)](x, out, n, BLOCK_SIZE=4096)


@triton.jit
def sum_kernel_fp16_accumulator(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float16)  # BUG: half the bits, to go faster
    for start in range(pid * BLOCK_SIZE, n_elements, num_programs * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0).to(tl.float16)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0).to(tl.float32))


def sum_fp16_accumulator(x, out):
    n = x.numel()
    out.zero_()
    grid = (min(triton.cdiv(n, BLOCK_SIZE), 8),)
    sum_kernel_fp16_accumulator[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def sum_kernel_squares(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x * x, axis=0))  # BUG: copied from the L2 norm, sums x * x


def sum_squares(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel_squares[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def sum_zeroed_after_launch(x, out):
    n = x.numel()
    sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    out.zero_()  # BUG: reset after the launch, which wipes the sum; it belongs before


def sum_on_a_copy(x, out):
    n = x.numel()
    total = torch.zeros_like(out)
    sum_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, total, n, BLOCK_SIZE=BLOCK_SIZE)
    out = total  # BUG: rebinds the name; the caller's out is never written


@triton.jit
def sum_kernel_pid_not_scaled(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) + tl.arange(0, BLOCK_SIZE)  # BUG: pid, not pid * BLOCK_SIZE
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_pid_not_scaled(x, out):
    out.zero_()
    n = x.numel()
    sum_kernel_pid_not_scaled[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)


# An unseen submission of session 20 (h1): every program zeroes out in the kernel, then adds. Its inf case,
# the smallest failing one, has no prediction: it must not end the diagnosis before the others are judged.
@triton.jit
def sum_kernel_zero_every(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(out_ptr, 0.0)  # every program resets out
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def sum_zero_in_kernel_every(x, out):
    sum_kernel_zero_every[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK_SIZE=256)


CORRECT = [
    sum_atomic,
    sum_atomic_persistent,
    sum_atomic_fitted_block,
    sum_atomic_where,
    sum_atomic_tiles_per_program,
]
WRONG = [
    (sum_pid_not_scaled, "missing_program_offset"),
    (sum_not_zeroed, "stale_out"),
    (sum_sentinel_neg_inf, "wrong_sentinel"),
    (sum_sentinel_one, "wrong_sentinel"),
    (sum_no_mask, "out_of_bounds_read"),
    (sum_missing_pid_offset, "missing_program_offset"),
    (sum_grid_floor_div, "tail_not_processed"),
    (sum_grid_of_one, "first_tile_only"),
    (sum_plain_store, "store_race"),
    (sum_persistent_plain_store, "store_race"),
    (sum_persistent_tile_step, "grid_stride_by_tile"),
    (sum_persistent_tile_step_fixed_grid, "grid_stride_by_tile"),
    (sum_fp16_accumulator, "fp16_accumulation"),
    (sum_squares, "summed_squares"),
    (sum_zeroed_after_launch, "zeroed_after_launch"),
    # In the interpreter out is 0.0 on every case, zeroed_after_launch's effect (its sentence names this
    # cause too); on a GPU the large cases keep the last program busy, and any program's store may win.
    (sum_persistent_plain_store_fixed_grid, "store_race" if runs_on_gpu() else "zeroed_after_launch"),
    (sum_on_a_copy, "not_written"),
    (sum_zero_in_kernel_every, "store_race"),
]
