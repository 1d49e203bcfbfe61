"""Submissions for `row_sum(x, out)`: one program per row or several rows per program; right and wrong."""

import torch
import triton
import triton.language as tl

from utils.setup import runs_on_gpu

BLOCK_SIZE = 256  # columns per tile


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    row_start = x_ptr + row * stride_row
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(row_start + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)  # fp16 input: add in fp32, which neither overflows nor drifts
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_kernel_scalar_acc(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # Same sum with a scalar accumulator: one tl.sum per tile (of the fp32 tile) instead of one at the end.
    row = tl.program_id(axis=0)
    row_start = x_ptr + row * stride_row
    total = 0.0
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(row_start + cols * stride_col, mask=cols < n_cols, other=0.0)
        total += tl.sum(tile.to(tl.float32), axis=0)
    tl.store(out_ptr + row, total)


def row_sum_scalar_acc(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_scalar_acc[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


BLOCK_ROWS = 4  # rows per program in the multi-row versions (notebook 05, exercise 3)


@triton.jit
def row_block_sum_kernel(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    # A (BLOCK_ROWS, BLOCK_SIZE) tile, masked in both directions, reduced along axis=1.
    rows = tl.program_id(axis=0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows(x, out):
    n_rows, n_cols = x.shape
    row_block_sum_kernel[(triton.cdiv(n_rows, BLOCK_ROWS),)](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=BLOCK_ROWS, BLOCK_SIZE=BLOCK_SIZE
    )


# ---- wrong ----


@triton.jit
def row_sum_kernel_fp16_accumulator(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    row_start = x_ptr + row * stride_row
    acc = tl.zeros((BLOCK_SIZE,), dtype=x_ptr.dtype.element_ty)  # BUG: fp16 input -> fp16 accumulator
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(row_start + cols * stride_col, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_fp16_accumulator(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_fp16_accumulator[(n_rows,)](
        x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


def row_sum_ignores_strides(x, out):
    n_rows, n_cols = x.shape
    # BUG: assumes a contiguous row-major layout; right for x, wrong for x.T or x[:, ::2].
    row_sum_kernel[(n_rows,)](x, out, n_cols, n_cols, 1, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_kernel_missing_row_offset(
    x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    row_start = x_ptr  # BUG: no row * stride_row, every program sums row 0
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(row_start + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_missing_row_offset(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_missing_row_offset[(n_rows,)](
        x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_kernel_single_tile(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)  # BUG: no loop over the columns; only the first tile is summed
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(tile.to(tl.float32), axis=0))


def row_sum_single_tile(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_single_tile[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_kernel_no_col_mask(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    row_start = x_ptr + row * stride_row
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(row_start + cols * stride_col)  # BUG: no mask, the last tile runs past the row
        acc += tile.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_no_col_mask(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_no_col_mask[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_kernel_neg_inf(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        # BUG: other=-inf, a max's padding; every row with a partial last tile sums to -inf
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        acc += tile.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_neg_inf(x, out):
    n_rows, n_cols = x.shape
    block = min(triton.next_power_of_2(n_cols), 1024)
    row_sum_kernel_neg_inf[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=block)


@triton.jit
def row_sum_kernel_whole_tiles(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    row_start = x_ptr + row * stride_row
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    n_tiles = n_cols // BLOCK_SIZE  # BUG: rounded down, the last partial tile is never summed
    for t in range(0, n_tiles):
        cols = t * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(row_start + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_whole_tiles(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel_whole_tiles[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=128)


def row_sum_zeroed_after(x, out):
    n_rows, n_cols = x.shape
    row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)
    out.zero_()  # BUG: a reset left over from an atomic version, after the launch: the sums are wiped


def row_sum_grid_too_small(x, out):
    n_rows, n_cols = x.shape
    grid = (
        triton.cdiv(n_rows, BLOCK_SIZE),
    )  # BUG: the grid of a 1-D tile; the kernel takes a row per program
    row_sum_kernel[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


def row_sum_grid_over_columns(x, out):
    n_rows, n_cols = x.shape
    # BUG: one program per column; program_id(0) is taken as a row, far past the last one
    row_sum_kernel[(n_cols,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


_SUMS_BY_SHAPE = {}


def row_sum_cached_by_shape(x, out):
    # BUG: the sums are kept by shape, so a later input of a shape seen before gets the earlier one's
    key = (tuple(x.shape), x.dtype)
    if key not in _SUMS_BY_SHAPE:
        _SUMS_BY_SHAPE[key] = torch.empty_like(out)
        row_sum(x, _SUMS_BY_SHAPE[key])
    out.copy_(_SUMS_BY_SHAPE[key])


# ---- Unseen round of 2026-12-05 (session 24): written from the notebook by a helper who did not read the
# checker; shown wrong on a column view.
@triton.jit
def row_sum_flat_kernel(x_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_reshaped_flat(x, out):
    """x.reshape(-1) taken for a contiguous copy (row r at r * n_cols): it is a view, not a copy, wherever
    the elements line up with one stride, as an (n, 1) column of a wider matrix does (stride 38 here)."""
    n_rows, n_cols = x.shape
    row_sum_flat_kernel[(n_rows,)](x.reshape(-1), out, n_cols, BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [row_sum, row_sum_scalar_acc, row_sum_rows]
WRONG = [
    (row_sum_fp16_accumulator, "fp16_accumulation"),
    (row_sum_ignores_strides, "ignores_strides"),
    (row_sum_missing_row_offset, "missing_row_offset"),
    (row_sum_single_tile, "first_tile_only"),
    (row_sum_no_col_mask, "out_of_bounds_read"),
    (row_sum_neg_inf, "wrong_sentinel"),
    (row_sum_whole_tiles, "tail_not_processed"),
    (row_sum_zeroed_after, "reset_after_launch"),
    (row_sum_grid_too_small, "missing_rows"),
    (row_sum_cached_by_shape, "earlier_input_reused"),
    (row_sum_reshaped_flat, "ignores_strides"),
]
if not runs_on_gpu():  # on a GPU the far read is an illegal address, which ends the CUDA context
    WRONG.append((row_sum_grid_over_columns, "out_of_bounds_access"))
