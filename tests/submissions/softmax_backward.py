"""Submissions for `softmax_backward(y, dy, dx)`: dx = y * (dy - sum(dy * y)) per row. The right ones hold a
row in one tile, walk it in tiles twice, or take a tile of rows; the wrong ones are the one-row kernel with
one mistake each, chosen by the constexpr MISTAKE."""

import triton
import triton.language as tl


@triton.jit
def row_kernel(
    y_ptr,
    dy_ptr,
    dx_ptr,
    n_cols,
    sy_row,
    sy_col,
    sd_row,
    sd_col,
    so_row,
    so_col,
    BLOCK: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row_y = 0 if MISTAKE == "no row offset" else row * sy_row
    row_dy = 0 if MISTAKE == "no row offset" else row * sd_row
    y = tl.load(y_ptr + row_y + cols * sy_col, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row_dy + cols * sd_col, mask=mask, other=0.0)
    if MISTAKE != "input dtype":  # the mistake: float16 rows multiplied and summed in float16
        y, dy = y.to(tl.float32), dy.to(tl.float32)
    if MISTAKE == "sum of dy":
        s = tl.sum(dy, axis=0)

    elif MISTAKE == "mean, not sum":
        s = tl.sum(dy * y, axis=0) / n_cols
    else:
        s = tl.sum(dy * y, axis=0)
    if MISTAKE == "no y factor":
        dx = dy - s
    elif MISTAKE == "parentheses":  # y * dy - s: the product taken before the difference
        dx = y * dy - s
    elif MISTAKE == "sign":
        dx = y * (s - dy)
    # dy - y * s: the factor y on the wrong term (tests/submissions/unlisted.py)
    elif MISTAKE == "y on the sum":
        dx = dy - y * s
    else:
        dx = y * (dy - s)
    if MISTAKE == "rows reversed":  # row r's dx stored into row n - 1 - r (unlisted.py)
        row = tl.num_programs(0) - 1 - row
    tl.store(dx_ptr + row * so_row + cols * so_col, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def _row(mistake="", n_cols_as_stride=False, dx_contiguous=False, y_strides_for=""):
    def launch(y, dy, dx):
        n_rows, n_cols = y.shape
        if n_cols_as_stride:  # the wrong strides: every tensor taken as contiguous rows
            strides = (n_cols, 1) * 3
        elif dx_contiguous:  # the inputs' strides right, dx's taken as a contiguous matrix's
            strides = (*y.stride(), *dy.stride(), n_cols, 1)
        elif y_strides_for == "dx":  # dx stored with y's strides
            strides = (*y.stride(), *dy.stride(), *y.stride())
        elif y_strides_for == "dy":  # dy loaded with y's strides
            strides = (*y.stride(), *y.stride(), *dx.stride())
        else:
            strides = (*y.stride(), *dy.stride(), *dx.stride())
        block = triton.next_power_of_2(n_cols)
        row_kernel[(n_rows,)](y, dy, dx, n_cols, *strides, BLOCK=block, MISTAKE=mistake)

    launch.__name__ = "softmax_backward_row" + (f"_{mistake.replace(' ', '_')}" if mistake else "")
    launch.__name__ += "_n_cols_as_stride" if n_cols_as_stride else ""
    launch.__name__ += "_dx_contiguous" if dx_contiguous else ""
    launch.__name__ += f"_y_strides_for_{y_strides_for}" if y_strides_for else ""
    return launch


@triton.jit
def looped_kernel(
    y_ptr,
    dy_ptr,
    dx_ptr,
    n_cols,
    sy_row,
    sy_col,
    sd_row,
    sd_col,
    so_row,
    so_col,
    BLOCK: tl.constexpr,
    SUM_ENDS_EARLY: tl.constexpr = False,
):
    # The row in tiles: each lane's sum of dy * y through the row, reduced once, then a second pass
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    sum_end = n_cols - 1 if SUM_ENDS_EARLY else n_cols  # wrong: a row of k * BLOCK + 1 loses its last tile
    for start in range(0, sum_end, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + row * sy_row + cols * sy_col, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * sd_row + cols * sd_col, mask=mask, other=0.0).to(tl.float32)
        acc += dy * y
    s = tl.sum(acc, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + row * sy_row + cols * sy_col, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * sd_row + cols * sd_col, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + row * so_row + cols * so_col, (y * (dy - s)).to(dx_ptr.dtype.element_ty), mask=mask)


@triton.jit
def last_tile_kernel(
    y_ptr, dy_ptr, dx_ptr, n_cols, sy_row, sy_col, sd_row, sd_col, so_row, so_col, BLOCK: tl.constexpr
):
    # The looped form with its sum started again at every tile: the second pass uses the last tile's sum
    row = tl.program_id(0)
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + row * sy_row + cols * sy_col, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * sd_row + cols * sd_col, mask=mask, other=0.0).to(tl.float32)
        s = tl.sum(dy * y, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + row * sy_row + cols * sy_col, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * sd_row + cols * sd_col, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + row * so_row + cols * so_col, (y * (dy - s)).to(dx_ptr.dtype.element_ty), mask=mask)


def softmax_backward_last_tile_sum(y, dy, dx):
    n_rows, n_cols = y.shape
    last_tile_kernel[(n_rows,)](y, dy, dx, n_cols, *y.stride(), *dy.stride(), *dx.stride(), BLOCK=256)


def softmax_backward_looped(y, dy, dx, sum_ends_early=False):
    n_rows, n_cols = y.shape
    looped_kernel[(n_rows,)](
        y, dy, dx, n_cols, *y.stride(), *dy.stride(), *dx.stride(), BLOCK=256, SUM_ENDS_EARLY=sum_ends_early
    )


def softmax_backward_sum_ends_early(y, dy, dx):
    softmax_backward_looped(y, dy, dx, sum_ends_early=True)


@triton.jit
def rows_kernel(
    y_ptr,
    dy_ptr,
    dx_ptr,
    n_rows,
    n_cols,
    sy_row,
    sy_col,
    sd_row,
    sd_col,
    so_row,
    so_col,
    ROWS: tl.constexpr,
    BLOCK: tl.constexpr,
    SKIP_ZERO_Y: tl.constexpr = False,
):
    # A (ROWS, BLOCK) tile of whole rows, reduced along axis=1
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    y = tl.load(y_ptr + rows[:, None] * sy_row + cols[None, :] * sy_col, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + rows[:, None] * sd_row + cols[None, :] * sd_col, mask=mask, other=0.0).to(
        tl.float32
    )
    s = tl.sum(dy * y, axis=1)
    dx = y * (dy - s[:, None])
    if SKIP_ZERO_Y:  # the mistake: "dx is 0 where y is", so those lanes are not stored, and keep dx's old
        mask = mask & (y != 0.0)
    tl.store(
        dx_ptr + rows[:, None] * so_row + cols[None, :] * so_col, dx.to(dx_ptr.dtype.element_ty), mask=mask
    )


def softmax_backward_rows(y, dy, dx, skip_zero_y=False):
    n_rows, n_cols = y.shape
    rows = 4
    grid = (triton.cdiv(n_rows, rows),)
    strides = (*y.stride(), *dy.stride(), *dx.stride())
    block = triton.next_power_of_2(n_cols)
    rows_kernel[grid](y, dy, dx, n_rows, n_cols, *strides, ROWS=rows, BLOCK=block, SKIP_ZERO_Y=skip_zero_y)


def softmax_backward_skips_zero_y(y, dy, dx):
    """Session 24's unseen round: wrong only where y holds exact zeros (a softmax of spread logits)."""
    softmax_backward_rows(y, dy, dx, skip_zero_y=True)


def softmax_backward_wrong_axis(y, dy, dx):
    # The dot product down each column (torch for the sums, the mistake is the axis), then the row formula
    s = (dy.float() * y.float()).sum(dim=0, keepdim=True)
    dx.copy_((y.float() * (dy.float() - s)).to(dx.dtype))


def softmax_backward_into_a_copy(y, dy, dx):
    # launched on dx.contiguous(), never copied back: a strided dx is a copy there, and stays as it was
    _row()(y, dy, dx.contiguous())


CORRECT = [_row(), softmax_backward_looped, softmax_backward_rows]

WRONG = [
    (_row("no y factor"), "y_factor_missing"),
    (_row("sum of dy"), "sum_of_dy_only"),
    (_row("sign"), "sign_turned"),
    (softmax_backward_wrong_axis, "wrong_axis"),
    (_row("no row offset"), "missing_row_offset"),
    (_row(n_cols_as_stride=True), "ignores_strides"),
    (_row(dx_contiguous=True), "ignores_strides"),
    (_row(y_strides_for="dx"), "ignores_strides"),  # wrong only where dx is laid out unlike y
    (_row(y_strides_for="dy"), "ignores_strides"),
    (softmax_backward_into_a_copy, "strided_out_not_written"),
    (_row("parentheses"), "wrong_values"),
    (softmax_backward_last_tile_sum, "wrong_values"),
    # the row's dot product divided by n_cols: no prediction names it
    (_row("mean, not sum"), "wrong_values"),
    (_row("input dtype"), "fp16_accumulation"),
    (softmax_backward_skips_zero_y, "wrong_values"),
    # the sum's loop stops at n_cols - 1: the 1x1 row and the row of 1,025 (4 tiles of 256, plus one) fail
    (softmax_backward_sum_ends_early, "wrong_values"),
]
