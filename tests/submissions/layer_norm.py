"""Submissions for `layer_norm(x, weight, bias, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None)`: each
row of a 2-D x of any strides, float16 or float32, normalised to mean 0 and variance 1 (the biased
variance, eps inside the square root), scaled by weight and shifted by bias per column, into out (x's
shape and dtype, its own strides).

The wrong ones are the row-in-registers kernel below with one mistake each, chosen by the constexpr
MISTAKE (each value compiles to its own kernel); tests/submissions/rms_norm.py uses the same kernel with
CENTRED=False."""

import triton
import triton.language as tl

from utils.setup import interpreting

EPS = 1e-5


@triton.jit
def norm_row_kernel(
    x_ptr,
    w_ptr,
    b_ptr,
    out_ptr,
    n_cols,
    sx_row,
    sx_col,
    so_row,
    so_col,
    eps,
    CENTRED: tl.constexpr,
    BLOCK: tl.constexpr,
    MISTAKE: tl.constexpr,
):
    # One program per row, the whole row in one tile of BLOCK >= n_cols lanes.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    if MISTAKE == "no row offset":
        x_row = x_ptr + cols * sx_col
    elif MISTAKE == "n_cols as stride":
        x_row = x_ptr + row * n_cols + cols
    else:
        x_row = x_ptr + row * sx_row + cols * sx_col
    x = tl.load(x_row, mask=mask, other=0.0)
    if MISTAKE != "sums in x's dtype":
        x = x.to(tl.float32)
    n = n_cols
    if MISTAKE == "divided by BLOCK":
        n = BLOCK
    if CENTRED:
        mean = tl.sum(x, axis=0) / n
        if MISTAKE == "sums in x's dtype":
            mean = tl.sum(x, axis=0).to(x.dtype).to(tl.float32) / n  # the row's sum kept in float16
        if MISTAKE == "one pass":
            var = tl.sum(x * x, axis=0) / n - mean * mean
            xc = x - mean
        else:
            if MISTAKE == "no where":
                xc = x - mean
            else:
                xc = tl.where(mask, x - mean, 0.0)
            if MISTAKE == "unbiased":
                var = tl.sum(xc * xc, axis=0) / (n - 1)
            elif MISTAKE == "unbiased, guarded":  # a row of one column kept finite
                var = tl.sum(xc * xc, axis=0) / tl.maximum(n - 1, 1)
            else:
                var = tl.sum(xc * xc, axis=0) / n
        if MISTAKE == "mean not subtracted":
            xc = x
    else:
        xc = x
        var = tl.sum(x * x, axis=0) / n
        if MISTAKE == "squares in x's dtype":  # squared before the conversion: 300^2 is inf in float16
            x_raw = tl.load(x_row, mask=mask, other=0.0)
            var = tl.sum((x_raw * x_raw).to(tl.float32), axis=0) / n
        if MISTAKE == "sums in x's dtype":
            var = tl.sum(x * x, axis=0).to(x.dtype).to(tl.float32) / n
    if MISTAKE == "no eps":
        rstd = 1.0 / tl.sqrt(var)
    elif MISTAKE == "eps outside sqrt":
        rstd = 1.0 / (tl.sqrt(var) + eps)
    else:
        rstd = 1.0 / tl.sqrt(var + eps)
    y = xc * rstd
    if MISTAKE == "weight unmasked":  # lanes past n_cols read past weight's end, then are not stored
        y = y * tl.load(w_ptr + cols).to(tl.float32)
    elif MISTAKE != "no weight":
        y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    if CENTRED and MISTAKE != "no bias":
        y = y + tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    if MISTAKE == "first row only":
        out_row = out_ptr + cols * so_col
    elif MISTAKE == "x's strides for out":
        out_row = out_ptr + row * sx_row + cols * sx_col
    else:
        out_row = out_ptr + row * so_row + cols * so_col
    tl.store(out_row, y.to(out_ptr.dtype.element_ty), mask=mask)


def _warps(block):
    return 4 if block <= 2048 else 8 if block <= 8192 else 16


def _row_in_registers(mistake="none", centred=True, fixed_eps=None, zero_replaced=False, default_eps=EPS):
    # fixed_eps: a constant the kernel gets whatever eps the call passes (the eps_value and eps_ignored
    # mistakes); zero_replaced: eps or EPS, which turns the call's eps=0.0 into EPS; default_eps: the
    # default of the function's eps, where a call passes none
    def launch(x, weight, bias, out, eps=default_eps, BLOCK_ROWS=None, num_warps=None):
        n_rows, n_cols = x.shape
        block = triton.next_power_of_2(n_cols)
        eps = eps if fixed_eps is None else fixed_eps
        eps = (eps or EPS) if zero_replaced else eps
        norm_row_kernel[(n_rows,)](
            x, weight, bias, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps,
            CENTRED=centred, BLOCK=block, MISTAKE=mistake, num_warps=_warps(block),
        )  # fmt: skip

    if centred:
        layer_norm = launch
        layer_norm.__name__ = f"layer_norm_{mistake.replace(' ', '_')}" + (
            "_eps_or_default" if zero_replaced else ""
        )
        return layer_norm

    def rms_norm(x, weight, out, eps=default_eps, BLOCK_ROWS=None, num_warps=None):
        launch(x, weight, weight, out, eps, BLOCK_ROWS, num_warps)  # no bias: the kernel never reads it

    rms_norm.__name__ = f"rms_norm_{mistake.replace(' ', '_')}" + ("_eps_or_default" if zero_replaced else "")
    return rms_norm


@triton.jit
def layer_norm_looped_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, eps, BLOCK: tl.constexpr
):
    # Three passes over the row in tiles: its mean, its variance about that mean, then the normalised row.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols * sx_col, mask=cols < n_cols, other=0.0).to(tl.float32)
        xc = tl.where(cols < n_cols, x - mean, 0.0)
        acc += xc * xc
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + cols * so_col, ((x - mean) * rstd * w + b).to(out_ptr.dtype.element_ty), mask=mask)


def layer_norm_looped(x, weight, bias, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    args = (x, weight, bias, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps)
    layer_norm_looped_kernel[(n_rows,)](*args, BLOCK=256)


@triton.jit
def layer_norm_merged_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr, n_cols, sx_row, sx_col, so_row, so_col, eps, BLOCK: tl.constexpr
):
    # One pass for the statistics: each tile's (count, mean, M2), merged into the row's (Chan et al.), so
    # nothing cancels; then a pass that writes.
    row = tl.program_id(0)
    x_row, out_row = x_ptr + row * sx_row, out_ptr + row * so_row
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)
        n_tile = tl.minimum(n_cols - start, BLOCK).to(tl.float32)
        mean_tile = tl.sum(x, axis=0) / n_tile
        xc = tl.where(mask, x - mean_tile, 0.0)
        m2_tile = tl.sum(xc * xc, axis=0)
        total = count + n_tile
        delta = mean_tile - mean
        mean = mean + delta * n_tile / total
        m2 = m2 + m2_tile + delta * delta * count * n_tile / total
        count = total
    rstd = 1.0 / tl.sqrt(m2 / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols * sx_col, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + cols * so_col, ((x - mean) * rstd * w + b).to(out_ptr.dtype.element_ty), mask=mask)


def layer_norm_merged(x, weight, bias, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    args = (x, weight, bias, out, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), eps)
    layer_norm_merged_kernel[(n_rows,)](*args, BLOCK=512)


@triton.jit
def layer_norm_rows_kernel(
    x_ptr,
    w_ptr,
    b_ptr,
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
    mean = tl.sum(x, axis=1) / n_cols
    xc = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(
        out_ptr + rows[:, None] * so_row + cols[None, :] * so_col, y.to(out_ptr.dtype.element_ty), mask=mask
    )


def layer_norm_rows(x, weight, bias, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    rows = BLOCK_ROWS or max(1, min(64, 2048 // block))
    args = (x, weight, bias, out, n_rows, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    layer_norm_rows_kernel[(triton.cdiv(n_rows, rows),)](*args, eps, ROWS=rows, BLOCK=block)


def layer_norm_rows_grid_from_rule(x, weight, bias, out, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    # the kernel's tile from the call's BLOCK_ROWS, the grid from the rule's: rows left out when the call's
    # tile is the smaller
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    rule = max(1, min(64, 2048 // block))
    args = (x, weight, bias, out, n_rows, n_cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1))
    layer_norm_rows_kernel[(triton.cdiv(n_rows, rule),)](*args, eps, ROWS=BLOCK_ROWS or rule, BLOCK=block)


def _eps(value):
    fn = _row_in_registers(fixed_eps=value)
    fn.__name__ = f"layer_norm_eps_{value:g}"
    return fn


CORRECT = [_row_in_registers(), layer_norm_looped, layer_norm_merged, layer_norm_rows]

WRONG = [
    (_row_in_registers("no eps"), "missing_eps"),
    (_row_in_registers("eps outside sqrt"), "eps_outside_sqrt"),
    (_eps(1e-6), "eps_value"),
    (_eps(EPS), "eps_ignored"),  # 1e-5 whatever the call passes
    (_row_in_registers("divided by BLOCK"), "divided_by_block"),
    (_row_in_registers("no where"), "masked_lanes_in_variance"),
    (_row_in_registers("unbiased"), "unbiased_variance"),
    (_row_in_registers("one pass"), "one_pass_variance"),
    (_row_in_registers("mean not subtracted"), "mean_not_subtracted"),
    (_row_in_registers("no weight"), "weight_not_applied"),
    (_row_in_registers("no bias"), "bias_not_added"),
    (_row_in_registers("no row offset"), "missing_row_offset"),
    (_row_in_registers("first row only"), "missing_row_offset"),
    (_row_in_registers("n_cols as stride"), "ignores_strides"),
    (_row_in_registers("sums in x's dtype"), "fp16_accumulation"),
    # out is laid out as x is but in the mixed case (x transposed, out sliced), the only one that fails
    (_row_in_registers("x's strides for out"), "ignores_strides"),
    (layer_norm_rows_grid_from_rule, "block_rows_not_followed"),
    (_row_in_registers("unbiased, guarded"), "unbiased_variance"),
]
if interpreting():  # only the interpreter's guard sees a read that the store's mask then discards
    WRONG.append((_row_in_registers("weight unmasked"), "read_past_end"))
