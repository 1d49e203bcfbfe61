"""Submissions for `row_sum_atomic(x, out)`: one program per row, one scalar atomic each; right and wrong."""

import triton
import triton.language as tl

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
    # The other fix: a tile of BLOCK_SIZE pointers, all to out[row], one atomic per lane.
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


# ---- wrong ----


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


CORRECT = [row_sum_atomic, row_sum_splat]
WRONG = [
    (row_sum_atomic_not_zeroed, "stale_out"),
    (row_sum_atomic_no_row, "missing_row_offset"),
    (row_sum_atomic_fp16, "fp16_accumulation"),
    (row_sum_atomic_contiguous_only, "ignores_strides"),
]
