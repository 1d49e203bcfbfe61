"""Submissions for `rms_norm(x, weight, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None)`: each row of a
2-D x of any strides, float16 or float32, divided by the square root of its mean square plus eps and
scaled by weight per column, into out (x's shape and dtype, its own strides). The wrong ones are
layer_norm's row-in-registers kernel with CENTRED=False and one mistake each."""

import triton
import triton.language as tl

from tests.submissions.layer_norm import EPS, _row_in_registers


@triton.jit
def rms_norm_looped_kernel(
    x_ptr, w_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, eps, BLOCK: tl.constexpr
):
    # Two passes over the row in tiles: its sum of squares, lane by lane, then the scaled row.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + cols * so_col, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def rms_norm_looped(x, weight, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    args = (x, weight, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps)
    rms_norm_looped_kernel[(n_rows,)](*args, BLOCK=128)


@triton.jit
def rms_norm_rows_kernel(
    x_ptr,
    w_ptr,
    out_ptr,
    n_rows,
    n_cols,
    sx_row,
    sx_col,
    so_row,
    so_col,
    eps,
    ROWS: tl.constexpr,
    BLOCK: tl.constexpr,
):
    # ROWS rows per program: a (ROWS, BLOCK) tile reduced along axis=1.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * sx_row + cols[None, :] * sx_col, mask=mask, other=0.0)
    x = x.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    y = x * rstd[:, None] * w[None, :]
    tl.store(
        out_ptr + rows[:, None] * so_row + cols[None, :] * so_col, y.to(out_ptr.dtype.element_ty), mask=mask
    )


def rms_norm_rows(x, weight, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    rows = BLOCK_ROWS or max(1, min(64, 4096 // block))
    args = (x, weight, out, n_rows, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps)
    rms_norm_rows_kernel[(triton.cdiv(n_rows, rows),)](*args, ROWS=rows, BLOCK=block, num_warps=8)


def _rms(mistake="none", fixed_eps=None, zero_replaced=False, default_eps=EPS):
    fn = _row_in_registers(mistake, False, fixed_eps, zero_replaced, default_eps)
    if default_eps != EPS:
        fn.__name__ += f"_default_eps_{default_eps:g}"
    return fn


def _eps(value):
    fn = _rms(fixed_eps=value)
    fn.__name__ = f"rms_norm_eps_{value:g}"
    return fn


CORRECT = [_rms(), rms_norm_looped, rms_norm_rows]

WRONG = [
    (_rms("no eps"), "missing_eps"),
    (_rms("eps outside sqrt"), "eps_outside_sqrt"),
    (_eps(1e-6), "eps_value"),
    (_eps(EPS), "eps_ignored"),  # 1e-5 whatever the call passes
    (_rms("divided by BLOCK"), "divided_by_block"),
    (_rms("no weight"), "weight_not_applied"),
    (_rms("no row offset"), "missing_row_offset"),
    (_rms("first row only"), "missing_row_offset"),
    (_rms("n_cols as stride"), "ignores_strides"),
    (_rms("sums in x's dtype"), "fp16_accumulation"),
    (_rms("squares in x's dtype"), "fp16_accumulation"),  # the float16 rows near 300
    (_rms(zero_replaced=True), "eps_ignored"),  # eps or 1e-5: only the case called with eps=0.0 fails
    (_rms(default_eps=1e-6), "eps_value"),  # LLaMA's default: the cases that pass an eps of their own pass
]
