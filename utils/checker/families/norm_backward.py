"""A LayerNorm's dx (notebook 10; issue 31): the gradient through a row's normalisation, a row reduction.

layer_norm_dx(x, w, dy, mean, rstd, dx): with xhat = (x - mean[r]) * rstd[r] (the forward's saved mean
and rstd) and g = dy * w, dx[r, :] = rstd[r] * (g - xhat * c1 - c2), where c1 = the row's mean of
g * xhat and c2 = the row's mean of g. x and dy are 2-D of one shape and any strides, float16 or
float32; w float32 per column; mean and rstd float32 per row; dx in x's dtype. Two reductions of the row,
then a pass that uses both, as in the forward: x and dy read once, dx written once.

The mistakes are the formula's (the outer rstd left out, either mean term left out, the weight left out
of g) and the row's (a mean taken over the tile's lanes instead of n_cols, or over n_cols - 1; the row
offset; the strides). The battery holds one row, many short rows, widths that are not powers of two,
rows of mean 3,000 (and of 40 in float16) and constant rows (xhat 0), float16 x and dy, transposed and
sliced views, x and dy laid out differently. rms_norm_dx(x, w, dy, rstd, dx) is the same for an RMSNorm:
xhat = x * rstd[r], dx[r, :] = rstd[r] * (g - xhat * c1), no mean; its cases are the same rows bar the
shifted ones, rstd = 1 / sqrt(mean(x^2) + eps). Its own mistake is LayerNorm's c2, the row's mean of g,
subtracted as well (`mean_of_g_subtracted`).
"""

from __future__ import annotations

from dataclasses import replace

import torch

from utils.checker.data import values
from utils.checker.families.backward import MESSAGES as BACKWARD_MESSAGES
from utils.checker.families.norms import EPS
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case, scaled_and_shifted
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_missing_row_offset

MESSAGES = {
    "rstd_factor_missing": "dx is off by the row's rstd: the gradient through the scale by rstd multiplies "
    "the whole bracket, dx = rstd * (g - xhat * c1 - c2).",
    "mean_of_g_missing": "dx lacks the row's mean of g = dy * w: the gradient through the shift by the "
    "mean subtracts it, dx = rstd * (g - xhat * c1 - c2) with c2 the mean of g.",
    "xhat_term_missing": "dx lacks the xhat * c1 term, c1 the row's mean of g * xhat: the gradient through "
    "rstd (which depends on every x of the row) gives it.",
    "w_left_out": "dx was computed from dy alone: the weight scales the gradient first, g = dy * w, and "
    "both means are taken of g.",
    "wrong_count": "the row's means are off by a constant factor: they were divided by the tile's width "
    "(a power of two) or by n_cols - 1, not by n_cols. Masked lanes add nothing to the sums; the mean "
    "divides by the row's own length.",
    "missing_row_offset": "rows landed in the wrong place: every row of dx holds row 0's gradient, or only "
    "dx's first row was written. The row is missing from an input's offset or from dx's.",
    "rstd_recomputed": "dx is what an rstd computed again from x with notebook 09's eps, 1e-5, gives, not "
    "the rstd passed in: the cases that show it come from forwards built with another eps (1e-3, 1e-7), "
    "which save another rstd. Use the saved rstd as it is given: a backward cannot know the forward's eps.",
    "cancels_digits": "only the rows with a mean of 3,000 fail, and the same rows shifted to a mean near 0 "
    "pass: x̂ lost digits where x and the mean are large and nearly equal. Subtract the mean first, then "
    "scale: x̂ = (x - mean) * rstd. Scaling first (x * rstd - mean * rstd), or splitting a mean the same "
    "way (rstd * (mean of g * x - mean * mean of g)), subtracts two large, nearly equal numbers and keeps "
    "few of x's digits.",
    "mean_of_g_subtracted": "dx subtracts the row's mean of g = dy * w, as a LayerNorm's does: an RMSNorm "
    "does not shift x by its mean, so its dx = rstd * (g - xhat * c1) has no such term.",
    "ignores_strides": BACKWARD_MESSAGES["ignores_strides"],
    "fp16_accumulation": "only float16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: the arithmetic went through float16, which keeps 11 significant bits (the "
    "row's sums, x - mean or the products, done in the inputs' dtype, or a sum, the mean or rstd converted "
    "to it). Convert loaded tiles with .to(tl.float32), keep the mean and rstd in float32, convert only dx.",
}
_WORDS = dict(identity="other=0.0 for x, dy and w", reset="nothing: dx is stored", out="dx")


# Two cases' statistics come from forwards with another eps than 09's (nn.LayerNorm(n, eps=1e-3) is one): an
# rstd computed again shows there. The second's rows vary by about 3e-9 beside eps 1e-7: its rstd is about
# 3,000, above 1/sqrt(1e-5), where an rstd capped at the largest that notebook 09's eps gives shows.
SAVED_EPS = 1e-3
SAVED_KIND = "saved with eps 1e-3"
SHIFTS = {"mean 3000": 3000.0, "mean 40": 40.0}  # the kinds whose x is shifted, by how much
TINY_EPS_KIND = "saved with eps 1e-7, rstd near 3,000"
OTHER_EPS = {SAVED_KIND: (0.03, SAVED_EPS), TINY_EPS_KIND: (1e-4, 1e-7)}  # kind: (x's scale, the eps saved)


def eps_saved(traits) -> float:
    """The eps a case's statistics were saved with: OTHER_EPS's for its kinds, notebook 09's otherwise."""
    return next((OTHER_EPS[trait][1] for trait in traits if trait in OTHER_EPS), EPS)


def saved_statistics(x: torch.Tensor, eps: float = EPS) -> tuple[torch.Tensor, torch.Tensor]:
    """(mean, rstd) of each row of x, in float32, as a LayerNorm forward saves them (notebook 09's eps)."""
    mean = x.double().mean(dim=1)
    rstd = 1 / torch.sqrt(x.double().var(dim=1, correction=0) + eps)
    return mean.float(), rstd.float()


def _inputs(rows: int, cols: int, kind: str, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, ...]:
    """(x, w, dy, mean, rstd): x of mixed values (shifted as SHIFTS says, scaled by 10^-3 for "small",
    where eps outweighs the variance, and as OTHER_EPS says for its kinds, whose statistics are saved with
    its eps), w around 1, dy of mixed signs; x and dy rounded to `dtype`, mean and rstd of the rounded x."""
    x = values(rows * cols, "mixed", seed).double().view(rows, cols)
    scale, eps = OTHER_EPS.get(kind, (1e-3 if kind == "small" else 1.0, EPS))
    x = x + SHIFTS[kind] if kind in SHIFTS else x * scale
    w = values(cols, "positive", seed + 1)
    dy = values(rows * cols, "mixed", seed + 2).double().view(rows, cols)
    if kind == "zeros in x and dy":  # a ReLU's output, a masked loss's dy: counts taken from x != 0 show
        x, dy[:, ::4] = x.clamp_min(0.0), 0.0
    if kind == "constant rows":  # xhat 0 there, yet dx = rstd (g - mean(g)), rstd 1 / sqrt(eps)
        x[::3] = 1.5
    x, dy = x.to(dtype), dy.to(dtype)
    return x, w, dy, *saved_statistics(x, eps)


def _other_values(inputs: tuple[torch.Tensor, ...]) -> tuple[tuple[torch.Tensor, ...], str]:
    """The probes' B (Exercise.other_values): x, w and dy scaled and shifted, with that x's mean and rstd."""
    x, w, dy = map(scaled_and_shifted, inputs[:3])
    other = (x, w, dy, *saved_statistics(x))
    return other, "A's x, w and dy times -1.5, plus 0.25, with the mean and rstd of that x"


def _cases(large: bool) -> list[Case]:
    f32, f16 = torch.float32, torch.float16
    specs: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 7, "mixed", f32, "contiguous"),
        (3, 5, "mixed", f32, "contiguous"),
        (300, 5, "mixed", f32, "contiguous"),  # many short rows
        (7, 1000, "mixed", f32, "contiguous"),
        (33, 515, "mixed", f32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", f16, "sliced"),
        (16, 300, "mean 3000", f32, "contiguous"),
        (2, 4099, "mixed", f32, "sliced"),  # just over a tile of 4096
        (130, 64, "mixed", f16, "contiguous"),  # float16 apart from a strided layout
        (37, 300, "mixed", f32, "mixed"),  # x transposed, dy contiguous: one's strides used for the other's
        (24, 200, "small", f32, "contiguous"),  # var about 3e-7 beside eps = 1e-5: an rstd recomputed shows
        (12, 200, SAVED_KIND, f32, "contiguous"),  # var near 1e-3: rstd recomputed with 1e-5 is far off
        (10, 300, TINY_EPS_KIND, f32, "contiguous"),
        (5, 1, "mixed", f32, "contiguous"),  # rows of one column: dx is 0
        (4, 257, "zeros in x and dy", f32, "contiguous"),  # one past a chunk of 128 or 256
        (6, 512, "mixed", f32, "contiguous"),  # a multiple of every chunk up to 512: no partial last one
        (9, 300, "constant rows", f32, "contiguous"),
        # float16 steps 1/32 near 40: a mean or x - mean in float16 is off a few percent of x's spread
        (6, 320, "mean 40", f16, "contiguous"),
    ]
    if large:
        specs += [(4096, 1024, "mixed", f16, "contiguous"), (64, 16387, "mixed", f32, "sliced")]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        inputs = _inputs(rows, cols, kind, dtype, 1500 + 3 * i)
        traits = frozenset({kind}) & {"mean 3000", *OTHER_EPS}
        traits |= {"saved_eps"} if kind in OTHER_EPS else set()  # the kinds of another eps, as one trait
        cases.append(row_case(inputs, (rows, cols), kind, layout, traits, out_dtype=dtype))
    return cases


def _dx(x, w, dy, mean, rstd, count=None, rstd_factor=True, c1_term=True, c2_term=True):
    """dx in float64, with the row's means divided by `count` (n_cols if None) and terms left out."""
    count = x.shape[1] if count is None else count
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = dy * w
    c1 = (g * xhat).sum(dim=1, keepdim=True) / count
    c2 = g.sum(dim=1, keepdim=True) / count
    bracket = g - (xhat * c1 if c1_term else 0) - (c2 if c2_term else 0)
    return bracket * rstd[:, None] if rstd_factor else bracket


def _tolerance(case: Case, layer: bool = True) -> tuple[torch.Tensor, float]:
    """(atol per element of dx, rtol): a mean is a float32 sum of n terms, off by about sqrt(n) roundings of
    the largest (16 epsilons per sqrt(n)); xhat rounds x - mean and its scale, each by an epsilon of
    |x - mean| * rstd (x * rstd - mean * rstd loses more for "mean 3000"); the bracket and the scale by rstd
    add a few; for a LayerNorm, see `centred`. A float16 dx rounds by 2^-11, 2^-25 below 2^-14."""
    x, w, dy, mean, rstd = (t.double() for t in case.inputs)
    n = x.shape[1]
    eps = 2.0**-24
    r = rstd.abs()[:, None]
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = dy * w
    c1 = (g * xhat).mean(dim=1, keepdim=True)
    c2 = g.mean(dim=1, keepdim=True)
    xhat_err = 4 * eps * (x - mean[:, None]).abs() * r  # x - mean is exact where x is near the mean
    c1_err = 16 * eps / n**0.5 * (g * xhat).abs().amax(dim=1, keepdim=True) + (g.abs() * xhat_err).mean(
        dim=1, keepdim=True
    )
    c2_err = 16 * eps / n**0.5 * g.abs().amax(dim=1, keepdim=True)
    bracket = g.abs() + (xhat * c1).abs() + c2.abs()
    # c1 = mean((g - c2) * xhat), as exact, is off the formula where a rounded mean leaves mean(xhat) ≠ 0
    centred = (xhat * c2 * xhat.mean(dim=1, keepdim=True)).abs() if layer else 0
    atol = r * (xhat.abs() * c1_err + xhat_err * c1.abs() + c2_err + 8 * eps * bracket + centred)
    if case.out_dtype == torch.float16:
        return atol + 2.0**-24, 2e-3
    return atol, 1e-5


def _float16_exact(case: Case) -> Case:
    """The probe for the "fp16" trait: `case` with x 1, mean 0, rstd 1 and w 1, and dy alternating +1 and -1
    along each row (0 in an odd row's last column): both of the row's sums are exactly 0 in any float, so
    dx is dy, and a float16 accumulator does no harm, while a mistake of another kind still shows."""
    x, w, dy, mean, rstd = case.inputs
    rows, cols = x.shape
    signs = torch.tensor([1.0, -1.0], dtype=torch.float64).repeat(cols // 2 + 1)[:cols]
    if cols % 2:
        signs[-1] = 0.0
    dy_exact = signs.expand(rows, cols)
    inputs = (
        torch.ones_like(x),
        torch.ones_like(w),
        dy_exact.to(dy.dtype),
        torch.zeros_like(mean),
        torch.ones_like(rstd),
    )
    return replace(case, name=f"{case.name}, sums float16 holds exactly", inputs=inputs, traits=frozenset())


def mean_near_zero(case: Case) -> Case:
    """The probe for the "mean 3000" trait of the backward exercises, whose inputs start with x and end with
    (mean, rstd): `case` with 3,000 taken from x and from the mean (both exact in float32 there), the rest
    kept: the same x̂, dx, dW and db, with nothing large left to cancel. A kernel that loses digits to the
    large mean passes it; a mistake of another kind still shows."""
    x, *between, mean, rstd = case.inputs
    inputs = (x - 3000.0, *between, mean - 3000.0, rstd)
    return replace(case, name=f"{case.name}, shifted to a mean near 0", inputs=inputs, traits=frozenset())


def _dx_predictions(inputs: tuple[torch.Tensor, ...], layer: bool, saved_eps: bool) -> Predictions:
    """The mistakes' dx, from (x, w, dy, mean, rstd), in float64, for a LayerNorm (`layer`, with its c2
    term) or an RMSNorm (mean 0, no c2 term): the same mistakes, but for the c2 term, missing from a
    LayerNorm's dx or subtracted in an RMSNorm's. `saved_eps`: the statistics were saved with an eps of
    OTHER_EPS, where an rstd computed again with notebook 09's eps differs."""
    x, w, dy, mean, rstd = (t.double() for t in inputs)
    rows, cols = x.shape
    out: Predictions = {}
    if saved_eps:
        spread = x.var(dim=1, correction=0) if layer else x.pow(2).mean(dim=1)
        rstd_again = 1 / torch.sqrt(spread + EPS)
        predict(out, "rstd_recomputed", None, _dx(x, w, dy, mean, rstd_again, c2_term=layer))
    predict(out, "rstd_factor_missing", None, _dx(x, w, dy, mean, rstd, rstd_factor=False, c2_term=layer))
    c2_mistake = "mean_of_g_missing" if layer else "mean_of_g_subtracted"
    predict(out, c2_mistake, None, _dx(x, w, dy, mean, rstd, c2_term=not layer))
    predict(out, "xhat_term_missing", None, _dx(x, w, dy, mean, rstd, c1_term=False, c2_term=layer))
    predict(out, "w_left_out", None, _dx(x, torch.ones_like(w), dy, mean, rstd, c2_term=layer))
    for block in (b for b in POWERS_OF_TWO if b > cols):  # the tile's width, in place of n_cols
        predict(out, "wrong_count", block, _dx(x, w, dy, mean, rstd, count=block, c2_term=layer))
    # (a row of one column divides by 0: NaN or inf, as the kernel's float32 gives them too)
    predict(out, "wrong_count", "n_cols - 1", _dx(x, w, dy, mean, rstd, count=cols - 1, c2_term=layer))
    if rows > 1:
        right = _dx(x, w, dy, mean, rstd, c2_term=layer)
        first = _dx(x[:1], w, dy[:1], mean[:1], rstd[:1], c2_term=layer).expand(rows, cols)
        predict_missing_row_offset(out, right, first)
    return out


def _predictions(case: Case, on_gpu: bool) -> Predictions:
    return _dx_predictions(case.inputs, layer=True, saved_eps="saved_eps" in case.traits)


EXERCISES = [
    Exercise(
        id="layer_norm_dx",
        signature="layer_norm_dx(x, w, dy, mean, rstd, dx)",
        description="a LayerNorm's dx[r, :] = rstd * (g - xhat * mean(g * xhat) - mean(g)), g = dy * w, xhat "
        "= (x - mean) * rstd, for 2-D x and dy of one shape and any strides (float16 or float32), float32 "
        "w per column, float32 mean and rstd per row, dx in x's dtype: two row reductions, then a pass",
        hint="start from the forward's one-row kernel with the saved mean and rstd: two reductions of the "
        "row, then a pass that uses both; watch what each mean divides by (the row's length) and where "
        "rstd and the weight come in.",
        cases=_cases,
        reference=_dx,
        compare="sum",
        tolerance=_tolerance,
        predictions=_predictions,
        mistakes=mistakes(MESSAGES, **_WORDS),
        trait_mistakes={
            "fp16": "fp16_accumulation",
            "strided": "ignores_strides",
            "mean 3000": "cancels_digits",
        },
        strided_out=True,  # dx comes with its strides, which notebook 10's dx kernels take
        trait_probes={"fp16": _float16_exact, "mean 3000": mean_near_zero},
        other_values=_other_values,
    )
]


def rms_statistics(x: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """rstd of each row of x, in float32, as an RMSNorm forward saves it: 1 / sqrt(mean(x^2) + eps)."""
    return (1 / torch.sqrt(x.double().pow(2).mean(dim=1) + eps)).float()


def _as_layer_norm(inputs) -> tuple[torch.Tensor, ...]:
    """An RMSNorm case's (x, w, dy, rstd) as a LayerNorm's (x, w, dy, mean, rstd) with mean 0."""
    x, w, dy, rstd = inputs
    return x, w, dy, torch.zeros_like(rstd), rstd


def _rms_cases(large: bool) -> list[Case]:
    """LayerNorm's cases with an RMSNorm's rstd, less the rows shifted to a large mean: an RMSNorm has no mean
    to cancel, and their rstd of about 1/3,000 scales the tolerance so far down that a dx without the outer
    rstd, 3,000 times too large, no longer matches its prediction within it."""
    return [
        replace(case, inputs=(x, w, dy, rms_statistics(x, eps_saved(case.traits))))
        for case in _cases(large)
        if not any(shifted in case.name for shifted in SHIFTS)
        for x, w, dy, _, _ in [case.inputs]
    ]


def _rms_other_values(inputs: tuple[torch.Tensor, ...]) -> tuple[tuple[torch.Tensor, ...], str]:
    """As _other_values, for an RMSNorm: x, w and dy scaled and shifted, with the rstd of that x."""
    x, w, dy = map(scaled_and_shifted, inputs[:3])
    return (x, w, dy, rms_statistics(x)), "A's x, w and dy times -1.5, plus 0.25, with the rstd of that x"


def _rms_reference(x, w, dy, rstd) -> torch.Tensor:
    return _dx(x, w, dy, torch.zeros_like(rstd), rstd, c2_term=False)


def _rms_tolerance(case: Case) -> tuple[torch.Tensor, float]:
    return _tolerance(replace(case, inputs=_as_layer_norm(case.inputs)), layer=False)


def _rms_float16_exact(case: Case) -> Case:
    """As _float16_exact: x 1, rstd 1, w 1 and dy alternating, so the row's one sum is exactly 0."""
    exact = _float16_exact(replace(case, inputs=_as_layer_norm(case.inputs)))
    x, w, dy, _, rstd = exact.inputs
    return replace(exact, inputs=(x, w, dy, rstd))


def _rms_predictions(case: Case, on_gpu: bool) -> Predictions:
    return _dx_predictions(_as_layer_norm(case.inputs), layer=False, saved_eps="saved_eps" in case.traits)


_RMS_MESSAGES = {code: text for code, text in MESSAGES.items() if code != "mean_of_g_missing"}
_RMS_MESSAGES["fp16_accumulation"] = MESSAGES["fp16_accumulation"].replace(
    "the row's sums, x - mean or the products", "the row's sum or the products"
)
_RMS_MESSAGES["rstd_factor_missing"] = (
    "dx is off by the row's rstd: the gradient through the scale by rstd multiplies the whole bracket, "
    "dx = rstd * (g - xhat * c1)."
)

EXERCISES.append(
    Exercise(
        id="rms_norm_dx",
        signature="rms_norm_dx(x, w, dy, rstd, dx)",
        description="an RMSNorm's dx[r, :] = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * "
        "rstd, for 2-D x and dy of one shape and any strides (float16 or float32), float32 w per column, "
        "float32 rstd per row, dx in x's dtype: one row reduction, then a pass",
        hint="start from the LayerNorm's dx with the mean gone: one reduction of the row, then a pass that "
        "uses it; watch what the mean divides by (the row's length) and which of LayerNorm's terms an "
        "RMSNorm has.",
        cases=_rms_cases,
        reference=_rms_reference,
        compare="sum",
        tolerance=_rms_tolerance,
        predictions=_rms_predictions,
        mistakes=mistakes(_RMS_MESSAGES, **_WORDS),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"},
        strided_out=True,  # dx comes with its strides, which notebook 10's dx kernels take
        trait_probes={"fp16": _rms_float16_exact},
        other_values=_rms_other_values,
    )
)
