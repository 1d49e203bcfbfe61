"""The row-normalisation family (notebook 09; the stretch of issue 17): RMSNorm and LayerNorm forward.

    rms_norm:   out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight
    layer_norm: out[r, :] = (x[r, :] - mean_r) / sqrt(var_r + eps) * weight + bias

for a 2-D x of any strides, float16 or float32, weight and bias 1-D of n_cols in x's dtype, out in x's
dtype, eps = 1e-5 (torch's default for layer_norm) unless the call passes eps=, and var_r the biased
variance (divided by n_cols).
Like the softmax, each row is reduced (to its mean square, or to its mean and then its variance) and then
written whole, so the mistakes are those of the row family (offsets, strides, float16 sums) and of
notebook 04 and 06's sums (masked lanes, the count to divide by, a variance that cancels), plus the
normalisation's own: eps missing or misplaced, weight or bias forgotten, the mean not subtracted.

The battery holds rows of one column, many short rows, widths just past a power of two, transposed and
sliced views, a float16 long row whose sums overflow float16 (values 4 to 6, 16,384 of them), a row of
zeros and a row of values near 1e-3 (where eps decides the result), rows whose mean of about 3000
dwarfs their spread, where layer_norm's variance computed as E[x^2] - E[x]^2 cancels in float32, rows of
values near 0.03 called with eps=1e-3 (a kernel that ignores the argument uses 1e-5 there), and a tall
matrix of short rows, with more rows than columns.

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
    "eps_outside_sqrt": "the row of values near 1e-3 is off while the others pass: eps was added outside the "
    "square root, 1 / (sqrt(v) + eps), where the contract is 1 / sqrt(v + eps).",
    "eps_value": "only the row of values near 1e-3 is off, where eps is as large as the mean square: eps "
    "is not this exercise's 1e-5. Use eps = 1e-5 (a different eps changes only such rows).",
    "eps_ignored": "only the case called with eps=1e-3 is off, and by exactly what eps = 1e-5 gives: the "
    "eps argument did not reach the kernel. Pass the function's eps to the kernel instead of a "
    "constant.",
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
    "ignores_strides": "contiguous inputs pass but transposed or sliced views fail: pass x.stride(0) and "
    "x.stride(1) to the kernel and use both in the offsets (a row stride is not n_cols, and the column "
    "stride is not 1, for every view).",
    "fp16_accumulation": "only float16 cases fail: the row's sums were kept in float16, where a sum of "
    "16,384 values near 5 (or their squares) passes float16's largest value, 65,504, and becomes inf. "
    "Convert the loaded tile with .to(tl.float32), compute in float32, and convert only what you store.",
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
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        seed = 900 + i
        x = _rows_of(kind, rows, cols, seed)
        weight = values(cols, "positive", seed + 50)  # 0.5 to 1.5: a kernel that skips it is off
        bias = values(cols, "mixed", seed + 60)
        traits = frozenset({"large_mean"} if kind == "mean 3000" else set())
        inputs = (x.to(dtype), weight.to(dtype), bias.to(dtype))
        case = row_case(inputs, (rows, cols), kind, layout, traits, out_dtype=dtype)
        cases.append(replace(case, keywords=(("eps", 1e-3),)) if "eps=" in kind else case)
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
    if kind == "near 0.03, eps=1e-3":
        return 0.03 * u
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


def _rms_reference(x, weight, eps=EPS):
    mean, var = _moments(x, centred=False)
    return _normalised(x, weight, None, mean, var, eps=eps)


def _layer_reference(x, weight, bias, eps=EPS):
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
        predict(out, "eps_value", other, _normalised(x, weight, bias, mean, var, eps=other))
    # the default where the call passed another: a case with the default gives the reference here
    predict(out, "eps_ignored", None, _normalised(x, weight, bias, mean, var, eps=EPS))
    ones = torch.ones_like(weight)
    predict(out, "weight_not_applied", None, _normalised(x, ones, bias, mean, var, eps=eps))
    if centred:
        predict(out, "bias_not_added", None, _normalised(x, weight, None, mean, var, eps=eps))
        predict(out, "mean_not_subtracted", None, _normalised(x, weight, bias, 0 * mean, var, eps=eps))
        # n / (n - 1): a row of one column divides 0 by 0
        unbiased = var * cols / (cols - 1) if cols > 1 else torch.full_like(var, math.nan)
        predict(out, "unbiased_variance", None, _normalised(x, weight, bias, mean, unbiased, eps=eps))
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


TRAITS = {"fp16": "fp16_accumulation", "strided": "ignores_strides"}


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
    )


EXERCISES = [
    _norm(
        "rms_norm",
        "rms_norm(x, weight, out, eps=1e-5)",
        "out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight for 2-D x of any strides, float16 or "
        "float32, weight 1-D of n_cols, out in x's dtype",
        "one program per row, as in notebook 08; watch the mean: divide by n_cols, not by the tile's "
        "width, and put eps inside the square root.",
        centred=False,
    ),
    _norm(
        "layer_norm",
        "layer_norm(x, weight, bias, out, eps=1e-5)",
        "out[r, :] = (x[r, :] - mean) / sqrt(var + eps) * weight + bias per row (var divided by n_cols) "
        "for 2-D x of any strides, float16 or float32, weight and bias 1-D of n_cols, out in x's dtype",
        "start from rms_norm_kernel of section 3; watch the masked lanes after centring: x - mean is "
        "not 0 there any more (section 5's second picture), and divide the variance by n_cols.",
        centred=True,
    ),
]
