"""Submissions for `layer_norm_dx(x, w, dy, mean, rstd, dx)`: dx = rstd * (g - xhat * c1 - c2), g = dy * w,
xhat = (x - mean) * rstd, c1 and c2 the row's means of g * xhat and of g. A tile of BLOCK_ROWS rows per
program, the row whole in one tile; or one row per program walked in tiles (two passes: the sums, then
dx). The wrong ones are these kernels with one mistake each, chosen by the constexpr MISTAKE."""

import triton
import triton.language as tl


@triton.jit
def dx_rows_kernel(
    x_ptr,
    w_ptr,
    dy_ptr,
    mean_ptr,
    rstd_ptr,
    dx_ptr,
    n_rows,
    n_cols,
    sx_row,
    sx_col,
    sdy_row,
    sdy_col,
    sdx_row,
    sdx_col,
    BLOCK_ROWS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    if MISTAKE == "no row offset":
        rows = tl.arange(0, BLOCK_ROWS)  # every program reads (and writes) the first rows
    cols = tl.arange(0, BLOCK_SIZE)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * sx_row + cols[None, :] * sx_col, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + rows[:, None] * sdy_row + cols[None, :] * sdy_col, mask=mask, other=0.0)
    if MISTAKE != "float16 sums":  # that one computes in the inputs' own dtype
        x, dy = x.to(tl.float32), dy.to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0)
    mean = tl.load(mean_ptr + rows, mask=rows < n_rows, other=0.0)
    rstd = tl.load(rstd_ptr + rows, mask=rows < n_rows, other=0.0)
    if MISTAKE == "rstd recomputed":  # from x, with notebook 09's eps, the saved rstd ignored
        centred = tl.where(mask, x - mean[:, None], 0.0)
        rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=1) / n_cols + 1e-5)
    if MISTAKE == "rstd capped":  # "for stability", at the largest rstd notebook 09's eps gives
        rstd = tl.minimum(rstd, 316.22776)
    xhat = tl.where(mask, (x - mean[:, None].to(x.dtype)) * rstd[:, None].to(x.dtype), 0.0)
    if MISTAKE == "centred in x's dtype":  # x - mean before the conversion: the mean rounded to float16
        x_as_loaded = tl.load(x_ptr + rows[:, None] * sx_row + cols[None, :] * sx_col, mask=mask, other=0.0)
        centred = (x_as_loaded - mean[:, None].to(x_as_loaded.dtype)).to(tl.float32)
        xhat = tl.where(mask, centred * rstd[:, None], 0.0)
    if MISTAKE == "scaled first":  # x * rstd - mean * rstd: two large, nearly equal terms where the mean is
        xhat = tl.where(mask, x * rstd[:, None] - mean[:, None] * rstd[:, None], 0.0)
    g = dy if MISTAKE == "no w" else dy * w[None, :].to(dy.dtype)
    count = n_cols - 1 if MISTAKE == "n_cols - 1" else n_cols
    if MISTAKE == "tile width":
        count = BLOCK_SIZE
    c1 = tl.sum(g * xhat, axis=1) / count
    c2 = tl.sum(g, axis=1) / count
    if MISTAKE == "c2 of xhat":  # the mean of x̂ where dx needs the mean of g (tests/submissions/unlisted.py)
        c2 = tl.sum(xhat, axis=1) / count
    if MISTAKE == "no c1":
        bracket = g - c2[:, None]
    elif MISTAKE == "no c2":
        bracket = g - xhat * c1[:, None]
    else:
        bracket = g - xhat * c1[:, None] - c2[:, None]
    dx = bracket if MISTAKE == "no rstd" else bracket * rstd[:, None]
    tl.store(
        dx_ptr + rows[:, None] * sdx_row + cols[None, :] * sdx_col, dx.to(dx_ptr.dtype.element_ty), mask=mask
    )


@triton.jit
def dx_looped_kernel(
    x_ptr,
    w_ptr,
    dy_ptr,
    mean_ptr,
    rstd_ptr,
    dx_ptr,
    n_cols,
    sx_row,
    sx_col,
    sdy_row,
    sdy_col,
    sdx_row,
    sdx_col,
    BLOCK_SIZE: tl.constexpr,
):
    # One row per program, in tiles: pass 1 sums g * xhat and g, pass 2 writes dx
    row = tl.program_id(0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    s1 = tl.zeros((BLOCK_SIZE,), tl.float32)
    s2 = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        m = cols < n_cols
        x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=m, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + row * sdy_row + cols * sdy_col, mask=m, other=0.0).to(tl.float32)
        g = g * tl.load(w_ptr + cols, mask=m, other=0.0)
        s1 += g * tl.where(m, (x - mean) * rstd, 0.0)
        s2 += g
    c1 = tl.sum(s1, axis=0) / n_cols
    c2 = tl.sum(s2, axis=0) / n_cols
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        m = cols < n_cols
        x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=m, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + row * sdy_row + cols * sdy_col, mask=m, other=0.0).to(tl.float32)
        g = g * tl.load(w_ptr + cols, mask=m, other=0.0)
        dx = (g - (x - mean) * rstd * c1 - c2) * rstd
        tl.store(dx_ptr + row * sdx_row + cols * sdx_col, dx.to(dx_ptr.dtype.element_ty), mask=m)


def _rows(mistake="", block_rows=None, n_cols_as_stride=False, dx_contiguous=False):
    """A tile of rows per program, the row whole; `block_rows` None: about 4,096 elements a tile."""

    def launch(x, w, dy, mean, rstd, dx):
        n_rows, n_cols = x.shape
        block = triton.next_power_of_2(n_cols)
        rows = block_rows or max(1, min(triton.next_power_of_2(n_rows), 4096 // block))
        x_strides = (n_cols, 1) if n_cols_as_stride else x.stride()  # the wrong one: a contiguous row
        dx_strides = (n_cols, 1) if dx_contiguous else dx.stride()  # the wrong one: dx taken as contiguous
        dx_rows_kernel[(triton.cdiv(n_rows, rows),)](
            x,
            w,
            dy,
            mean,
            rstd,
            dx,
            n_rows,
            n_cols,
            *x_strides,
            *dy.stride(),
            *dx_strides,
            BLOCK_ROWS=rows,
            BLOCK_SIZE=block,
            MISTAKE=mistake,
        )

    what = mistake.replace(" ", "_").replace("-", "minus") if mistake else "rows"
    launch.__name__ = (
        "layer_norm_dx_"
        + what
        + ("_n_cols_as_stride" if n_cols_as_stride else "")
        + ("_dx_contiguous" if dx_contiguous else "")
    )
    return launch


def layer_norm_dx_looped(x, w, dy, mean, rstd, dx):
    n_rows, n_cols = x.shape
    block = min(1024, triton.next_power_of_2(n_cols))
    dx_looped_kernel[(n_rows,)](
        x, w, dy, mean, rstd, dx, n_cols, *x.stride(), *dy.stride(), *dx.stride(), BLOCK_SIZE=block
    )


def layer_norm_dx_into_a_copy(x, w, dy, mean, rstd, dx):
    # launched on dx.contiguous(), never copied back: a strided dx is a copy there, and stays as it was
    _rows()(x, w, dy, mean, rstd, dx.contiguous())


CORRECT = [_rows(), _rows(block_rows=1), layer_norm_dx_looped]

WRONG = [
    (_rows("no rstd"), "rstd_factor_missing"),
    (_rows("no c2"), "mean_of_g_missing"),
    (_rows("no c1"), "xhat_term_missing"),
    (_rows("no w"), "w_left_out"),
    (_rows("tile width"), "wrong_count"),
    (_rows("n_cols - 1"), "wrong_count"),
    (_rows("no row offset", block_rows=1), "missing_row_offset"),
    (_rows(n_cols_as_stride=True), "ignores_strides"),
    (_rows(dx_contiguous=True), "ignores_strides"),  # dx's strides taken as a contiguous matrix's
    # float16 all the way: only the float16 cases fail, one of them sliced: the sums, not the strides
    (_rows("float16 sums"), "fp16_accumulation"),
    (_rows("centred in x's dtype"), "fp16_accumulation"),  # fails the float16 rows, of mean 40 the most
    (_rows("scaled first"), "cancels_digits"),  # only the rows of mean 3,000 fail
    (_rows("rstd recomputed"), "rstd_recomputed"),  # only the cases saved with another eps fail
    # only the case saved with eps = 1e-7 fails, its rstd near 3,000: no named mistake has that effect
    (_rows("rstd capped"), "wrong_values"),
    (layer_norm_dx_into_a_copy, "strided_out_not_written"),
]
