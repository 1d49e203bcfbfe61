"""Submissions for `row_sum_split(x, out)`: a (rows, splits) grid, one scalar atomic per program."""

import triton
import triton.language as tl

BLOCK_SIZE = 256  # columns per tile


@triton.jit
def row_sum_split_kernel(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    # Program (row, split) sums one tile of its row and adds that partial into out[row].
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    partial = tl.sum(tile.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr + row, partial)


def row_sum_split(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()  # every program adds into out[row], so it must start at 0
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_chunk_kernel(
    x_ptr, out_ptr, n_cols, cols_per_split, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    # A fixed number of splits per row: program (row, split) loops over its chunk of columns in tiles.
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    chunk_start = split * cols_per_split
    chunk_end = tl.minimum(chunk_start + cols_per_split, n_cols)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(chunk_start, chunk_end, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < chunk_end, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_split_chunks(x, out, n_splits=2):
    n_rows, n_cols = x.shape
    out.zero_()
    cols_per_split = triton.cdiv(n_cols, n_splits)
    row_sum_chunk_kernel[(n_rows, n_splits)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_split_tiled_kernel(
    x_ptr, out_ptr, n_cols, cols_per_split, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    # Notebook 05's way: cols_per_split a multiple of BLOCK_SIZE, so no tile crosses into the next chunk.
    row = tl.program_id(0)
    start = tl.program_id(1) * cols_per_split
    end = tl.minimum(start + cols_per_split, n_cols)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_offset in range(start, end, BLOCK_SIZE):
        cols = col_offset + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < end, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_split_tiled(x, out, n_splits=4):
    n_rows, n_cols = x.shape
    block = 128
    n_splits = max(1, min(n_splits, triton.cdiv(n_cols, block)))
    cols_per_split = triton.cdiv(triton.cdiv(n_cols, n_splits), block) * block
    n_splits = triton.cdiv(n_cols, cols_per_split)
    out.zero_()
    row_sum_split_tiled_kernel[(n_rows, n_splits)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=block
    )


# ---- wrong ----


def row_sum_split_not_zeroed(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    # BUG: no out.zero_(); the atomics add onto whatever out held before.
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_split_kernel_missing_row_offset(
    x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    partial = tl.sum(tile.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr, partial)  # BUG: no + row, every row's partials land in out[0]


def row_sum_split_missing_row_offset(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel_missing_row_offset[grid](
        x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_split_kernel_vector_atomic(
    x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    # BUG: a scalar pointer with a BLOCK_SIZE-long value; Triton rejects it (reduce with tl.sum first).
    tl.atomic_add(out_ptr + row, tile.to(tl.float32))


def row_sum_split_vector_atomic(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel_vector_atomic[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


def row_sum_split_ignores_strides(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    # BUG: assumes a contiguous row-major layout; right for x, wrong for x.T or x[:, ::2].
    row_sum_split_kernel[grid](x, out, n_cols, n_cols, 1, BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_split_kernel_fp16_partial(
    x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    partial = tl.sum(tile, axis=0)  # BUG: no .to(tl.float32); an fp16 tile is summed in fp16
    tl.atomic_add(out_ptr + row, partial)


def row_sum_split_fp16_partial(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel_fp16_partial[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_chunk_kernel_spill(
    x_ptr, out_ptr, n_cols, cols_per_split, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    chunk_start = tl.program_id(axis=1) * cols_per_split
    chunk_end = tl.minimum(chunk_start + cols_per_split, n_cols)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(chunk_start, chunk_end, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        # BUG: masked at the row's end, not the chunk's: the last tile reads into the next chunk
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_split_spill(x, out, n_splits=4):
    n_rows, n_cols = x.shape
    out.zero_()
    n_splits = max(1, min(n_splits, triton.cdiv(n_cols, BLOCK_SIZE)))
    cols_per_split = triton.cdiv(n_cols, n_splits)  # not a multiple of BLOCK_SIZE
    row_sum_chunk_kernel_spill[(n_rows, n_splits)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


@triton.jit
def row_sum_split_kernel_store(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(tile.to(tl.float32), axis=0))  # BUG: a plain store; the splits race


def row_sum_split_store(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel_store[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_split_kernel_neg_inf(x_ptr, out_ptr, n_cols, stride_row, stride_col, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    split = tl.program_id(axis=1)
    cols = split * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # BUG: other=-inf; the split holding a row's partial last tile adds -inf
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < n_cols, other=float("-inf"))
    tl.atomic_add(out_ptr + row, tl.sum(tile.to(tl.float32), axis=0))


def row_sum_split_neg_inf(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    row_sum_split_kernel_neg_inf[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_chunk_kernel_no_start(
    x_ptr, out_ptr, n_cols, cols_per_split, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    chunk_start = 0  # BUG: should be tl.program_id(axis=1) * cols_per_split; every split sums chunk 0
    chunk_end = tl.minimum(chunk_start + cols_per_split, n_cols)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for col_start in range(chunk_start, chunk_end, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < chunk_end, other=0.0)
        acc += tile.to(tl.float32)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def row_sum_split_no_start(x, out, n_splits=4):
    n_rows, n_cols = x.shape
    out.zero_()
    n_splits = max(1, min(n_splits, triton.cdiv(n_cols, BLOCK_SIZE)))
    cols_per_split = triton.cdiv(triton.cdiv(n_cols, n_splits), BLOCK_SIZE) * BLOCK_SIZE
    n_splits = triton.cdiv(n_cols, cols_per_split)
    row_sum_chunk_kernel_no_start[(n_rows, n_splits)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


def row_sum_split_grid_rounded_down(x, out, n_splits=4):  # one tile a program: n_splits unused
    n_rows, n_cols = x.shape
    out.zero_()
    grid = (n_rows, n_cols // BLOCK_SIZE)  # BUG: rounded down; a row's last partial tile is skipped
    row_sum_split_kernel[grid](x, out, n_cols, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE)


@triton.jit
def row_sum_chunk_kernel_no_loop(
    x_ptr, out_ptr, n_cols, cols_per_split, stride_row, stride_col, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(axis=0)
    chunk_start = tl.program_id(axis=1) * cols_per_split
    chunk_end = tl.minimum(chunk_start + cols_per_split, n_cols)
    cols = chunk_start + tl.arange(0, BLOCK_SIZE)  # BUG: one tile per chunk, no loop over the chunk
    tile = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=cols < chunk_end, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(tile.to(tl.float32), axis=0))


def row_sum_split_no_loop(x, out, n_splits=3):
    n_rows, n_cols = x.shape
    out.zero_()
    cols_per_split = triton.cdiv(n_cols, n_splits)
    row_sum_chunk_kernel_no_loop[(n_rows, n_splits)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=BLOCK_SIZE
    )


CORRECT = [row_sum_split, row_sum_split_chunks, row_sum_split_tiled]
WRONG = [
    (row_sum_split_not_zeroed, "stale_out"),
    (row_sum_split_missing_row_offset, "missing_row_offset"),
    (row_sum_split_vector_atomic, "exception"),
    (row_sum_split_ignores_strides, "ignores_strides"),
    (row_sum_split_fp16_partial, "fp16_accumulation"),
    (row_sum_split_spill, "chunk_overlap"),
    (row_sum_split_store, "store_race"),
    (row_sum_split_neg_inf, "wrong_sentinel"),
    (row_sum_split_no_start, "missing_program_offset"),
    (row_sum_split_grid_rounded_down, "tail_not_processed"),
    (row_sum_split_no_loop, "first_tile_only"),
]


def row_sum_split_grid_of_default(x, out, n_splits=4):
    # row_sum_split_tiled with its grid sized for the default 4 splits, the chunks for the call's n_splits:
    # a call with n_splits=8 sums half of each row
    n_rows, n_cols = x.shape
    block = 128
    cols_per_split = triton.cdiv(triton.cdiv(n_cols, n_splits), block) * block
    out.zero_()
    row_sum_split_tiled_kernel[(n_rows, 4)](
        x, out, n_cols, cols_per_split, x.stride(0), x.stride(1), BLOCK_SIZE=block
    )


WRONG.append((row_sum_split_grid_of_default, "n_splits_not_followed"))
