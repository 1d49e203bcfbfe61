"""Submissions for `row_sum_rows(x, out, BLOCK_ROWS=None, BLOCK_SIZE=None, num_warps=4)`: several rows per
program in a (BLOCK_ROWS, BLOCK_SIZE) tile. All but the first take the tile a call asks for as **tile and
keep their own: the checker calls once with BLOCK_ROWS=2, and the sums do not depend on the tile."""

import triton
import triton.language as tl

from utils.setup import runs_on_gpu


@triton.jit
def row_block_sum_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_row,
    stride_col,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    UNMASKED: tl.constexpr = False,  # True: a wrong submission's (row_sum_rows_even_columns_unmasked)
):
    # Notebook 05, exercise 3: a 2-D tile masked in both directions, reduced along axis=1.
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        ptrs = x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col
        tile = tl.load(ptrs) if UNMASKED else tl.load(ptrs, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    if UNMASKED:
        tl.store(out_ptr + rows, tl.sum(acc, axis=1))
    else:
        tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows(x, out, BLOCK_ROWS=None, BLOCK_SIZE=None, num_warps=4, unmasked=lambda n_cols, block: False):
    BLOCK_ROWS = BLOCK_ROWS or 4
    BLOCK_SIZE = BLOCK_SIZE or 256
    n_rows, n_cols = x.shape
    row_block_sum_kernel[(triton.cdiv(n_rows, BLOCK_ROWS),)](
        x,
        out,
        n_rows,
        n_cols,
        x.stride(0),
        x.stride(1),
        BLOCK_ROWS=BLOCK_ROWS,
        BLOCK_SIZE=BLOCK_SIZE,
        UNMASKED=unmasked(n_cols, BLOCK_SIZE),
        num_warps=num_warps,
    )


def row_sum_rows_wide_tile(x, out, **tile):
    # More rows per program, and a tile as wide as the row up to 1024 columns (one trip for short rows).
    row_sum_rows(x, out, BLOCK_ROWS=16, BLOCK_SIZE=min(triton.next_power_of_2(x.shape[1]), 1024))


@triton.jit
def row_block_sum_kernel_persistent(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    # A fixed number of programs, each walking over row blocks; one partial per row, summed per tile.
    n_blocks = tl.cdiv(n_rows, BLOCK_ROWS)
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        rows = block * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
        total = tl.zeros((BLOCK_ROWS,), dtype=tl.float32)
        for col_offset in range(0, n_cols, BLOCK_SIZE):
            cols = col_offset + tl.arange(0, BLOCK_SIZE)
            mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
            offsets = rows[:, None] * stride_row + cols[None, :] * stride_col
            tile = tl.load(x_ptr + offsets, mask=mask, other=0.0)
            total += tl.sum(tile.to(tl.float32), axis=1)
        tl.store(out_ptr + rows, total, mask=rows < n_rows)


def row_sum_rows_persistent(x, out, **tile):
    n_rows, n_cols = x.shape
    grid = (min(triton.cdiv(n_rows, 8), 4),)
    row_block_sum_kernel_persistent[grid](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=8, BLOCK_SIZE=512
    )


# ---- wrong ----


def _launch(kernel, x, out, grid=None, BLOCK_ROWS=4, BLOCK_SIZE=256):
    n_rows, n_cols = x.shape
    grid = grid or (triton.cdiv(n_rows, BLOCK_ROWS),)
    kernel[grid](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=BLOCK_ROWS, BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_block_sum_kernel_no_row_mask_on_store(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))  # BUG: no mask; the last block's extra rows are stored


def row_sum_rows_no_row_mask_on_store(x, out, **tile):
    _launch(row_block_sum_kernel_no_row_mask_on_store, x, out)


@triton.jit
def row_block_sum_kernel_single_tile(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_SIZE)  # BUG: no loop over the columns; only the first tile is summed
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(tile.to(tl.float32), axis=1), mask=rows < n_rows)


def row_sum_rows_single_tile(x, out, **tile):
    _launch(row_block_sum_kernel_single_tile, x, out)


@triton.jit
def row_block_sum_kernel_fp16(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=x_ptr.dtype.element_ty)  # BUG: fp16 in, fp16 sums
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows_fp16(x, out, **tile):
    _launch(row_block_sum_kernel_fp16, x, out)


def row_sum_rows_contiguous_only(x, out, **tile):
    n_rows, n_cols = x.shape
    # BUG: strides of a contiguous row-major x; x.T or x[:, ::2] are read wrongly
    row_block_sum_kernel[(triton.cdiv(n_rows, 4),)](
        x, out, n_rows, n_cols, n_cols, 1, BLOCK_ROWS=4, BLOCK_SIZE=256
    )


@triton.jit
def row_block_sum_kernel_neg_inf(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        offsets = rows[:, None] * stride_row + cols[None, :] * stride_col
        tile = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))  # BUG: a max's padding in a sum
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows_neg_inf(x, out, **tile):
    _launch(row_block_sum_kernel_neg_inf, x, out, BLOCK_SIZE=min(triton.next_power_of_2(x.shape[1]), 512))


@triton.jit
def row_block_sum_kernel_whole_tiles(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols - BLOCK_SIZE + 1, BLOCK_SIZE):  # BUG: stops before a partial tile
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows_whole_tiles(x, out, **tile):
    _launch(row_block_sum_kernel_whole_tiles, x, out, BLOCK_SIZE=64)


@triton.jit
def row_block_sum_kernel_tile_total(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc), mask=rows < n_rows)  # BUG: no axis=1; the whole tile's sum


def row_sum_rows_tile_total(x, out, **tile):
    _launch(row_block_sum_kernel_tile_total, x, out)


@triton.jit
def row_block_sum_kernel_overlapping_rows(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) + tl.arange(0, BLOCK_ROWS)  # BUG: pid, not pid * BLOCK_ROWS: blocks overlap
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows_overlapping_rows(x, out, **tile):
    _launch(row_block_sum_kernel_overlapping_rows, x, out, BLOCK_ROWS=8)


def row_sum_rows_grid_rounded_down(x, out, **tile):
    n_rows = x.shape[0]
    # BUG: n_rows // BLOCK_ROWS programs: the last rows, past a whole block, are never summed
    _launch(row_block_sum_kernel, x, out, grid=(n_rows // 4,))


def row_sum_rows_block_rows_not_power_of_two(x, out, **tile):
    _launch(row_block_sum_kernel, x, out, BLOCK_ROWS=3)  # BUG: tl.arange needs a power of two


@triton.jit
def row_block_sum_kernel_no_col_mask(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_offset in range(0, n_cols, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        mask = rows[:, None] < n_rows  # BUG: the row mask only; the last tile reads past each row's end
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_rows_no_col_mask(x, out, **tile):
    _launch(row_block_sum_kernel_no_col_mask, x, out)


# ---- Unseen round of 2026-12-05 (session 24): written from the notebook by a helper who did not read the
# checker. Where the tile divides the row, no mask at all: the rows' mask goes with the columns', and the
# rows (9) are not a multiple of BLOCK_ROWS. On the one-row case (1x4096) its tile's other rows are read
# thousands of elements past x, which the interpreter's guard stops first; a GPU runs on, and its unmasked
# store of the rows past n_rows is what the checker sees there (out_of_bounds_write, on an H100, 2026-12-06).
def row_sum_rows_even_columns_unmasked(x, out, BLOCK_ROWS=None, BLOCK_SIZE=None, num_warps=4):
    row_sum_rows(
        x, out, BLOCK_ROWS, BLOCK_SIZE, num_warps, unmasked=lambda n_cols, block: n_cols % block == 0
    )


CORRECT = [row_sum_rows, row_sum_rows_wide_tile, row_sum_rows_persistent]
WRONG = [
    (row_sum_rows_no_row_mask_on_store, "out_of_bounds_write"),
    (row_sum_rows_single_tile, "first_tile_only"),
    (row_sum_rows_fp16, "fp16_accumulation"),
    (row_sum_rows_contiguous_only, "ignores_strides"),
    (row_sum_rows_neg_inf, "wrong_sentinel"),
    (row_sum_rows_whole_tiles, "tail_not_processed"),
    (row_sum_rows_tile_total, "rows_summed_together"),
    (row_sum_rows_overlapping_rows, "missing_rows"),
    (row_sum_rows_grid_rounded_down, "missing_rows"),
    (row_sum_rows_block_rows_not_power_of_two, "exception"),
    (row_sum_rows_no_col_mask, "out_of_bounds_read"),
    (row_sum_rows_even_columns_unmasked, "out_of_bounds_write" if runs_on_gpu() else "out_of_bounds_access"),
]
