"""Submissions for `vector_add(x, y, out)`: out = x + y, as a learner would write them, right and wrong."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add(x, y, out):
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


def vector_add_meta_grid(x, y, out):
    # The grid as a function of the launch's meta-parameters, as in the Triton tutorials.
    n = x.numel()
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


# ---- wrong ----


@triton.jit
def add_kernel_no_store_mask(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y)  # BUG: the last tile writes past the end of out


def vector_add_no_store_mask(x, y, out):
    n = x.numel()
    add_kernel_no_store_mask[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


def vector_add_grid_floor_div(x, y, out):
    n = x.numel()
    grid = (n // BLOCK_SIZE,)  # BUG: rounds down, the partial last tile gets no program
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def add_kernel_missing_pid_offset(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)  # BUG: no pid * BLOCK_SIZE, every program does the first tile
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add_missing_pid_offset(x, y, out):
    n = x.numel()
    add_kernel_missing_pid_offset[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


def vector_add_returns_result(x, y, out):
    # BUG: computes into a fresh tensor and returns it; the caller's out is never written.
    result = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, result, n, BLOCK_SIZE=BLOCK_SIZE)
    return result


CORRECT = [vector_add, vector_add_meta_grid]
WRONG = [
    (vector_add_no_store_mask, "out_of_bounds_write"),
    (vector_add_grid_floor_div, "tail_not_processed"),
    (vector_add_missing_pid_offset, ("missing_program_offset", "first_tile_only")),  # the same effect
    (vector_add_returns_result, "returned_instead_of_out"),
]
