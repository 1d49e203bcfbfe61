"""A LayerNorm's dW and db (notebook 10; issue 31): sums down the columns, across every row of the batch.

layer_norm_dw_db(x, dy, mean, rstd, out): out[0, j] = sum over rows r of dy[r, j] * xhat[r, j], with
xhat = (x - mean[r]) * rstd[r] from the forward's saved mean and rstd, and out[1, j] = sum over rows of
dy[r, j]. x and dy are 2-D of one shape and any strides, float16 or float32; mean and rstd float32, one
per row; out float32, (2, n_cols). The reduction runs the other way from every row reduction before it:
each program sums a block of rows (or a strided set of them) into a partial row, and the partial rows
are combined by atomics into a zeroed out, by a second pass over a buffer of partials, or by the last
program to arrive (07's ticket).

The mistakes are the combine's (a plain store where partial rows must be added: one program's partial
survives; atomics onto an out that was never zeroed; a single program's rows; the rows of whole blocks
only), and the formula's: dW and
db swapped, xhat without the shift by the mean or without the scale by rstd, or scaled before the shift
(digits lost where the mean is large). The battery holds one row,
many short rows, widths that are not powers of two, rows with a large mean (3,000), float16 x and dy,
transposed and sliced views, and more rows than a persistent grid has programs.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from utils.checker.data import values
from utils.checker.families.norm_backward import EPS, OTHER_EPS, SAVED_KIND, mean_near_zero, saved_statistics
from utils.checker.messages import TILE_MESSAGES
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case, scaled_and_shifted
from utils.checker.predictions import (
    POWERS_OF_TWO,
    Alternatives,
    Predictions,
    indistinct,
    not_predicted,
    predict,
    predict_each,
    race,
)

MESSAGES = {
    "store_race": TILE_MESSAGES["store_race"],
    "first_rows_only": "out holds the sums of the first rows only, a power-of-two block of them: one "
    "program's partial row with no others added (a grid of one program without a loop over the rows, or "
    "a second pass that reads only the first partial).",
    "last_rows_left_out": "out holds the sums of the first rows only, up to the end of the last whole "
    "block of rows (a power of two of them): the rows after it are left out. A grid of n_rows // BLOCK_ROWS "
    "programs, or a loop that stops at that many blocks, leaves them out: round up (triton.cdiv) and mask "
    "the last block's rows.",
    "dw_db_swapped": "out[0] holds db and out[1] holds dW: out[0] is the sum of dy * xhat (the weight's "
    "gradient), out[1] the sum of dy (the bias's).",
    "xhat_without_rstd": "out[0] is the sum of dy * (x - mean): xhat is (x - mean) * rstd, scaled by the "
    "row's rstd as the forward scaled it.",
    "xhat_without_mean": "out[0] is the sum of dy * x * rstd: xhat is (x - mean) * rstd, shifted by the "
    "row's mean first.",
    "ignores_strides": "only cases on transposed or sliced views fail, and every contiguous one passes: "
    "pass each input's stride(0) and stride(1) to the kernel and use each input's own two in its offsets "
    "(where the mixed case alone fails, x and dy laid out unlike each other, one input's strides served "
    "for the other's).",
    "fp16_accumulation": "only float16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: between the loads and out, x - mean, the products or the sums went through "
    "float16 (computed in it, or the mean converted to it), which keeps 11 significant bits. Convert the "
    "loaded tiles with .to(tl.float32) before subtracting or multiplying, keep the mean and rstd in "
    "float32, and keep every product, partial row and partial buffer in float32.",
    "rstd_recomputed": "out[0] is what an rstd computed again from x with notebook 09's eps, 1e-5, gives, "
    "not the rstd passed in: this case's forward saved its statistics with eps = 1e-3, as a LayerNorm "
    "built with another eps does. Use the saved rstd as it is given: a backward cannot know the forward's "
    "eps.",
    "cancels_digits": "only the rows with a mean of 3,000 fail, and the same rows shifted to a mean near 0 "
    "pass: x̂ lost digits where x and the mean are large and nearly equal. Subtract the mean first, then "
    "scale: x̂ = (x - mean) * rstd. Scaling first (x * rstd - mean * rstd), or splitting the sum the same "
    "way (rstd * (sum of dy * x - mean * sum of dy)), subtracts two large, nearly equal numbers and keeps "
    "few of x's digits.",
}
_WORDS = dict(identity="other=0.0 for x and dy", reset="out.zero_() before the launch")


def _inputs(rows: int, cols: int, kind: str, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, ...]:
    """(x, dy, mean, rstd): x of mixed values (shifted by 3,000 for "mean 3000", scaled as OTHER_EPS says
    for SAVED_KIND), dy of mixed signs, both rounded to `dtype`; mean and rstd of the rounded x, in float32,
    as a forward saves them (with OTHER_EPS's eps for SAVED_KIND)."""
    x = values(rows * cols, "mixed", seed).double().view(rows, cols)
    scale, eps = OTHER_EPS.get(kind, (1.0, EPS))  # the scale and eps norm_backward's cases of that kind use
    x = x + 3000.0 if kind == "mean 3000" else x * scale
    dy = values(rows * cols, "mixed", seed + 1).double().view(rows, cols)
    x, dy = x.to(dtype), dy.to(dtype)
    return x, dy, *saved_statistics(x, eps)


def _other_values(inputs: tuple[torch.Tensor, ...]) -> tuple[tuple[torch.Tensor, ...], str]:
    """The probes' B (Exercise.other_values): x and dy scaled and shifted, with the mean and rstd a forward
    saves for that x."""
    x, dy = map(scaled_and_shifted, inputs[:2])
    return (
        x,
        dy,
        *saved_statistics(x),
    ), "A's x and dy times -1.5, plus 0.25, with the mean and rstd of that x"


def _cases(large: bool) -> list[Case]:
    f32, f16 = torch.float32, torch.float16
    specs: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 7, "mixed", f32, "contiguous"),  # one row: dW is dy * xhat itself
        (3, 5, "mixed", f32, "contiguous"),
        (300, 5, "mixed", f32, "contiguous"),  # many short rows: more than a persistent grid's programs
        # right after it, one row of its width: a grid of fewer programs, beside slots the call before wrote
        (1, 5, "mixed", f32, "contiguous"),
        (37, 1000, "mixed", f32, "contiguous"),
        (33, 515, "mixed", f32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", f16, "sliced"),
        (64, 300, "mean 3000", f32, "contiguous"),  # x - mean cancels: the shift must come first
        (130, 64, "mixed", f16, "contiguous"),
        (9, 4099, "mixed", f32, "sliced"),  # just over a tile of 4096
        # x transposed, dy sliced: one input's strides used for the other's fail here
        (37, 300, "mixed", f32, "mixed"),
        (12, 200, SAVED_KIND, f32, "contiguous"),  # var near 1e-3: rstd recomputed with 1e-5 is far off
    ]
    if large:
        specs += [(4096, 1024, "mixed", f16, "contiguous"), (2000, 3000, "mixed", f32, "sliced")]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        inputs = _inputs(rows, cols, kind, dtype, 1300 + 2 * i)
        traits = frozenset({kind}) & {"mean 3000", SAVED_KIND}
        cases.append(row_case(inputs, (2, cols), kind, layout, traits))
    return cases


def _xhat(x: torch.Tensor, mean: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    return (x - mean[:, None]) * rstd[:, None]


def _reference(x: torch.Tensor, dy: torch.Tensor, mean: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    """[sum over rows of dy * xhat, sum over rows of dy], in float64."""
    return torch.stack([(dy * _xhat(x, mean, rstd)).sum(dim=0), dy.sum(dim=0)])


def _tolerance(case: Case) -> tuple[torch.Tensor, float]:
    """(atol per element of out, rtol). A float32 sum of n terms errs by about sqrt(n) roundings of the
    largest (16 epsilons per sqrt(n), as the checker's sums allow) when added as a tree, and by up to a few
    epsilons of the sum of their sizes when added one after another (an atomic per row): 4, each sum's
    second term. Each term of dW also carries the roundings of x - mean, of the scale by rstd and of the
    product with dy, each of |x - mean| * rstd * |dy| in size, inside that second term. x - mean itself is
    exact where x and the mean are within a factor of 2 of each other (Sterbenz), so a kernel that scales
    first, x * rstd - mean * rstd, loses more than this where the mean is large: the "mean 3000" case is
    there to show it."""
    x, dy, mean, rstd = (t.double() for t in case.inputs)
    rows = x.shape[0]
    eps = 2.0**-24
    terms = dy * _xhat(x, mean, rstd)
    dw = 16 * eps * rows**0.5 * terms.abs().amax(dim=0)
    dw = dw + 4 * eps * (dy.abs() * (x - mean[:, None]).abs() * rstd.abs()[:, None]).sum(dim=0)
    db = 16 * eps * rows**0.5 * dy.abs().amax(dim=0) + 4 * eps * dy.abs().sum(dim=0)
    return torch.stack([dw, db]), 1e-5


def _float16_exact(case: Case) -> Case:
    """The probe for the "fp16" trait: `case` with x and dy small whole numbers, mean 0 and rstd 1, so that
    every product and every column sum is a whole number under 2,048, which float16 holds exactly: a
    float16 accumulator does no harm there, and a mistake of another kind still shows."""
    x, dy, mean, rstd = case.inputs
    rows, cols = x.shape
    grid = torch.arange(rows * cols, dtype=torch.float64).view(rows, cols)
    x_exact, dy_exact = (grid % 5) - 2, ((grid // 3) % 3) - 1  # |x * dy| <= 2; a column sums under 2,048
    inputs = (x_exact.to(x.dtype), dy_exact.to(dy.dtype), torch.zeros_like(mean), torch.ones_like(rstd))
    return replace(case, name=f"{case.name}, sums float16 holds exactly", inputs=inputs, traits=frozenset())


def _predictions(case: Case, on_gpu: bool) -> Predictions:
    x, dy, mean, rstd = (t.double() for t in case.inputs)
    rows = x.shape[0]
    out: Predictions = {}
    terms, db = dy * _xhat(x, mean, rstd), dy
    right = torch.stack([terms.sum(dim=0), db.sum(dim=0)])
    predict(out, "dw_db_swapped", None, right.flip(0))
    predict(out, "xhat_without_rstd", None, torch.stack([(dy * (x - mean[:, None])).sum(dim=0), right[1]]))
    if SAVED_KIND in case.traits:
        rstd_again = 1 / torch.sqrt(x.var(dim=1, correction=0) + EPS)
        predict(
            out,
            "rstd_recomputed",
            None,
            torch.stack([(dy * _xhat(x, mean, rstd_again)).sum(dim=0), right[1]]),
        )
    if "mean 3000" in case.traits:  # there x * rstd is large: a float32 kernel's own roundings of it
        # exceed the tolerance, which allows for roundings of x - mean: the case cannot decide for the form
        not_predicted(out, "xhat_without_mean", None, right.numel())
    else:
        predict(out, "xhat_without_mean", None, torch.stack([(dy * x * rstd[:, None]).sum(dim=0), right[1]]))
    both = torch.stack([terms, db], dim=1)  # (rows, 2, cols)
    for block in (b for b in POWERS_OF_TWO if b < rows):
        partials = torch.stack([both[i : i + block].sum(dim=0) for i in range(0, rows, block)])
        # A plain tl.store of each block's partial row: in the interpreter the last program stores last;
        # on a GPU any program's store may stay, a different one in each element.
        predict(out, "store_race", ("BLOCK_ROWS", block), partials[-1])
        predict_each(out, "store_race", race(("BLOCK_ROWS", block), each_element=True), partials)
        predict(out, "first_rows_only", ("BLOCK_ROWS", block), partials[0])
    # the sums of no rows, for any block longer than the case
    no_rows = Alternatives.of(torch.zeros(1, right.numel()))
    for block in POWERS_OF_TWO[1:]:
        whole = rows - rows % block  # the rows of whole blocks
        if whole == 0:  # every row left out: out is 0, as other mistakes leave it too (no evidence)
            indistinct(out, "last_rows_left_out", ("BLOCK_ROWS", block), no_rows)
        elif whole < rows:
            predict(out, "last_rows_left_out", ("BLOCK_ROWS", block), both[:whole].sum(dim=0))
    return out


EXERCISES = [
    Exercise(
        id="layer_norm_dw_db",
        signature="layer_norm_dw_db(x, dy, mean, rstd, out)",
        description="a LayerNorm's dW and db, out[0, j] = sum over rows of dy * (x - mean) * rstd and "
        "out[1, j] = sum over rows of dy, for 2-D x and dy of one shape and any strides (float16 or "
        "float32), float32 mean and rstd per row, and a float32 out of (2, n_cols): sums down the columns",
        hint="start from a tile of rows: each program sums its rows into a partial row of dW and db, then "
        "the partial rows are combined; watch the combine (partial rows are added, never stored over "
        "each other, into an out that starts at zero) and xhat (shifted by the mean, then scaled).",
        cases=_cases,
        reference=_reference,
        compare="sum",
        tolerance=_tolerance,
        predictions=_predictions,
        mistakes=mistakes(MESSAGES, **_WORDS),
        identity=0.0,
        trait_mistakes={
            "fp16": "fp16_accumulation",
            "strided": "ignores_strides",
            "mean 3000": "cancels_digits",
        },
        trait_probes={"fp16": _float16_exact, "mean 3000": mean_near_zero},
        other_values=_other_values,
        out_rows=("dW", "db"),
    )
]
