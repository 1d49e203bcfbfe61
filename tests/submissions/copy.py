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


def copy_rebinds_out(x, out):
    # BUG: `out = ...` only rebinds the local name; the caller's tensor is never written.
    out = x.clone()
    return out


CORRECT = [copy]
WRONG = [
    (copy_no_store_mask, "out_of_bounds_write"),
    (copy_grid_floor_div, "tail_not_processed"),
    (copy_missing_pid_offset, ("missing_program_offset", "first_tile_only")),  # the same effect
    (copy_rebinds_out, "returned_instead_of_out"),
]
