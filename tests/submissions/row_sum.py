"""Submissions for `row_sum(x, out)`: one program per row or several rows per program; right and wrong."""

import triton
import triton.language as tl

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
def row_block_sum_kernel_store_without_row_mask(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(axis=0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))  # BUG: no mask, the last tile's extra rows are stored


def row_sum_rows_store_without_row_mask(x, out):
    n_rows, n_cols = x.shape
    row_block_sum_kernel_store_without_row_mask[(triton.cdiv(n_rows, BLOCK_ROWS),)](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=BLOCK_ROWS, BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_block_sum_kernel_single_tile(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(axis=0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_SIZE)  # BUG: no loop over the columns; only the first tile is summed
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(tile.to(tl.float32), axis=1), mask=rows < n_rows)


def row_sum_rows_single_tile(x, out):
    n_rows, n_cols = x.shape
    row_block_sum_kernel_single_tile[(triton.cdiv(n_rows, BLOCK_ROWS),)](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=BLOCK_ROWS, BLOCK_SIZE=BLOCK_SIZE
    )


CORRECT = [row_sum, row_sum_scalar_acc, row_sum_rows]
WRONG = [
    (row_sum_fp16_accumulator, "fp16_accumulation"),
    (row_sum_ignores_strides, "ignores_strides"),
    (row_sum_missing_row_offset, "missing_row_offset"),
    (row_sum_single_tile, "first_tile_only"),
    (row_sum_no_col_mask, "out_of_bounds_read"),
    (row_sum_rows_store_without_row_mask, "out_of_bounds_write"),
    (row_sum_rows_single_tile, "first_tile_only"),
]
