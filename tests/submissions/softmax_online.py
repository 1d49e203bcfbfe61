"""Submissions for `softmax_online(x, out)`: softmax's contract, the row read in tiles twice (a running
max and a rescaled running sum, then the normalised values). The wrong ones are the online kernel below
with one mistake each, chosen by the constexpr MISTAKE (each value compiles to its own kernel)."""

import triton
import triton.language as tl

from tests.submissions.softmax import softmax_looped


@triton.jit
def online_kernel(
    x_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, BLOCK: tl.constexpr, MISTAKE: tl.constexpr
):
    row = tl.program_id(0)
    if MISTAKE == "no row offset":
        x_row = x_ptr
    else:
        x_row = x_ptr + row * sx_row
    out_row = out_ptr + row * so_row
    other = 0.0 if MISTAKE == "other=0.0" else float("-inf")
    m = float("-inf")
    if MISTAKE == "sum in x's dtype":
        s = tl.zeros((1,), x_ptr.dtype.element_ty)
    else:
        s = tl.zeros((1,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=other).to(tl.float32)
        if MISTAKE == "first tile's max":  # the row's shift taken from its first tile alone
            m_new = tl.where(start == 0, tl.max(x, axis=0), m)
        else:
            m_new = tl.maximum(m, tl.max(x, axis=0))
        if MISTAKE == "unguarded" or MISTAKE == "first pass unguarded":
            safe = m_new
        elif MISTAKE == "first tile guarded":  # the guard of a first tile taken before the loop, alone
            safe = tl.where(start == 0, tl.where(m_new == float("-inf"), 0.0, m_new), m_new)
        else:
            safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # a row of -inf so far: shift by 0
        if MISTAKE == "no shift":
            tile_sum = tl.sum(tl.exp(x), axis=0)
        else:
            tile_sum = tl.sum(tl.exp(x - safe), axis=0)
        if MISTAKE == "not rescaled" or MISTAKE == "no shift":
            s = s + tile_sum.to(s.dtype)
        else:
            s = (s.to(tl.float32) * tl.exp(m - safe) + tile_sum).to(s.dtype)
        m = m_new
    total = tl.sum(s.to(tl.float32), axis=0)
    if MISTAKE == "unguarded":
        shift = m
        scale = 1.0 / total
    else:
        shift = tl.where(m == float("-inf"), 0.0, m)
        scale = tl.where(total > 0, 1.0 / total, 0.0)
    if MISTAKE == "no shift":
        shift = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        e = tl.exp(x - shift)
        p = e if MISTAKE == "no division" else e * scale
        tl.store(out_row + cols * so_col, p.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def _online(mistake="", block=512, n_cols_as_stride=False):
    def launch(x, out):
        n_rows, n_cols = x.shape
        strides = (n_cols, 1, n_cols, 1) if n_cols_as_stride else (*x.stride(), *out.stride())
        online_kernel[(n_rows,)](x, out, n_cols, *strides, BLOCK=block, MISTAKE=mistake)

    launch.__name__ = "softmax_online" + (f"_{mistake}" if mistake else "") + f"_block_{block}"
    if n_cols_as_stride:
        launch.__name__ += "_n_cols_as_stride"
    return launch


CORRECT = [_online(), _online(block=64), softmax_looped]

WRONG = [
    (_online("not rescaled"), "running_sum_not_rescaled"),
    (_online("no shift"), "no_max_subtraction"),
    (_online("other=0.0"), "masked_lanes_in_sum"),
    (_online("no division"), "not_normalised"),
    (_online("no row offset"), "missing_row_offset"),
    (_online("unguarded"), "starts_neg_inf"),  # the row of -inf, and the rows that start with -inf
    (_online(n_cols_as_stride=True), "ignores_strides"),
    (_online("sum in x's dtype", block=128), "fp16_accumulation"),
    # the shift from the first tile only: exp overflows past it, inf * 0 is NaN; and on rows that start with
    # tiles of -inf, finite but wrong values: described, not named
    (_online("first tile's max"), "wrong_values"),
    # the running max unguarded in the first pass alone: the row of -inf still gives zeros (its sum is NaN,
    # and the guarded division gives 0), the rows that start with tiles of -inf NaN
    (_online("first pass unguarded"), "neg_inf_tile"),
    (_online("not rescaled", block=8192), "running_sum_not_rescaled"),  # the exercise's default tile
    # (session 29's unseen round) the guard in the first tile alone, at the default tile: a run of -inf
    # longer than two tiles of 8,192 makes the second tile's sum NaN, and the guarded division zeros
    (_online("first tile guarded", block=8192), "neg_inf_tile"),
]
