"""The backward passes (notebook 10; issue 31): the gradient of a row reduction, itself a row reduction.

softmax_backward: dx[r, :] = y[r, :] * (dy[r, :] - sum(dy[r, :] * y[r, :])), from the forward's output y
and the incoming gradient dy, both 2-D of the same shape and strides. One reduction of the row (the dot
product of dy and y), then a pass that uses it, as in the forward: y and dy read once, dx written once.

The mistakes are the row's (the dot product over the wrong axis, the row offset, the strides, a float16
accumulator) and the formula's own: the factor y left out, the sum of dy alone instead of dy * y, and the
sign of the difference turned round. The battery's y are softmax outputs (each row sums to 1), some rows
nearly one-hot (the gradient is then small and a wrong sum shows plainly), with dy of mixed signs; float16
cases round y and dy, and the reference computes from the rounded values. dx has y's dtype.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from utils.checker.data import values
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case, scaled_and_shifted
from utils.checker.predictions import Predictions, predict, predict_missing_row_offset

MESSAGES = {
    "wrong_axis": "dx is off on every row: the sum of dy * y ran down each column instead of along each "
    "row. The sum belongs to one row, over its columns: reduce the (rows, columns) tile along axis=1, or "
    "the row's 1-D tile along axis=0.",
    "y_factor_missing": "dx equals dy - sum(dy * y): the factor y was left out. The softmax's Jacobian "
    "gives dx = y * (dy - sum(dy * y)).",
    "sum_of_dy_only": "dx equals y * (dy - sum(dy)): the row's sum was taken over dy alone. It is the dot "
    "product of dy and y, sum(dy * y), the gradient's component along y.",
    "sign_turned": "dx has the opposite sign: it is y * (dy - sum(dy * y)), the incoming gradient minus its "
    "component along y, not the component minus the gradient.",
    "missing_row_offset": "rows landed in the wrong place: every row of dx holds row 0's gradient, or only "
    "dx's first row was written. The row is missing from an input's offset (y_ptr + row * stride_row) or "
    "from dx's.",
    "ignores_strides": "only cases on transposed or sliced views fail, and every contiguous one passes: "
    "pass each tensor's stride(0) and stride(1), dx's too, to the kernel, and use each tensor's own two in "
    "its offsets (where the mixed case alone fails, its tensors laid out unlike each other, one tensor's "
    "strides served for another's); take n_rows and n_cols from a shape (x.stride(0) is n_cols only for a "
    "contiguous x).",
    "fp16_accumulation": "only float16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: the arithmetic went through float16, which keeps 11 significant bits: the "
    "row's sum of dy * y (added in it, or converted to it once summed in float32), or the products dy * y "
    "themselves (taken of float16 tiles, or kept in a float16 buffer such as dx before the subtraction). "
    "Convert the loaded tiles with .to(tl.float32), compute and sum in float32, and convert only what you "
    "store.",
}
_WORDS = dict(
    identity="other=0.0 for y and dy, whose product then adds 0", reset="nothing: dx is stored", out="dx"
)


def _y_and_dy(rows: int, cols: int, kind: str, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(y, dy) in float64: y a softmax of mixed logits (scaled by 8 for "peaked" rows, which come out
    nearly one-hot, and by 60 for "y with zeros"), dy of mixed signs, or within 1% of 1 ("dy near 1")."""
    logits = values(rows * cols, "mixed", seed).double().view(rows, cols)
    # "y with zeros": logits scaled by 60, whose smallest y (down to about e^-120) are 0 in float32
    scale = {"peaked": 8.0, "y with zeros": 60.0}.get(kind, 1.0)
    y = torch.softmax(logits * scale, dim=1)
    dy = values(rows * cols, "mixed", seed + 1).double().view(rows, cols)
    if kind == "dy near 1":  # dy - sum(dy * y) is then a small difference, and the sum's rounding shows
        dy = 1 + dy / 100
    if kind == "dy 0 in every 3rd row":  # dx is 0 there: a kernel that skips those rows leaves dx as it was
        dy[::3] = 0.0
    return y, dy


def _other_values(inputs: tuple[torch.Tensor, ...]) -> tuple[tuple[torch.Tensor, ...], str]:
    """The probes' B (Exercise.other_values): y a softmax again (of A's y times -1.5, plus 0.25, as logits:
    scaled, y would leave the range of a softmax), dy scaled and shifted."""
    y, dy = inputs
    y_other = torch.softmax(scaled_and_shifted(y.double()), dim=1).to(y.dtype)
    return (
        y_other,
        scaled_and_shifted(dy),
    ), "A's dy times -1.5, plus 0.25, and the softmax of A's y times -1.5, plus 0.25"


def _cases(large: bool) -> list[Case]:
    f32, f16 = torch.float32, torch.float16
    specs: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", f32, "contiguous"),
        (3, 5, "mixed", f32, "contiguous"),
        (7, 1000, "mixed", f32, "contiguous"),
        (131, 3, "mixed", f32, "contiguous"),  # many short rows
        (33, 515, "peaked", f32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", f16, "sliced"),
        (2, 16384, "dy near 1", f16, "contiguous"),  # a long row; dx a small difference of dy and the sum
        # Short rows: each y about 1/256, so dx stays above float16's smallest normal and a float16 sum or
        # difference shows (in the long row above, every |dx| is below it and within the tolerance's atol)
        (4, 256, "dy near 1", f16, "contiguous"),
        (6, 300, "peaked", f32, "contiguous"),
        (2, 4099, "mixed", f32, "sliced"),  # just over a tile of 4096
        (300, 64, "mixed", f32, "contiguous"),  # more rows than a persistent grid has programs on a CPU
        # y transposed, dy sliced, dx contiguous: one tensor's strides used for another's fail here
        (37, 300, "mixed", f32, "mixed"),
        (12, 40, "dy 0 in every 3rd row", f32, "contiguous"),
        # dx is 0 wherever y is: a kernel that skips those lanes leaves dx as it was
        (8, 100, "y with zeros", f32, "contiguous"),
        # the rows of the mixed case again, wider than its tile of 512: a plan kept by the number of rows
        (37, 640, "mixed", f32, "contiguous"),
        # one past a multiple of every chunk up to 1,024: a chunk loop that stops a chunk early shows
        (3, 1025, "mixed", f32, "contiguous"),
    ]
    if large:
        specs += [(4096, 1024, "mixed", f16, "contiguous"), (64, 16387, "mixed", f32, "sliced")]
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        y, dy = _y_and_dy(rows, cols, kind, 1100 + 2 * i)
        cases.append(row_case((y.to(dtype), dy.to(dtype)), (rows, cols), kind, layout, out_dtype=dtype))
    return cases


def _reference(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """dx = y * (dy - sum(dy * y)) per row, in float64."""
    return y * (dy - (dy * y).sum(dim=1, keepdim=True))


def _tolerance(case: Case) -> tuple[float, float]:
    """(atol, rtol): a float32 sum of n products errs by about sqrt(n) roundings of the largest |dy * y|
    (16 epsilons per sqrt(n), as the checker's sums allow), and each product and difference adds a few
    roundings of |dy| + |s|; atol is the largest of these over the case (dx scales them by y <= 1). A
    float16 dx rounds by up to 2^-11 relative, and by half of 2^-24 below 2^-14: rtol and a floor leave a
    factor of four over each."""
    y, dy = (x.double() for x in case.inputs)
    cols = y.shape[1]
    s = (dy * y).sum(dim=1, keepdim=True)
    eps = 2.0**-24
    sum_error = 16 * eps * cols**0.5 * (dy * y).abs().amax(dim=1, keepdim=True)
    # Not scaled by y: a prediction that leaves y out (dy - s) is judged by the same tolerance
    atol = (sum_error + 8 * eps * (dy.abs() + s.abs())).max().item()
    if case.out_dtype == torch.float16:
        return atol + 2.0**-24, 2e-3
    return atol, 1e-5


def _predictions(case: Case, on_gpu: bool) -> Predictions:
    y, dy = (x.float() for x in case.inputs)  # what a kernel computes with: float32
    rows, cols = y.shape
    out: Predictions = {}
    s = (dy * y).sum(dim=1, keepdim=True)
    predict(out, "y_factor_missing", None, dy - s)
    predict(out, "sum_of_dy_only", None, y * (dy - dy.sum(dim=1, keepdim=True)))
    predict(out, "sign_turned", None, y * (s - dy))
    predict(out, "wrong_axis", None, y * (dy - (dy * y).sum(dim=0, keepdim=True)))
    if rows > 1:
        right = _reference(y.double(), dy.double())
        first = _reference(y[:1].double(), dy[:1].double()).expand(rows, cols)
        predict_missing_row_offset(out, right, first)
    return out


def _float16_exact(case: Case) -> Case:
    """The probe for the "fp16" trait: `case` with y of 1/16, 1/8, ... on a few columns (0 elsewhere) and
    dy of small whole numbers, so that every product and sum is a few bits long and float16 holds it
    exactly: a float16 accumulator does no harm, and a mistake of another kind still shows."""
    y, dy = case.inputs
    rows, n = y.shape
    y_exact = torch.zeros(rows, n, dtype=torch.float64)
    for r in range(rows):
        hot = torch.linspace(0, n - 1, min(n, 16 >> (r % 4))).round().long().unique()
        y_exact[r, (hot + r) % n] = 1.0 / len(hot)
    dy_exact = (torch.arange(rows * n, dtype=torch.float64).view(rows, n) % 5) - 2
    inputs = (y_exact.to(y.dtype), dy_exact.to(dy.dtype))
    return replace(case, name=f"{case.name}, sums float16 holds exactly", inputs=inputs, traits=frozenset())


EXERCISES = [
    Exercise(
        id="softmax_backward",
        signature="softmax_backward(y, dy, dx)",
        description="dx[r, :] = y[r, :] * (dy[r, :] - sum(dy[r, :] * y[r, :])) for 2-D y and dy of one shape "
        "and any strides, float16 or float32, dx in y's dtype: the softmax's gradient from its output y",
        hint="start from the forward's one-row kernel: one reduction of the row, then a pass that uses "
        "it; watch which sum it is (dy against y, along the row) and its dtype (float32, whatever the "
        "inputs').",
        cases=_cases,
        reference=_reference,
        compare="sum",
        tolerance=_tolerance,
        predictions=_predictions,
        mistakes=mistakes(MESSAGES, **_WORDS),
        trait_mistakes={"fp16": "fp16_accumulation", "strided": "ignores_strides"},
        strided_out=True,  # dx comes with its strides, which notebook 10's dx kernels take
        trait_probes={"fp16": _float16_exact},
        other_values=_other_values,
    )
]
