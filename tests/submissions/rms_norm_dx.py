"""Submissions for `rms_norm_dx(x, w, dy, rstd, dx)`: dx = rstd * (g - xhat * c1), g = dy * w,
xhat = x * rstd, c1 the row's mean of g * xhat. A tile of BLOCK_ROWS rows per program, the row whole in one
tile; or one row per program walked in tiles (two passes: the sum, then dx); or the row's sum by atomics from
chunks, then dx by a second kernel. The wrong ones are the tile kernel with one mistake each, chosen by the
constexpr MISTAKE, and the atomics' sums kept between calls."""

import torch
import triton
import triton.language as tl


@triton.jit
def rms_dx_rows_kernel(
    x_ptr,
    w_ptr,
    dy_ptr,
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
    rstd = tl.load(rstd_ptr + rows, mask=rows < n_rows, other=0.0)
    if MISTAKE == "rstd recomputed":  # from x, with notebook 09's eps, the saved rstd ignored
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / n_cols + 1e-5)
    if MISTAKE == "rstd capped":  # "for stability", at the largest rstd notebook 09's eps gives
        rstd = tl.minimum(rstd, 316.22776)
    xhat = x * rstd[:, None].to(x.dtype)  # a masked lane loads 0: its xhat is 0
    g = dy if MISTAKE == "no w" else dy * w[None, :].to(dy.dtype)
    count = n_cols - 1 if MISTAKE == "n_cols - 1" else n_cols
    if MISTAKE == "tile width":
        count = BLOCK_SIZE
    c1 = tl.sum(g * xhat, axis=1) / count
    if MISTAKE == "no c1":
        bracket = g
    elif MISTAKE == "layer norm's c2":  # LayerNorm's formula: the mean of g subtracted too
        bracket = g - xhat * c1[:, None] - (tl.sum(g, axis=1) / count)[:, None]
    else:
        bracket = g - xhat * c1[:, None]
    dx = bracket if MISTAKE == "no rstd" else bracket * rstd[:, None]
    tl.store(
        dx_ptr + rows[:, None] * sdx_row + cols[None, :] * sdx_col, dx.to(dx_ptr.dtype.element_ty), mask=mask
    )


@triton.jit
def rms_dx_looped_kernel(
    x_ptr,
    w_ptr,
    dy_ptr,
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
    # One row per program, in tiles: pass 1 sums g * xhat, pass 2 writes dx
    row = tl.program_id(0)
    rstd = tl.load(rstd_ptr + row)
    s1 = tl.zeros((BLOCK_SIZE,), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        m = cols < n_cols
        x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=m, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + row * sdy_row + cols * sdy_col, mask=m, other=0.0).to(tl.float32)
        s1 += g * tl.load(w_ptr + cols, mask=m, other=0.0) * x * rstd
    c1 = tl.sum(s1, axis=0) / n_cols
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        m = cols < n_cols
        x = tl.load(x_ptr + row * sx_row + cols * sx_col, mask=m, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + row * sdy_row + cols * sdy_col, mask=m, other=0.0).to(tl.float32)
        g = g * tl.load(w_ptr + cols, mask=m, other=0.0)
        dx = (g - x * rstd * c1) * rstd
        tl.store(dx_ptr + row * sdx_row + cols * sdx_col, dx.to(dx_ptr.dtype.element_ty), mask=m)


def _rows(mistake="", block_rows=None, n_cols_as_stride=False, dx_contiguous=False):
    """A tile of rows per program, the row whole; `block_rows` None: about 4,096 elements a tile."""

    def launch(x, w, dy, rstd, dx):
        n_rows, n_cols = x.shape
        block = triton.next_power_of_2(n_cols)
        rows = block_rows or max(1, min(triton.next_power_of_2(n_rows), 4096 // block))
        x_strides = (n_cols, 1) if n_cols_as_stride else x.stride()  # the wrong one: a contiguous row
        dx_strides = (n_cols, 1) if dx_contiguous else dx.stride()  # the wrong one: dx taken as contiguous
        rms_dx_rows_kernel[(triton.cdiv(n_rows, rows),)](
            x,
            w,
            dy,
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

    what = mistake.replace(" ", "_").replace("-", "minus").replace("'", "") if mistake else "rows"
    launch.__name__ = (
        "rms_norm_dx_"
        + what
        + ("_n_cols_as_stride" if n_cols_as_stride else "")
        + ("_dx_contiguous" if dx_contiguous else "")
    )
    return launch


def rms_norm_dx_looped(x, w, dy, rstd, dx):
    n_rows, n_cols = x.shape
    block = min(1024, triton.next_power_of_2(n_cols))
    rms_dx_looped_kernel[(n_rows,)](
        x, w, dy, rstd, dx, n_cols, *x.stride(), *dy.stride(), *dx.stride(), BLOCK_SIZE=block
    )


@triton.jit
def _row_chunk(x_ptr, w_ptr, dy_ptr, rstd_ptr, n_cols, x_rs, x_cs, dy_rs, dy_cs, CHUNK: tl.constexpr):
    # program (row, chunk)'s columns, their mask, and its x, dy, w and the row's rstd, in float32
    row = tl.program_id(0)
    cols = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * x_rs + cols * x_cs, mask=m, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * dy_rs + cols * dy_cs, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=m, other=0.0)
    return row, cols, m, x, dy, w, tl.load(rstd_ptr + row)


@triton.jit
def rms_dx_sum_atomic_kernel(
    x_ptr, w_ptr, dy_ptr, rstd_ptr, sums_ptr, n_cols, x_rs, x_cs, dy_rs, dy_cs, CHUNK: tl.constexpr
):
    # program (row, chunk) adds its chunk's sum of g * x̂ into the row's float32 slot
    row, cols, m, x, dy, w, rstd = _row_chunk(
        x_ptr, w_ptr, dy_ptr, rstd_ptr, n_cols, x_rs, x_cs, dy_rs, dy_cs, CHUNK
    )
    tl.atomic_add(sums_ptr + row, tl.sum(dy * w * x * rstd, axis=0))


@triton.jit
def rms_dx_from_sums_kernel(
    x_ptr,
    w_ptr,
    dy_ptr,
    rstd_ptr,
    sums_ptr,
    dx_ptr,
    n_cols,
    x_rs,
    x_cs,
    dy_rs,
    dy_cs,
    dx_rs,
    dx_cs,
    CHUNK: tl.constexpr,
):
    row, cols, m, x, dy, w, rstd = _row_chunk(
        x_ptr, w_ptr, dy_ptr, rstd_ptr, n_cols, x_rs, x_cs, dy_rs, dy_cs, CHUNK
    )
    mean_gx = tl.load(sums_ptr + row) / n_cols
    dx = rstd * (dy * w - x * rstd * mean_gx)
    tl.store(dx_ptr + row * dx_rs + cols * dx_cs, dx.to(dx_ptr.dtype.element_ty), mask=m)


_KEPT_SUMS = {}  # the wrong one's row sums, kept by row count between calls


def _atomic_sums(keep_between_calls=False):
    """The row's sum by atomics from 64-column chunks, then dx by a second kernel (unseen, session 23);
    the wrong one allocates its zeroed sums once per row count and never zeroes them again: right on the
    battery (every case a row count of its own), wrong when a case is called again."""

    def launch(x, w, dy, rstd, dx):
        n_rows, n_cols = x.shape
        if not keep_between_calls:
            sums = torch.zeros(n_rows, dtype=torch.float32, device=x.device)
        else:
            sums = _KEPT_SUMS.setdefault(n_rows, torch.zeros(n_rows, dtype=torch.float32, device=x.device))
        grid = (n_rows, triton.cdiv(n_cols, 64))
        rms_dx_sum_atomic_kernel[grid](x, w, dy, rstd, sums, n_cols, *x.stride(), *dy.stride(), CHUNK=64)
        rms_dx_from_sums_kernel[grid](
            x, w, dy, rstd, sums, dx, n_cols, *x.stride(), *dy.stride(), *dx.stride(), CHUNK=64
        )

    launch.__name__ = "rms_norm_dx_atomic_sums" + ("_kept_between_calls" if keep_between_calls else "")
    return launch


CORRECT = [_rows(), _rows(block_rows=1), rms_norm_dx_looped, _atomic_sums()]

WRONG = [
    (_rows("no rstd"), "rstd_factor_missing"),
    (_rows("layer norm's c2"), "mean_of_g_subtracted"),
    (_rows("no c1"), "xhat_term_missing"),
    (_rows("no w"), "w_left_out"),
    (_rows("tile width"), "wrong_count"),
    (_rows("n_cols - 1"), "wrong_count"),
    (_rows("no row offset", block_rows=1), "missing_row_offset"),
    (_rows(n_cols_as_stride=True), "ignores_strides"),
    (_rows(dx_contiguous=True), "ignores_strides"),  # dx's strides taken as a contiguous matrix's
    (_rows("float16 sums"), "fp16_accumulation"),
    (_rows("rstd recomputed"), "rstd_recomputed"),  # only the cases saved with another eps fail
    # only the case saved with eps = 1e-7 fails, its rstd near 3,000: no named mistake has that effect
    (_rows("rstd capped"), "wrong_values"),
    (_atomic_sums(keep_between_calls=True), "wrong_values"),  # right in the battery, wrong when called again
]
