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


def vector_add_fitted_block(x, y, out):
    # BLOCK_SIZE fitted to small inputs (one program when N <= 2048), capped for large ones.
    n = x.numel()
    block = min(triton.next_power_of_2(n), 2048)
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block, num_warps=8)


@triton.jit
def add_kernel_persistent(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # A fixed grid: each program strides over the tiles pid, pid + num_programs, ...
    pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    n_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    for tile in range(pid, n_tiles, num_programs):
        offsets = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add_persistent(x, y, out):
    n = x.numel()
    add_kernel_persistent[(4,)](x, y, out, n, BLOCK_SIZE=512)


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


@triton.jit
def add_kernel_no_mask(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # BUG: no mask anywhere: the last tile reads and writes past the end
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)


def vector_add_no_mask(x, y, out):
    n = x.numel()
    add_kernel_no_mask[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def add_kernel_mask_le(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets <= n_elements  # BUG: <= lets offset n through, one element past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add_mask_le(x, y, out):
    n = x.numel()
    add_kernel_mask_le[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


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


def vector_add_grid_of_one(x, y, out):
    n = x.numel()
    block = min(triton.next_power_of_2(n), 4096)
    add_kernel[(1,)](x, y, out, n, BLOCK_SIZE=block)  # BUG: one program: only the first tile is added


@triton.jit
def add_kernel_x_twice(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(x_ptr + offsets, mask=mask)  # BUG: copy-pasted load still reads x_ptr
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add_x_twice(x, y, out):
    n = x.numel()
    add_kernel_x_twice[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def add_kernel_y_forgotten(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    out = x
    out + y  # BUG: the sum is computed and dropped; out is still x
    tl.store(out_ptr + offsets, out, mask=mask)


def vector_add_y_forgotten(x, y, out):
    n = x.numel()
    add_kernel_y_forgotten[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def add_kernel_half(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float16)  # BUG: "fp16 is faster": rounds every input
    y = tl.load(y_ptr + offsets, mask=mask).to(tl.float16)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add_half(x, y, out):
    n = x.numel()
    add_kernel_half[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def add_kernel_in_place(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(x_ptr + offsets, x + y, mask=mask)  # BUG: x += y in place, out never written


def vector_add_in_place(x, y, out):
    n = x.numel()
    add_kernel_in_place[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)


def vector_add_returns_result(x, y, out):
    # BUG: computes into a fresh tensor and returns it; the caller's out is never written.
    result = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, result, n, BLOCK_SIZE=BLOCK_SIZE)
    return result


def vector_add_grid_for_another_block(x, y, out):
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)  # BUG: sized for tiles of 1024, but the kernel's tiles are 256
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=256)


CORRECT = [vector_add, vector_add_meta_grid, vector_add_fitted_block, vector_add_persistent]
WRONG = [
    (vector_add_grid_for_another_block, "grid_block_mismatch"),
    (vector_add_no_store_mask, "out_of_bounds_write"),
    (vector_add_no_mask, "out_of_bounds_write"),  # the values in out are right: only the canaries show
    (vector_add_mask_le, "out_of_bounds_write"),
    (vector_add_grid_floor_div, "tail_not_processed"),
    (vector_add_missing_pid_offset, "first_tile_only"),  # its sentence names both causes
    (vector_add_grid_of_one, "first_tile_only"),  # its sentence names both causes
    (vector_add_x_twice, "input_used_twice"),
    (vector_add_y_forgotten, "input_ignored"),
    (vector_add_half, "float16_round_trip"),
    (vector_add_in_place, ("input_modified", "not_written")),
    (vector_add_returns_result, "returned_instead_of_out"),
]
