"""Submissions for `row_sum_atomic(x, out)`: one program per row, one scalar atomic each; right and wrong."""

import triton
import triton.language as tl

from utils.setup import runs_on_gpu

BLOCK_SIZE = 256  # columns per tile


@triton.jit
def row_sum_atomic_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_atomic(x, out):
    out.zero_()
    row_sum_atomic_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_splat_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # BUG (of the exercise's contract): the notebook's Fix 2, a tile of BLOCK_SIZE pointers, all to
    # out[row], one atomic per lane; right values, BLOCK_SIZE atomics where one per row is asked for.
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row + tl.zeros((BLOCK_SIZE,), tl.int32), acc)


def row_sum_splat(x, out):
    out.zero_()
    row_sum_splat_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_atomic_per_tile_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # BUG (of the exercise's contract): one scalar atomic per tile instead of per row: the same sum, more
    # atomics than the one per row the exercise asks for.
    row = tl.program_id(axis=0)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        tl.atomic_add(out_ptr + row, tl.sum(tile.to(tl.float32), axis=0))


def row_sum_atomic_per_tile(x, out):
    n_rows, n_cols = x.shape
    out.zero_()
    block = min(triton.next_power_of_2(n_cols), 1024)  # one tile when the row fits in 1024
    row_sum_atomic_per_tile_kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=block)


@triton.jit
def row_block_atomic_kernel(
    x_ptr, out_ptr, n_rows, n_cols, stride_row, stride_col, BLOCK_ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    # A 2-D tile of BLOCK_ROWS rows, one atomic per row of the tile (a tile of pointers, a tile of values).
    rows = tl.program_id(axis=0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    acc = tl.zeros((BLOCK_ROWS, BLOCK_SIZE), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        tile = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :] * stride_col, mask=mask, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def row_sum_atomic_row_blocks(x, out):
    n_rows, n_cols = x.shape
    out.zero_()
    row_block_atomic_kernel[(triton.cdiv(n_rows, 8),)](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1), BLOCK_ROWS=8, BLOCK_SIZE=512
    )


@triton.jit
def row_sum_atomic_scalar_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # Each tile reduced at once into a scalar running sum; still one atomic per row, at the end.
    row = tl.program_id(axis=0)
    total = 0.0
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        total += tl.sum(tile.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr + row, total)


def row_sum_atomic_scalar(x, out):
    out.zero_()
    row_sum_atomic_scalar_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=128)


# ---- wrong ----


@triton.jit
def row_sum_store_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # BUG (of the exercise's contract): the row's sum stored, no atomic at all; right, as one program owns
    # each row, but not the exercise.
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_store(x, out):
    row_sum_store_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


def row_sum_atomic_not_zeroed(x, out):
    # BUG: no out.zero_(); each row's atomic adds onto what out held.
    row_sum_atomic_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_atomic_kernel_no_row(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))  # BUG: every row adds into out[0]


def row_sum_atomic_no_row(x, out):
    out.zero_()
    row_sum_atomic_kernel_no_row[(x.shape[0],)](
        x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_atomic_kernel_fp16(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=x_ptr.dtype.element_ty)  # BUG: fp16 input -> fp16 accumulator
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0).to(tl.float32))


def row_sum_atomic_fp16(x, out):
    out.zero_()
    row_sum_atomic_kernel_fp16[(x.shape[0],)](
        x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


def row_sum_atomic_contiguous_only(x, out):
    out.zero_()
    n_rows, n_cols = x.shape
    # BUG: assumes row-major contiguous storage; x.T or x[:, ::2] are read wrongly.
    row_sum_atomic_kernel[(n_rows,)](x, out, n_cols, n_cols, 1, BLOCK_SIZE=BLOCK_SIZE)


def row_sum_atomic_zeroed_after(x, out):
    row_sum_atomic_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)
    out.zero_()  # BUG: zeroed after the launch, not before: the row sums are wiped


@triton.jit
def row_sum_atomic_kernel_neg_inf(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        # BUG: other=-inf, the padding of a max, in a sum
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_atomic_neg_inf(x, out):
    out.zero_()
    row_sum_atomic_kernel_neg_inf[(x.shape[0],)](
        x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_atomic_kernel_whole_tiles(
    x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(0, n_cols // BLOCK_SIZE * BLOCK_SIZE, BLOCK_SIZE):  # BUG: drops the partial tile
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col)  # whole tiles only, no mask needed
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_atomic_whole_tiles(x, out):
    out.zero_()
    row_sum_atomic_kernel_whole_tiles[(x.shape[0],)](
        x, out, x.shape[1], x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


def row_sum_atomic_grid_of_blocks(x, out):
    n_rows, n_cols = x.shape
    out.zero_()
    # BUG: a grid of cdiv(n_rows, 128) programs, as for a 1-D tile; the kernel takes one row per program
    row_sum_atomic_kernel[(triton.cdiv(n_rows, 128),)](
        x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


def row_sum_atomic_grid_over_columns(x, out):
    n_rows, n_cols = x.shape
    out.zero_()
    # BUG: one program per column; the kernel takes program_id(0) as a row and reads far past x
    row_sum_atomic_kernel[(n_cols,)](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


CORRECT = [row_sum_atomic, row_sum_atomic_row_blocks, row_sum_atomic_scalar]
WRONG = [
    (row_sum_atomic_not_zeroed, "stale_out"),
    (row_sum_atomic_no_row, "missing_row_offset"),
    (row_sum_atomic_fp16, "fp16_accumulation"),
    (row_sum_atomic_contiguous_only, "ignores_strides"),
    (row_sum_atomic_zeroed_after, "reset_after_launch"),
    (row_sum_atomic_neg_inf, "wrong_sentinel"),
    (row_sum_atomic_whole_tiles, "tail_not_processed"),
    (row_sum_atomic_grid_of_blocks, "missing_rows"),
]
if not runs_on_gpu():  # on a GPU the far read is an illegal address, which ends the CUDA context
    WRONG.append((row_sum_atomic_grid_over_columns, "out_of_bounds_access"))
    # right values, the atomics not one per row: counted in the interpreter only (utils.checker.races)
    WRONG += [
        (fn, "atomics_not_one_per_row") for fn in (row_sum_splat, row_sum_atomic_per_tile, row_sum_store)
    ]
