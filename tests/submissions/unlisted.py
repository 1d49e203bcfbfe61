"""Wrong submissions whose mistakes no exercise predicts: formula slips, rounding, indexing off by a row.

The checker cannot name these mistakes, and must not name another: each is caught, its diagnosis is
`wrong_values` alone (or a mistake its effects cannot be told from), and utils.checker.describe states the
effect listed beside it (a Finding's kind). tests/test_check.py runs them; the mistakes are of the
classes a fresh set of learner solutions showed (issue 25), not copies of those solutions.

UNLISTED holds (exercise_id, fn, finding kinds that must be among the findings, the codes it may name):
the codes are {"wrong_values"} unless the effects cannot be told from a listed mistake's (said beside it).
"""

import torch
import triton
import triton.language as tl

from tests.submissions import layer_norm_dw_db, layer_norm_dx, softmax_backward

BLOCK = 1024


# ----------------------------------------------------------------------------------------------------
# Whole-array sums: a factor of n, a factor of 1/2, the result rounded through float16, values cut to
# whole numbers


@triton.jit
def _sum_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0) * scale)


def sum_times_n(x, out):
    # The mean's habit turned round: every partial multiplied by n.
    n = x.numel()
    out.zero_()
    _sum_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(n), BLOCK=BLOCK)


def sum_halved(x, out):
    n = x.numel()
    out.zero_()
    _sum_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, 0.5, BLOCK=BLOCK)


def sum_result_through_fp16(x, out):
    # The right sum, then stored through a float16 tensor on the host.
    n = x.numel()
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    _sum_kernel[(triton.cdiv(n, BLOCK),)](x, acc, n, 1.0, BLOCK=BLOCK)
    out.copy_(acc.half().float())


@triton.jit
def _truncated_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x.to(tl.int32), axis=0).to(tl.float32))


def sum_of_truncated(x, out):
    # Right on the battery's small odd integers, which float16 also holds exactly: the "fp16_inexact"
    # trait splits the cases as a float16 accumulator would. Its probe (values float16 sums exactly,
    # not whole numbers) tells the two apart.
    n = x.numel()
    out.zero_()
    _truncated_sum_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)


# ----------------------------------------------------------------------------------------------------
# The L2 norm: the square root taken twice


@triton.jit
def _squares_kernel(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x * x, axis=0))


def l2_norm_sqrt_twice(x, out):
    n = x.numel()
    acc = torch.zeros(1, dtype=torch.float32, device=x.device)
    _squares_kernel[(triton.cdiv(n, BLOCK),)](x, acc, n, BLOCK=BLOCK)
    out.copy_(acc.sqrt().sqrt())


# ----------------------------------------------------------------------------------------------------
# Row sums: every sum doubled


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, n_cols, s_row, s_col, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * s_row + cols * s_col, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * SCALE)


def row_sum_doubled(x, out):
    n_rows, n_cols = x.shape
    _row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), x.stride(1), SCALE=2.0, BLOCK=256)


# ----------------------------------------------------------------------------------------------------
# Softmax: exp2 without the log2(e) factor; every row stored one row down


@triton.jit
def _softmax_kernel(
    x_ptr, out_ptr, n_rows, n_cols, sx, sxc, so, soc, BLOCK: tl.constexpr, MISTAKE: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx + cols * sxc, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    m = tl.where(m == float("-inf"), 0.0, m)
    if MISTAKE == "clamped max":  # the -inf guard written as a clamp: rows below -10,000 shift too little
        m = tl.maximum(tl.max(x, axis=0), -1e4)
    if MISTAKE == "exp2":
        e = tl.exp2(x - m)
    else:
        e = tl.exp(x - m)
    total = tl.sum(e, axis=0)
    p = tl.where(total > 0, e / total, 0.0)
    target = row
    if MISTAKE == "next row":
        target = (row + 1) % n_rows
    tl.store(out_ptr + target * so + cols * soc, p.to(out_ptr.dtype.element_ty), mask=mask)


def _softmax(x, out, mistake):
    n_rows, n_cols = x.shape
    args = (x, out, n_rows, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    _softmax_kernel[(n_rows,)](*args, BLOCK=triton.next_power_of_2(n_cols), MISTAKE=mistake)


def softmax_exp2(x, out):
    _softmax(x, out, "exp2")


def softmax_next_row(x, out):
    _softmax(x, out, "next row")


def softmax_clamped_max(x, out):
    _softmax(x, out, "clamped max")


def softmax_one_column_filled(x, out):
    # a row of one column special-cased as 1, which a row of -inf is not
    if x.shape[1] == 1:
        out.fill_(1.0)
    else:
        _softmax(x, out, "")


# ----------------------------------------------------------------------------------------------------
# LayerNorm: weight and bias swapped


@triton.jit
def _layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, sx, sxc, so, soc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * sx + cols * sxc, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(out_ptr + row * so + cols * soc, y.to(out_ptr.dtype.element_ty), mask=mask)


def layer_norm_swapped(x, weight, bias, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    args = (x, bias, weight, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps)
    _layer_norm_kernel[(n_rows,)](*args, BLOCK=triton.next_power_of_2(n_cols))


# ----------------------------------------------------------------------------------------------------
# An argmax whose stage 1 is right and whose combine breaks ties by slot order: among tiles whose
# maxima are equal, the last slot wins where the lowest index must. Each failing result is a later maximum,
# which ties_not_lowest names (its effect, not this cause).


@triton.jit
def _tile_argmax_kernel(x_ptr, values_ptr, indices_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=float("-inf"))
    x = tl.where(x != x, float("inf"), x)  # NaN above every number (the first NaN wins)
    top = tl.max(x, axis=0)
    tl.store(values_ptr + pid, top)
    tl.store(indices_ptr + pid, tl.min(tl.where(x == top, offsets, 2147483647), axis=0))


@triton.jit
def _last_slot_wins_kernel(values_ptr, indices_ptr, out_ptr, n_partials):
    best = tl.load(values_ptr)
    index = tl.load(indices_ptr)
    for slot in range(1, n_partials):
        value = tl.load(values_ptr + slot)
        if value >= best:  # '>=': an equal maximum in a later slot takes over
            best = value
            index = tl.load(indices_ptr + slot)
    tl.store(out_ptr, index.to(tl.float32))


def argmax_ties_by_slot(x, out):
    n = x.numel()
    programs = triton.cdiv(n, BLOCK)
    values = torch.empty(programs, dtype=torch.float32, device=x.device)
    indices = torch.empty(programs, dtype=torch.int32, device=x.device)
    _tile_argmax_kernel[(programs,)](x, values, indices, n, BLOCK=BLOCK)
    _last_slot_wins_kernel[(1,)](values, indices, out, programs)


# ----------------------------------------------------------------------------------------------------
# A one-launch sum that counts its calls in its workspace on purpose (a right ticket, reset each call,
# beside a counter that is not), with a combine that doubles the sum: the state probe sees an integer
# workspace that changes from call to call, but every call is wrong alike, so state is not named.

_COUNTED = {}


@triton.jit
def _counted_kernel(
    x_ptr, out_ptr, partials_ptr, ticket_ptr, calls_ptr, n, BLOCK: tl.constexpr, P: tl.constexpr
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(pid * BLOCK, n, programs * BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))
    ticket = tl.atomic_add(ticket_ptr, 1, sem="acq_rel")
    if ticket == programs - 1:
        offsets = tl.arange(0, P)
        partials = tl.load(partials_ptr + offsets, mask=offsets < programs, other=0.0)
        tl.store(out_ptr, 2 * tl.sum(partials, axis=0))  # the mistake: doubled
        tl.store(ticket_ptr, 0)
        tl.atomic_add(calls_ptr, 1)  # calls made so far: state kept on purpose


def sum_one_launch_counted_doubled(x, out):
    key = str(x.device)
    if key not in _COUNTED:
        _COUNTED[key] = (
            torch.zeros(8, dtype=torch.float32, device=x.device),
            torch.zeros(1, dtype=torch.int32, device=x.device),
            torch.zeros(1, dtype=torch.int32, device=x.device),
        )
    partials, ticket, calls = _COUNTED[key]
    programs = max(1, min(8, triton.cdiv(x.numel(), BLOCK)))
    _counted_kernel[(programs,)](x, out, partials, ticket, calls, x.numel(), BLOCK=BLOCK, P=8)


WRONG_VALUES = {"wrong_values"}
# ----------------------------------------------------------------------------------------------------
# The softmax's backward: rows whose dy is all 0 skipped, as if dx arrived zeroed (it arrives as it is)


def softmax_backward_skips_zero_dy(y, dy, dx):
    from tests.submissions.softmax_backward import CORRECT

    computed = torch.empty_like(dx)
    CORRECT[0](y, dy, computed)
    kept = dy.abs().sum(dim=1) != 0  # rows of dy = 0 have dx = 0: left alone here
    dx[kept] = computed[kept]


def layer_norm_dx_rstd_twice(x, w, dy, mean, rstd, dx):
    # The outer rstd of dx = rstd * (w dy - mean(w dy) - x̂ mean(w dy x̂)) applied a second time
    from tests.submissions.layer_norm_dx import CORRECT

    CORRECT[0](x, w, dy, mean, rstd, dx)
    dx.mul_(rstd[:, None])


UNLISTED = [
    ("sum_atomic", sum_times_n, {"factor"}, WRONG_VALUES),
    ("sum_atomic", sum_halved, {"factor"}, WRONG_VALUES),
    # A result rounded to float16 is what "the sum went through float16" says, and, exactly, what
    # rounded_to_float16 says: named, and described.
    ("sum_atomic", sum_result_through_fp16, {"rounded"}, {"fp16_accumulation", "rounded_to_float16"}),
    # triton 3.8's interpreter raises OverflowError where a "large" value (1e20) is cast to int32 (the
    # README's test there, 2026-12-06, with PyPI's torch 2.14.1 and its triton 3.8); 3.9's does not raise
    ("sum_atomic", sum_of_truncated, set(), WRONG_VALUES | {"exception"}),
    # sqrt(sqrt(S)) is also the square root taken per program and again after the combine, with one
    # program: the effects cannot tell the two apart on this battery, so that name may stand.
    ("l2_norm", l2_norm_sqrt_twice, {"function"}, {"wrong_values", "finish_before_combine"}),
    ("row_sum", row_sum_doubled, {"factor"}, WRONG_VALUES),
    ("softmax", softmax_exp2, {"inputs"}, WRONG_VALUES),
    ("softmax", softmax_next_row, {"other_row"}, WRONG_VALUES),
    ("softmax", softmax_clamped_max, {"zero"}, WRONG_VALUES),  # every wrong value 0, in the rows near -20,000
    ("softmax", softmax_one_column_filled, {"offset"}, WRONG_VALUES),
    (
        "softmax_backward",
        softmax_backward_skips_zero_dy,
        {"where"},
        WRONG_VALUES,
    ),  # every 3rd row unwritten  # 1 where a row of -inf gives 0
    ("layer_norm", layer_norm_swapped, {"inputs"}, WRONG_VALUES),
    ("layer_norm_dx", layer_norm_dx_rstd_twice, {"row_factor"}, WRONG_VALUES),  # "times that row's rstd"
    # its tiles' maxima are all equal (ties): the scratch of maxima proves nothing, and is not said
    ("argmax", argmax_ties_by_slot, {"ties"}, {"ties_not_lowest"}),
    ("sum_one_launch", sum_one_launch_counted_doubled, {"factor"}, WRONG_VALUES),
    # notebook 10's backwards, each the exercise's own kernel with one mistake: the softmax's dx as
    # dy - y * Σ dy·y, and with its rows written in reverse order; a LayerNorm dx whose c2 is the mean of
    # x̂, not of g; dW and db added into out interleaved (dW at the even places), where out[0] is dW
    ("softmax_backward", softmax_backward._row("y on the sum"), {"where"}, WRONG_VALUES),
    ("softmax_backward", softmax_backward._row("rows reversed"), {"other_row"}, WRONG_VALUES),  # "reversed"
    ("layer_norm_dx", layer_norm_dx._rows("c2 of xhat"), set(), WRONG_VALUES),
    ("layer_norm_dw_db", layer_norm_dw_db._dw_db("atomics", "interleaved"), set(), WRONG_VALUES),
]
