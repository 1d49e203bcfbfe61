"""The row-normalisation family (notebook 09; the stretch of issue 17): RMSNorm and LayerNorm forward.

    rms_norm:   out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight
    layer_norm: out[r, :] = (x[r, :] - mean_r) / sqrt(var_r + eps) * weight + bias

for a 2-D x of any strides, float16 or float32, weight and bias 1-D of n_cols in x's dtype, out of x's
shape in its own dtype (x's, or float32 for a float16 x) and strides, eps = 1e-5 (torch's default for
layer_norm) unless the call passes eps=, and var_r the biased variance (divided by n_cols).
Like the softmax, each row is reduced (to its mean square, or to its mean and then its variance) and then
written whole, so the mistakes are those of the row family (offsets, strides, float16 sums) and of
notebook 04 and 06's sums (masked lanes, the count to divide by, a variance that cancels), plus the
normalisation's own: eps missing or misplaced, weight or bias forgotten, the mean not subtracted.

The battery holds rows of one column, many short rows, widths just past a power of two, transposed and
sliced views, a float16 long row whose sums overflow float16 (values 4 to 6, 16,384 of them), a row of
zeros and a row of values near 1e-3 (where eps decides the result), rows whose mean of about 3000
dwarfs their spread, where layer_norm's variance computed as E[x^2] - E[x]^2 cancels in float32, rows of
values near 0.03 called with eps=1e-3 (a kernel that ignores the argument uses 1e-5 there), a tall
matrix of short rows, with more rows than columns, rows near 1e-3 called with eps=0.0, float16 rows near
300 (their squares overflow float16), a mixed case (x transposed, out
sliced), a call with BLOCK_ROWS=1, rows with exact zeros, float32 rows of 20,000 columns, and a float16 x
into a float32 out.

Predictions are computed in float64 from the case's inputs; every one of them is a whole-row formula, so
a block size matters only to the mistakes that count the masked lanes of the row's last tile.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker.data import float16_exact, values
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_missing_row_offset
from utils.checker.tolerance import FP32_EPS

EPS = 1e-5
# Other values of eps a learner may have copied (RMSNorm in LLaMA uses 1e-6; torch's rms_norm defaults to
# float32's machine epsilon): each changes only the rows whose mean square or variance is near eps.
OTHER_EPS = (1e-6, 1e-8, 1e-12, FP32_EPS, 1e-4, 1e-3)

MESSAGES = {
    "missing_eps": "the row of zeros (and, for layer_norm, any row of one column) came out as NaN: its "
    "mean square (or variance) is 0, and 0 / sqrt(0) is 0 / 0. Add eps inside the square root, "
    "1 / sqrt(v + eps) with eps = 1e-5: it keeps a constant row finite.",
    "eps_outside_sqrt": "the results are what eps added outside the square root gives, 1 / (sqrt(v) + eps), "
    "where the contract is 1 / sqrt(v + eps): the two differ most where v is small (the row of values "
    "near 1e-3), and a little everywhere.",
    "eps_value": "the results are what another eps than this exercise's 1e-5 gives: the two differ most "
    "where the mean square (or variance) is small, as in the row of values near 1e-3, and a little "
    "everywhere. Use eps = 1e-5, the default, and the call's eps where it passes one.",
    "eps_ignored": "a case called with an eps of its own (eps=...) is off by exactly what eps = 1e-5 gives: "
    "the call's eps did not reach the kernel, or was replaced (eps or 1e-5 turns eps=0.0 into 1e-5; test "
    "eps is None instead). Pass the function's eps to the kernel as it is.",
    "divided_by_block": "each row was divided by the width of its tile, BLOCK_SIZE (or by all the lanes a "
    "loop visited), not by n_cols: the masked lanes past the row's end are not elements. Divide the "
    "row's sums by n_cols.",
    "masked_lanes_in_variance": "the variance counted the masked lanes: they load 0.0, so x - mean is -mean "
    "there, and its square adds mean^2 for each masked lane. Zero them before squaring: "
    "tl.where(mask, x - mean, 0.0).",
    "unbiased_variance": "the variance was divided by n_cols - 1 (Bessel's correction, torch.var's default); "
    "layer norm divides by n_cols (torch.var(..., correction=0)). A row of one column then gives 0 / 0.",
    "one_pass_variance": "only the rows whose mean (about 3000) is far larger than their spread fail: the "
    "variance was computed as E[x^2] - E[x]^2, the difference of two numbers near 9 * 10^6 that float32 "
    "holds only to the nearest whole number, while the variance is about 0.3 (notebook 06). Subtract "
    "the mean first and sum (x - mean)^2: the row is in registers, so the second pass reads nothing more "
    "from memory.",
    "mean_not_subtracted": "out is x * rstd * weight + bias: the row's mean was not subtracted from x "
    "before scaling (x_hat = (x - mean) * rstd).",
    "weight_not_applied": "out is not scaled by weight: multiply column c by weight[c] (load weight with "
    "the same column offsets and mask as the row).",
    "bias_not_added": "bias was not added: out = x_hat * weight + bias.",
    "missing_row_offset": "rows landed in the wrong place: every row of out holds row 0's result, or only "
    "out's first row was written. The row is missing from the input's offset "
    "(x_ptr + row * stride_row) or from out's (out_ptr + row * out_stride_row).",
    "ignores_strides": "only cases on transposed or sliced views fail, and every contiguous one passes: pass "
    "x.stride(0) and "
    "x.stride(1), and out.stride(0) and out.stride(1), to the kernel and use each tensor's own two in its "
    "offsets (a row stride is not n_cols, and the column stride is not 1, for every view; out need not "
    "be laid out as x is).",
    "block_rows_not_followed": "only the case called with BLOCK_ROWS=1 fails (the default tile passes): "
    "the grid and the kernel's tile did not both follow the call's BLOCK_ROWS. Take BLOCK_ROWS from the "
    "call where it gives one, else from your rule, and size the grid, triton.cdiv(n_rows, BLOCK_ROWS), "
    "and the kernel's BLOCK_ROWS from that one value.",
    "fp16_accumulation": "only float16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: the arithmetic went through float16, which keeps 11 significant bits and "
    "whose largest value is 65,504 (a sum of 16,384 values near 5, or a square of 300, is inf there): the "
    "row's sums, the squares, x - mean, or the mean or rstd converted to float16. Convert the loaded tile "
    "with .to(tl.float32), compute in float32, and convert only what you store.",
}
_WORDS = dict(reset="nothing: each program stores its own rows")


def _norm_cases(large: bool) -> list[Case]:
    f32, f16 = torch.float32, torch.float16
    specs: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", f32, "contiguous"),
        (3, 5, "mixed", f32, "contiguous"),
        (7, 1000, "mixed", f32, "contiguous"),
        (131, 3, "mixed", f32, "contiguous"),  # many short rows
        (33, 515, "positive", f32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", f16, "sliced"),
        (2, 16384, "4 to 6", f16, "contiguous"),  # a float16 sum of these (or of their squares) is inf
        (6, 300, "a row of zeros, a row near 1e-3", f32, "contiguous"),
        (16, 3000, "mean 3000", f32, "contiguous"),  # E[x^2] - E[x]^2 cancels in float32; wider than 1024
        (2, 4099, "mixed", f32, "sliced"),  # just over a tile of 4096
    ]
    if large:
        specs += [(4096, 1024, "mixed", f16, "contiguous"), (64, 16387, "mixed", f32, "sliced")]
    # Last, so that the cases above keep their seeds (900 + position): rows whose mean square (about 3e-4)
    # eps = 1e-3 outweighs, called with eps=1e-3; and more rows than columns, so that a grid counted
    # from the columns leaves rows unwritten whatever the rows per program (up to 512)
    specs += [(5, 200, "near 0.03, eps=1e-3", f32, "contiguous"), (1000, 40, "mixed", f32, "contiguous")]
    # Then: rows called with eps=0.0, whose mean square (about 3e-7) 1e-5 would outweigh (eps or 1e-5
    # replaces the 0); float16 rows near 300, whose squares pass float16's largest value.
    specs += [
        (4, 64, "near 1e-3, eps=0", f32, "contiguous"),
        (4, 512, "near 300", f16, "contiguous"),
        # x transposed and out sliced: out stored with x's strides fails here, and nowhere else
        (37, 300, "mixed", f32, "mixed"),
        # called with BLOCK_ROWS=1 where the rule's tile is 16 rows: a grid sized by the rule leaves rows out
        (300, 128, "mixed, BLOCK_ROWS=1", f32, "contiguous"),
        # rows with exact zeros among positive values (a mask taken from x != 0 drops them); and float32 rows
        # wider than 16,384 (a tile capped as Triton's layer-norm tutorial caps it, without its error)
        (8, 60, "with zeros", f32, "contiguous"),
        (2, 20000, "mixed", f32, "contiguous"),
        # float16 x into a float32 out: the result is stored in out's dtype, not rounded to x's first
        (16, 100, "mixed, out float32", f16, "contiguous"),
        # narrow rows of mean 3000 (a shift or a count fitted to wide rows cancels there), and a transposed
        # row wider than 4,096 (a path for wide rows that takes the column stride as 1)
        (8, 5, "mean 3000", f32, "contiguous"),
        (3, 5000, "mixed", f32, "transposed"),
        # the shape called with eps=1e-3 above, with the default eps: a launch kept by shape holds the old eps
        (5, 200, "near 0.03", f32, "contiguous"),
        (2, 5000, "near 0.03, eps=1e-3", f32, "contiguous"),  # wider than 4,096: a wide path that drops eps
    ]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        seed = 900 + i
        x = _rows_of(kind, rows, cols, seed)
        weight = values(cols, "positive", seed + 50)  # 0.5 to 1.5: a kernel that skips it is off
        bias = values(cols, "mixed", seed + 60)
        traits = frozenset({"large_mean"} if kind == "mean 3000" else set())
        traits |= {"called_block_rows"} if "BLOCK_ROWS=" in kind else set()
        inputs = (x.to(dtype), weight.to(dtype), bias.to(dtype))
        out_dtype = torch.float32 if "out float32" in kind else dtype
        case = row_case(inputs, (rows, cols), kind, layout, traits, out_dtype=out_dtype)
        keywords = {
            "near 0.03, eps=1e-3": (("eps", 1e-3),),
            "near 1e-3, eps=0": (("eps", 0.0),),
            "mixed, BLOCK_ROWS=1": (("BLOCK_ROWS", 1),),
        }.get(kind, ())
        # a tiling the function need not take: notebook 09's looped forms have no BLOCK_ROWS
        cases.append(replace(case, keywords=keywords, optional="BLOCK_ROWS=" in kind))
    return cases


def _rows_of(kind: str, rows: int, cols: int, seed: int) -> torch.Tensor:
    """A (rows, cols) float64 matrix of one of the battery's kinds."""
    u = values(rows * cols, "mixed", seed).double().view(rows, cols)  # in [-1, 1)
    if kind == "4 to 6":
        return 5 + u
    if kind == "a row of zeros, a row near 1e-3":
        return torch.cat([u[:1], 0 * u[1:2], u[2:4], 1e-3 * u[4:5], u[5:]])
    if kind == "mean 3000":
        return 3000 + u
    if kind in ("near 0.03, eps=1e-3", "near 0.03"):
        return 0.03 * u
    if kind == "near 1e-3, eps=0":
        return 1e-3 * u
    if kind == "near 300":
        return 300 + 30 * u
    if kind in ("mixed, BLOCK_ROWS=1", "mixed, out float32"):
        return u
    if kind == "with zeros":
        return u.clamp_min(0.0)  # about half of them 0
    return values(rows * cols, kind, seed).double().view(rows, cols)


def _rms_cases(large: bool) -> list[Case]:
    """The battery without bias: rms_norm(x, weight, out)."""
    return [replace(c, inputs=c.inputs[:2]) for c in _norm_cases(large)]


def _normalised(x, weight, bias, mean, var, eps=EPS, eps_outside=False) -> torch.Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias per row, float64; mean and var are (rows, 1)."""
    scale = 1 / (var.sqrt() + eps) if eps_outside else 1 / (var + eps).sqrt()
    out = (x - mean) * scale * weight
    return out if bias is None else out + bias


def _moments(x: torch.Tensor, centred: bool, count: int | None = None):
    """(mean, var) per row as the exercise defines them (var biased; RMSNorm: mean 0, var the mean
    square), the sums divided by `count` instead of n_cols where given."""
    n = x.shape[1] if count is None else count
    if not centred:
        return torch.zeros_like(x[:, :1]), (x * x).sum(dim=1, keepdim=True) / n
    mean = x.sum(dim=1, keepdim=True) / n
    return mean, ((x - mean) ** 2).sum(dim=1, keepdim=True) / n


def _rms_reference(x, weight, eps=EPS, BLOCK_ROWS=None, num_warps=None):  # the tile changes nothing
    mean, var = _moments(x, centred=False)
    return _normalised(x, weight, None, mean, var, eps=eps)


def _layer_reference(x, weight, bias, eps=EPS, BLOCK_ROWS=None, num_warps=None):
    mean, var = _moments(x, centred=True)
    return _normalised(x, weight, bias, mean, var, eps=eps)


def _norm_tolerance(case: Case) -> tuple[float, float]:
    """(atol, rtol) for one case. A float32 sum of a row errs by up to grow * max|x| plus grow of the sum
    (16 epsilons per sqrt(term), which admits a serial loop), so the mean square, and with it out, errs
    by up to grow relative; layer_norm's mean errs by up to grow * (|mean| + max|x| / n_cols), and
    x - mean by as much, which out scales by weight / sqrt(var + eps): atol. A float16 out rounds by up
    to 2^-11 relative, or by half of 2^-24 below 2^-14; rtol and atol leave a factor of two or more."""
    x = case.inputs[0].double()
    weight = case.inputs[1].double()
    cols = x.shape[1]
    grow = 16 * FP32_EPS * math.sqrt(cols + 1)
    atol, rtol = 1e-6, 1e-5 + grow
    if len(case.inputs) == 3:  # layer_norm: the mean's error, scaled like x - mean
        mean, var = _moments(x, centred=True)
        mean_error = grow * (mean.abs() + x.abs().amax(dim=1, keepdim=True) / cols)
        eps = case.kwargs.get("eps", EPS)
        atol += (mean_error / (var + eps).sqrt()).max().item() * weight.abs().max().item()
        atol += 1e-6 * case.inputs[2].double().abs().max().item()
    if case.out_dtype == torch.float16:
        atol, rtol = atol + 2.0**-24, rtol + 2e-3
    return atol, rtol


def _norm_predictions(case: Case, on_gpu: bool) -> Predictions:
    x, weight = case.inputs[0].double(), case.inputs[1].double()
    bias = case.inputs[2].double() if len(case.inputs) == 3 else None
    centred = bias is not None
    rows, cols = x.shape
    eps = case.kwargs.get("eps", EPS)
    mean, var = _moments(x, centred)
    reference = _normalised(x, weight, bias, mean, var, eps=eps)
    out: Predictions = {}
    predict(out, "missing_eps", None, _normalised(x, weight, bias, mean, var, eps=0.0))
    predict(out, "eps_outside_sqrt", None, _normalised(x, weight, bias, mean, var, eps=eps, eps_outside=True))
    for other in OTHER_EPS:
        with_other = _normalised(x, weight, bias, mean, var, eps=other)
        predict(out, "eps_value", other, with_other)
        # another default, the call's eps kept where it passes one
        predict(out, "eps_value", (other, "the default"), reference if "eps" in case.kwargs else with_other)
    # the default where the call passed another: a case with the default gives the reference here
    with_default = _normalised(x, weight, bias, mean, var, eps=EPS)
    predict(out, "eps_ignored", None, with_default)
    # the default only where the call passed 0 (eps or 1e-5)
    predict(out, "eps_ignored", "0 replaced", with_default if eps == 0 else reference)
    ones = torch.ones_like(weight)
    predict(out, "weight_not_applied", None, _normalised(x, ones, bias, mean, var, eps=eps))
    if centred:
        predict(out, "bias_not_added", None, _normalised(x, weight, None, mean, var, eps=eps))
        predict(out, "mean_not_subtracted", None, _normalised(x, weight, bias, 0 * mean, var, eps=eps))
        # n / (n - 1): a row of one column divides 0 by 0
        unbiased = var * cols / (cols - 1) if cols > 1 else torch.full_like(var, math.nan)
        predict(out, "unbiased_variance", None, _normalised(x, weight, bias, mean, unbiased, eps=eps))
        # ... or by max(n_cols - 1, 1), a guard for the row of one column
        guarded = var * cols / max(cols - 1, 1)
        predict(out, "unbiased_variance", "guarded", _normalised(x, weight, bias, mean, guarded, eps=eps))
    if rows > 1:
        first_mean, first_var = _moments(x[:1], centred)
        first = _normalised(x[:1], weight, bias, first_mean, first_var, eps=eps).expand(rows, cols)
        predict_missing_row_offset(out, reference, first)
    # The masked lanes of the row's last tile of b columns: counted in the divisor, or, in layer_norm,
    # loaded as 0.0 and centred without tl.where, so that each adds mean^2 to the variance.
    for b in POWERS_OF_TWO:
        lanes = -(-cols // b) * b  # the lanes that a single tile, or a loop of tiles, visits
        pad = lanes - cols
        if not pad:
            continue
        counted_mean, counted_var = _moments(x, centred, lanes)
        predict(out, "divided_by_block", b, _normalised(x, weight, bias, counted_mean, counted_var, eps=eps))
        if centred:  # the mean's sum alone, or the variance's alone, divided by the lanes
            mean_only = _moments(x - counted_mean, False)[1]  # about the wrong mean, divided by n_cols
            predict(
                out,
                "divided_by_block",
                (b, "the mean"),
                _normalised(x, weight, bias, counted_mean, mean_only, eps=eps),
            )
            predict(
                out,
                "divided_by_block",
                (b, "the variance"),
                _normalised(x, weight, bias, mean, var * cols / lanes, eps=eps),
            )
            padded_var = var + pad * mean**2 / cols
            padded = _normalised(x, weight, bias, mean, padded_var, eps=eps)
            predict(out, "masked_lanes_in_variance", b, padded)
    return out


TRAITS = {
    "fp16": "fp16_accumulation",
    "strided": "ignores_strides",
    "called_block_rows": "block_rows_not_followed",
}


def _norm(id: str, signature: str, description: str, hint: str, centred: bool) -> Exercise:
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=_norm_cases if centred else _rms_cases,
        reference=_layer_reference if centred else _rms_reference,
        compare="sum",
        tolerance=_norm_tolerance,
        predictions=_norm_predictions,
        mistakes=mistakes(MESSAGES, **_WORDS),
        trait_mistakes={**TRAITS, "large_mean": "one_pass_variance"} if centred else TRAITS,
        trait_probes={"fp16": lambda case: float16_exact(case, zero_mean=True)},
        strided_out=True,  # out comes with its strides, which notebook 09's kernels take
    )


EXERCISES = [
    _norm(
        "rms_norm",
        "rms_norm(x, weight, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None)",
        "out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight for 2-D x of any strides, float16 or "
        "float32, weight 1-D of n_cols, out of x's shape in its own dtype and strides",
        "one program per row, as in notebook 08; watch the mean: divide by n_cols, not by the tile's "
        "width, and put eps inside the square root.",
        centred=False,
    ),
    _norm(
        "layer_norm",
        "layer_norm(x, weight, bias, out, eps=1e-5, BLOCK_ROWS=None, num_warps=None)",
        "out[r, :] = (x[r, :] - mean) / sqrt(var + eps) * weight + bias per row (var divided by n_cols) "
        "for 2-D x of any strides, float16 or float32, weight and bias 1-D of n_cols, out of x's shape in "
        "its own dtype and strides",
        "start from rms_norm_kernel of section 3; watch the masked lanes after centring: x - mean is "
        "not 0 there any more (section 5's second picture), and divide the variance by n_cols.",
        centred=True,
    ),
]
