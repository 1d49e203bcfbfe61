"""Submissions for `softmax(x, out)`: each row of a 2-D x of any strides, float16 or float32, normalised
into out (x's shape and dtype); a row of -inf gives zeros."""

import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    # One program per row, the whole row in one tile of BLOCK >= n_cols lanes.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)  # a row of -inf: shift by 0, so exp gives 0, not NaN
    e = tl.exp(x - m)
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x, out):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    args = (x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    softmax_row_kernel[(n_rows,)](*args, BLOCK=block, num_warps=4 if block <= 2048 else 8)


@triton.jit
def softmax_looped_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    # Three passes over the row in tiles: its max, its sum of exponentials, then the normalised values.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    m_lanes = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_lanes = tl.maximum(m_lanes, x)
    m = tl.max(m_lanes, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        acc += tl.exp(x - m)
    total = tl.sum(acc, axis=0)
    scale = tl.where(total > 0, 1.0 / total, 0.0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(
            out_row + cols * so_col, (tl.exp(x - m) * scale).to(out_ptr.dtype.element_ty), mask=cols < n_cols
        )


def softmax_looped(x, out):
    n_rows, n_cols = x.shape
    args = (x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    softmax_looped_kernel[(n_rows,)](*args, BLOCK=256)


@triton.jit
def softmax_rows_kernel(
    x_ptr, out_ptr, n_rows, n_cols, sx_row, sx_col, so_row, so_col, ROWS: tl.constexpr, BLOCK: tl.constexpr
):
    # ROWS rows per program: a (ROWS, BLOCK) tile reduced along axis=1.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * sx_row + cols[None, :] * sx_col, mask=mask, other=float("-inf"))
    x = x.to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(m == float("-inf"), 0.0, m)
    e = tl.exp(x - m[:, None])
    total = tl.sum(e, axis=1)
    p = tl.where(total[:, None] > 0, e / total[:, None], 0.0)
    tl.store(
        out_ptr + rows[:, None] * so_row + cols[None, :] * so_col, p.to(out_ptr.dtype.element_ty), mask=mask
    )


def softmax_rows(x, out):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    rows = max(1, min(16, 4096 // block))  # short rows: several per program
    args = (x, out, n_rows, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    softmax_rows_kernel[(triton.cdiv(n_rows, rows),)](*args, ROWS=rows, BLOCK=block)


@triton.jit
def softmax_online_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    # Two passes: a running max and a running sum rescaled as the max grows, then the normalised values.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    m = float("-inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - safe) + tl.sum(tl.exp(x - safe), axis=0)
        m = m_new
    m = tl.where(m == float("-inf"), 0.0, m)
    scale = tl.where(s > 0, 1.0 / s, 0.0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(
            out_row + cols * so_col, (tl.exp(x - m) * scale).to(out_ptr.dtype.element_ty), mask=cols < n_cols
        )


def softmax_online(x, out):
    n_rows, n_cols = x.shape
    args = (x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    softmax_online_kernel[(n_rows,)](*args, BLOCK=512)


# ----------------------------------------------------------------------------------------------------
# Wrong: one mistake each, in the one-row-per-program kernel above


@triton.jit
def no_shift_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
    e = tl.exp(x)  # no shift by the max: overflows from 88.7, vanishes below -103
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def zero_padding_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)  # 0, not -inf
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)  # the masked lanes add exp(0 - m) each
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def zero_sentinel_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)  # 0 in the max
    m = tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(x - m), 0.0)  # the sum is masked: only the shift is off
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def no_division_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))  # and never divided by the sum
    tl.store(out_ptr + row * so_row + cols * so_col, e.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def row_zero_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)  # no row * sx_row
    m = tl.max(x, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)
    e = tl.exp(x - m)
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + row * so_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def unguarded_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))  # a row of -inf: exp(-inf - (-inf)) = NaN
    tl.store(
        out_ptr + row * so_row + cols * so_col,
        (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty),
        mask=mask,
    )


def _one_row_per_program(kernel):
    def launch(x, out):
        n_rows, n_cols = x.shape
        args = (x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
        kernel[(n_rows,)](*args, BLOCK=triton.next_power_of_2(n_cols))

    launch.__name__ = f"softmax_{kernel.__name__.removesuffix('_kernel')}"
    return launch


def softmax_n_cols_as_stride(x, out):
    n_rows, n_cols = x.shape
    args = (x, out, n_cols, n_cols, 1, n_cols, 1)  # the strides of a contiguous x, whatever x is
    softmax_row_kernel[(n_rows,)](*args, BLOCK=triton.next_power_of_2(n_cols))


def softmax_columns(x, out):
    # One program per column: the kernel is right, the roles of rows and columns are swapped.
    n_rows, n_cols = x.shape
    args = (x, out, n_rows, x.stride(1), x.stride(0), out.stride(1), out.stride(0))
    softmax_row_kernel[(n_cols,)](*args, BLOCK=triton.next_power_of_2(n_rows))


@triton.jit
def first_row_out_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)
    e = tl.exp(x - m)
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    tl.store(out_ptr + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=mask)  # no row * so_row


@triton.jit
def input_dtype_sum_kernel(x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr):
    # Looped, with the running sum kept in the input's dtype: float16 for a float16 x.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    m_lanes = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m_lanes = tl.maximum(m_lanes, tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")))
    m = tl.max(m_lanes, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)
    total = tl.zeros((1,), x_ptr.dtype.element_ty)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        total += tl.sum(tl.exp(x - m), axis=0).to(x_ptr.dtype.element_ty)
    total32 = tl.sum(total.to(tl.float32), axis=0)
    scale = tl.where(total32 > 0, 1.0 / total32, 0.0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(
            out_row + cols * so_col, (tl.exp(x - m) * scale).to(out_ptr.dtype.element_ty), mask=cols < n_cols
        )


def softmax_input_dtype_sum(x, out):
    n_rows, n_cols = x.shape
    args = (x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    input_dtype_sum_kernel[(n_rows,)](*args, BLOCK=128)


_STRIDES_BY_SHAPE = {}  # shape -> the strides of its first call: a cache keyed on the shape alone


def softmax_strides_kept_by_shape(x, out):
    # the launch's arguments kept from the first call of each shape: wrong for that shape laid out otherwise
    n_rows, n_cols = x.shape
    strides = _STRIDES_BY_SHAPE.setdefault(
        tuple(x.shape), (x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    )
    block = triton.next_power_of_2(n_cols)
    softmax_row_kernel[(n_rows,)](x, out, n_cols, *strides, BLOCK=block, num_warps=4 if block <= 2048 else 8)


CORRECT = [softmax, softmax_looped, softmax_rows, softmax_online]

WRONG = [
    (_one_row_per_program(no_shift_kernel), "no_max_subtraction"),
    (_one_row_per_program(zero_padding_kernel), "masked_lanes_in_sum"),
    (_one_row_per_program(zero_sentinel_kernel), "wrong_sentinel"),
    (_one_row_per_program(no_division_kernel), "not_normalised"),
    (_one_row_per_program(row_zero_kernel), "missing_row_offset"),
    (_one_row_per_program(first_row_out_kernel), "missing_row_offset"),
    (_one_row_per_program(unguarded_kernel), "all_neg_inf_row"),
    (softmax_n_cols_as_stride, "ignores_strides"),
    (softmax_columns, "wrong_axis"),
    (softmax_input_dtype_sum, "fp16_accumulation"),
    (softmax_strides_kept_by_shape, "kept_by_shape"),
]
