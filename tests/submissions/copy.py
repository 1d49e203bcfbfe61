"""Submissions for `copy(x, out)`: out = x, the worked example of notebook 01; right and wrong."""

import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def copy(x, out):
    n = x.numel()
    copy_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def copy_small_blocks(x, out):
    # Another block size: 256 lanes a program, four times as many programs.
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256, num_warps=2)


def copy_fitted_block(x, out):
    # BLOCK_SIZE fitted to small inputs (one program when N <= 4096), capped for large ones.
    n = x.numel()
    block = min(triton.next_power_of_2(n), 4096)
    copy_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK_SIZE=block)


@triton.jit
def copy_kernel_persistent(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed grid: each program strides over the tiles pid, pid + num_programs, ...
    for start in range(tl.program_id(0) * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def copy_persistent(x, out):
    n = x.numel()
    programs = min(8, triton.cdiv(n, 512))
    copy_kernel_persistent[(programs,)](x, out, n, BLOCK_SIZE=512)


# ---- wrong ----


@triton.jit
def copy_kernel_no_store_mask(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask))  # BUG: writes past the end of out


def copy_no_store_mask(x, out):
    n = x.numel()
    copy_kernel_no_store_mask[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def copy_kernel_mask_le(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets <= n_elements  # BUG: <= lets offset n through, one element past the end
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def copy_mask_le(x, out):
    n = x.numel()
    copy_kernel_mask_le[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def copy_grid_floor_div(x, out):
    n = x.numel()
    grid = (n // BLOCK_SIZE,)  # BUG: rounds down, the partial last tile gets no program
    copy_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def copy_kernel_missing_pid_offset(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program copies the first tile
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def copy_missing_pid_offset(x, out):
    n = x.numel()
    copy_kernel_missing_pid_offset[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def copy_grid_of_one(x, out):
    n = x.numel()
    copy_kernel[(1,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # BUG: one program copies only the first tile


@triton.jit
def copy_kernel_through_float16(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float16)  # BUG: "half the bytes": rounds every value
    tl.store(out_ptr + offsets, x, mask=mask)


def copy_through_float16(x, out):
    n = x.numel()
    copy_kernel_through_float16[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def copy_kernel_through_bfloat16(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x.to(tl.bfloat16), mask=mask)  # BUG: rounds every value to bfloat16


def copy_through_bfloat16(x, out):
    n = x.numel()
    copy_kernel_through_bfloat16[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def copy_kernel_stores_into_x(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)  # BUG: x_ptr, not out_ptr


def copy_stores_into_x(x, out):
    n = x.numel()
    copy_kernel_stores_into_x[(triton.cdiv(n, BLOCK_SIZE),)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)


def copy_arguments_swapped(x, out):
    n = x.numel()
    # BUG: out and x swapped: the kernel copies out's old contents into x
    copy_kernel[(triton.cdiv(n, BLOCK_SIZE),)](out, x, n, BLOCK_SIZE=BLOCK_SIZE)


def copy_rebinds_out(x, out):
    # BUG: `out = ...` only rebinds the local name; the caller's tensor is never written.
    out = x.clone()
    return out


def copy_not_launched(x, out):
    n = x.numel()
    copy_kernel[(triton.cdiv(n, BLOCK_SIZE),)]  # BUG: the launch is never called: no (x, out, n, ...)


@triton.jit
def copy_kernel_last_dropped(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements - 1  # BUG: one short
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def copy_last_dropped(x, out):
    n = x.numel()
    copy_kernel_last_dropped[(triton.cdiv(n, 512),)](x, out, n, BLOCK_SIZE=512)


CORRECT = [copy, copy_small_blocks, copy_fitted_block, copy_persistent]
WRONG = [
    (copy_last_dropped, "last_element_dropped"),
    (copy_no_store_mask, "out_of_bounds_write"),
    (copy_mask_le, "out_of_bounds_write"),
    (copy_grid_floor_div, "tail_not_processed"),
    (copy_missing_pid_offset, "first_tile_only"),  # its sentence names both causes
    (copy_grid_of_one, "first_tile_only"),  # its sentence names both causes
    (copy_through_float16, "float16_round_trip"),
    (copy_through_bfloat16, "float16_round_trip"),
    (copy_stores_into_x, "not_written"),  # x keeps its values: only out shows the mistake
    (copy_arguments_swapped, ("input_modified", "not_written")),
    (copy_rebinds_out, "returned_instead_of_out"),
    (copy_not_launched, "not_written"),
]
