"""The softmax family (notebook 08, the capstone; issue 17): out[r, :] = softmax(x[r, :]) for a 2-D x.

A row is reduced twice (its maximum, then its sum of exponentials) and then written whole, so the
mistakes are those of notebook 03's max (the sentinel), 02's sum (masked lanes that add) and 05's rows
(offsets, strides, float16), plus the softmax's own: no shift by the maximum, no division, the wrong
axis, and a row with no finite entry. This exercise's contract for such a row is zeros (torch.softmax
gives NaN), so a kernel must decide what it does there.

The battery holds rows of one column, short rows by the hundred, widths just past a power of two, rows
with some -inf entries and one that is all -inf, rows whose exponentials overflow or vanish in float32
without the shift, transposed and sliced views, and a long float16 row, whose sum of exponentials loses
digits when it is kept in float16 (its spacing there is 8). out has x's shape and dtype.

Predictions are computed in float32, as a kernel would compute them, one per way a learner pads the
masked lanes of a tile of BLOCK_SIZE columns: pad = (-n_cols) % BLOCK_SIZE lanes per row.
"""

from __future__ import annotations

import math

import torch

from utils.checker.data import values
from utils.checker.model import Case, Exercise, Layout, mistakes, row_case
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict, predict_missing_row_offset

MESSAGES = {
    "no_max_subtraction": "the rows of large values (100 to 300) or of very negative ones (-200 to -400) "
    "give NaN or zeros: exp(x) overflows float32 from x = 88.7 and is 0 below about -103. Subtract the "
    "row's maximum first, exp(x - max(x)): it changes nothing mathematically and keeps every "
    "exponential in (0, 1].",
    "masked_lanes_in_sum": "each row's sum of exponentials counted the masked lanes past the row's end: "
    "they were loaded as other=0.0, and exp(0 - max) was added for each. Load with "
    "other=float('-inf'), so that exp gives 0 there, or mask the exponentials with "
    "tl.where(mask, e, 0.0) before tl.sum.",
    "not_normalised": "out holds exp(x - max), undivided: each row's exponentials were not divided by "
    "their sum, or the sum they were divided by was 1.",
    "wrong_axis": "out is normalised down each column instead of along each row: the max and the sum "
    "must run over one row's columns, x[r, :], with the row from tl.program_id(0) and the columns from "
    "tl.arange.",
    "missing_row_offset": "rows landed in the wrong place: every row of out holds row 0's softmax, or "
    "only out's first row was written. The row is missing from the input's offset "
    "(x_ptr + row * stride_row) or from out's (out_ptr + row * out_stride_row).",
    "ignores_strides": "contiguous inputs pass but transposed or sliced views fail: pass x.stride(0) and "
    "x.stride(1) to the kernel and use both in the offsets (a row stride is not n_cols, and the column "
    "stride is not 1, for every view); out has strides of its own, and each tensor's offsets take that "
    "tensor's strides, in every kernel that reads or writes it (a second launch too).",
    "fp16_accumulation": "only float16 cases fail, and each passes when run again on values whose sums "
    "float16 holds exactly: the arithmetic went through float16, the row's sum of exponentials (which "
    "stops growing at 2048 for values near 1, loses digits long before, and overflows past 65,504) or "
    "the exponentials and the division themselves (a float16 spacing or more off). Convert the loaded "
    "tile with .to(tl.float32), compute in float32 (no .to(x's dtype) before a sum or a division), and "
    "convert only what you store.",
    # The predictions take the max as max(row, 0) on rows with masked lanes: what a running max that
    # starts at 0 gives on every row, so the sentence names both
    "wrong_sentinel": "rows whose values are all below 0 came out as if their maximum were 0 or more "
    "(exp(x - 0) is 0 in float32 below about -103, where exp(x - max) is not): the shift was a maximum "
    "that is not the row's, such as one that met a 0 not in the row. Masked lanes loaded with other=0.0 "
    "(load with other=float('-inf')), a running maximum that started at 0 (start it at float('-inf')), "
    "or a guard against -inf that left 0 in the maximum itself (m = tl.where(m == float('-inf'), 0.0, m) "
    "kept as the running or a chunk's maximum, or pairs padded with a maximum of 0: only the shift "
    "should use the 0), do that.",
    "all_neg_inf_row": "only the case with a row of -inf fails. A row with no finite entry is where a "
    "softmax without guards goes wrong: its max is -inf, and exp(-inf - (-inf)) is exp(NaN). This "
    "exercise asks for zeros there: guard the shift (tl.where(m == float('-inf'), 0.0, m)) and the "
    "division (tl.where(total > 0, e / total, 0.0)).",
}
_WORDS = dict(
    identity="other=float('-inf') for the max, whose exp then adds 0 to the sum",
    reset="nothing: each program stores its own rows",
)

NEG_INF = -math.inf


# The traits of the cases whose rows have no finite entry, or start with a run of -inf.
_TRAITS = {
    "a row of -inf": frozenset({"all_neg_inf"}),
    "one column, rows of -inf": frozenset({"all_neg_inf"}),
    "-inf for 9000 columns, then near -500": frozenset({"neg_inf_run", "starts_neg_inf"}),
}
# What a case's name says of its values, where the data's own kind says too little.
_LABELS = {"hot": "values 100 to 300", "cold": "values -400 to -200", "offset": "values near 10000"}


def _softmax_cases(large: bool) -> list[Case]:
    f32, f16 = torch.float32, torch.float16
    specs: list[tuple[int, int, str, torch.dtype, Layout]] = [  # rows, cols, kind, dtype, layout
        (1, 1, "mixed", f32, "contiguous"),
        (3, 5, "mixed", f32, "contiguous"),
        (7, 1000, "mixed", f32, "contiguous"),
        (131, 3, "mixed", f32, "contiguous"),  # many short rows
        (33, 515, "positive", f32, "transposed"),  # just over a tile of 512
        (20, 700, "mixed", f16, "sliced"),
        (2, 16384, "negative", f16, "contiguous"),  # a long row: a float16 running sum loses digits
        (5, 130, "some -inf", f32, "contiguous"),
        (3, 64, "a row of -inf", f32, "contiguous"),
        (6, 300, "hot", f32, "contiguous"),  # exp overflows float32 without the shift
        (6, 300, "cold", f32, "contiguous"),  # exp is 0 in float32 without the shift
        (2, 4099, "mixed", f32, "sliced"),  # just over a tile of 4096
    ]
    if large:
        specs += [(4096, 1024, "mixed", f16, "contiguous"), (64, 16387, "mixed", f32, "sliced")]
    # Last, so that the cases above keep their seeds (800 + position). Every exponential is 1, so the
    # row's sum, 65,600, passes float16's largest value (65,504): a float16 running sum overflows, whatever
    # the tile (16384 columns show it at tiles of 32 only).
    specs.append((1, 65600, "equal", f16, "contiguous"))
    # The maximum 100 above the rest, past the first 4,096 columns: a looped form that takes its shift
    # from the first tile alone (any tile up to 4,096) computes exp(x - shift) past float32's largest
    # value, where the right shift keeps it finite. The online battery's waves rise only 40 between tiles.
    specs.append((3, 5000, "a step of 100 at column 4100", f32, "contiguous"))
    # Rows 200 apart, many to a tile of rows: a shift by the tile's largest value instead of each row's
    # own leaves exp(-200) = 0 in float32 for the lower rows.
    specs.append((16, 10, "rows 200 apart", f32, "contiguous"))
    # Rows near -20,000, as an additive attention mask leaves them: a guard that clamps the max (max(m,
    # -1e4)) in place of testing for -inf shifts them too little, and every exp is 0.
    specs.append((2, 64, "near -20000", f32, "contiguous"))
    # A run of -inf longer than a tile, then values near -500: a guard that leaves 0 in the running max (or
    # in a chunk's max, or pads the pairs with a max of 0) makes every exp of these values 0.
    specs.append((2, 12000, "-inf for 9000 columns, then near -500", f32, "contiguous"))
    # One column, two of its rows -inf: the softmax of a one-element row is 1, but 0 for a row of -inf.
    specs.append((4, 1, "one column, rows of -inf", f32, "contiguous"))
    # Values near 10,000: the shift must come before any scaling (exp2(x * log2(e) - m * log2(e)) rounds two
    # products near 14,000, and exp(x - logsumexp) a logsumexp near 10,000).
    specs.append((2, 50, "offset", f32, "contiguous"))
    # The shape of the float16 case above again, in float32: a scratch or a launch kept by shape alone
    # (not by dtype) hands this call the float16 one's.
    specs.append((20, 700, "mixed", f32, "sliced"))
    cases = []
    for i, (rows, cols, kind, dtype, layout) in enumerate(specs):
        seed = 800 + i
        if kind == "some -inf":
            x = values(rows * cols, "mixed", seed).view(rows, cols)
            x[:, ::7] = NEG_INF
            x = x.to(dtype)
        elif kind == "equal":
            x = torch.zeros(rows, cols, dtype=dtype)
        elif kind == "a step of 100 at column 4100":
            x = values(rows * cols, "mixed", seed).view(rows, cols)
            x[:, 4100:] += 100.0
        elif kind == "rows 200 apart":
            x = values(rows * cols, "mixed", seed).view(rows, cols)
            x[1::2] += 200.0  # above, not below: a shift that met a 0 changes none of these rows
        elif kind == "near -20000":
            x = values(rows * cols, "mixed", seed).view(rows, cols) - 20000.0
        elif kind == "-inf for 9000 columns, then near -500":
            x = values(rows * cols, "mixed", seed).view(rows, cols) - 500.0
            x[:, :9000] = NEG_INF
        elif kind == "one column, rows of -inf":
            x = torch.tensor([[NEG_INF], [2.0], [0.0], [NEG_INF]])
        elif kind == "a row of -inf":
            x = values(rows * cols, "mixed", seed).view(rows, cols)
            x[1] = NEG_INF
            x = x.to(dtype)
        else:
            x = values(rows * cols, kind, seed, dtype=dtype).view(rows, cols)
        traits = _TRAITS.get(kind, frozenset())
        label = _LABELS.get(kind, kind)
        cases.append(row_case((x,), (rows, cols), label, layout, traits, out_dtype=dtype))
    return cases


def _float16_exact(case: Case) -> Case:
    """The probe for the "fp16" trait: `case` with rows of -30 but for 16, 8, 4 or 2 zeros (by row),
    spread over the row. exp(0) = 1 and exp(-30) is below float16's smallest value, so every sum of
    exponentials is a small whole number, which float16 holds exactly: summing them in float16 does no
    harm here, and each probability is 1 / 16, 1 / 8, ... A mistake of another kind still shows."""
    x = case.inputs[0]
    rows, n = x.shape
    data = torch.full((rows, n), -30.0, dtype=torch.float64)
    for r in range(rows):
        zeros = torch.linspace(0, n - 1, min(n, 16 >> (r % 4))).round().long().unique()
        data[r, (zeros + r) % n] = 0.0
    name = f"{case.name}, sums float16 holds exactly"
    return Case(name, (data.to(x.dtype),), case.out_shape, case.layout, frozenset(), case.out_dtype)


def _reference(x: torch.Tensor) -> torch.Tensor:
    """Softmax along each row in float64; a row with no finite entry (all -inf) gives zeros."""
    return torch.nan_to_num(torch.softmax(x, dim=1), nan=0.0)


def _softmax_tolerance(case: Case) -> tuple[float, float]:
    """(atol, rtol): a float32 kernel's exp of a shifted value is off by about ulp(x) relative (x up to
    400 here: 3e-5), and a float16 out rounds each probability by up to 2^-11 relative, or by half of
    2^-24, the spacing of float16's subnormals, below 2^-14. rtol leaves a factor of four over each. (Half
    a float16 spacing, which would fail a softmax computed in float16, leaves the predictions of the
    mistakes no room for their own roundings.)"""
    return (2.0**-24, 2e-3) if case.out_dtype == torch.float16 else (1e-12, 1e-4)


def _shifted(
    x: torch.Tensor, shift: torch.Tensor, pad: int, pad_value: float | None, guarded: bool
) -> torch.Tensor:
    """exp(x - shift) / (its row sum + pad * exp(pad_value - shift)), in float32 as a kernel computes it.
    `guarded`: a row whose sum is 0 gives zeros (the exercise's guard for a row of -inf), not 0/0 = NaN."""
    e = torch.exp(x - shift)
    total = e.sum(dim=1, keepdim=True)
    if pad and pad_value is not None:
        total = total + pad * torch.exp(pad_value - shift)
    return _divided(e, total, guarded)


def _divided(e: torch.Tensor, total: torch.Tensor, guarded: bool) -> torch.Tensor:
    """e / total, or with the guard a right kernel has: 0 where the total is 0 (a row of -inf)."""
    return torch.where(total > 0, e / total, 0.0) if guarded else e / total


def _guarded_shift(m: torch.Tensor) -> torch.Tensor:
    """A maximum as a right kernel shifts by it: 0 where it is -inf, so that exp(-inf - 0) gives 0."""
    return torch.where(m == NEG_INF, 0.0, m)


GUARDS = {False: "no guard on the division", True: "the division guarded (0 where the sum is 0)"}


def _softmax_predictions(case: Case, on_gpu: bool) -> Predictions:
    x64 = case.inputs[0].double()
    x = case.inputs[0].float()  # what a kernel computes with: float32
    rows, cols = x.shape
    out: Predictions = {}
    row_max = x.max(dim=1, keepdim=True).values
    for guarded, guard in GUARDS.items():
        unshifted = _shifted(x, torch.zeros_like(row_max), 0, None, guarded)
        predict(out, "no_max_subtraction", guard, unshifted)
    predict(out, "not_normalised", "no guard on the shift", torch.exp(x - row_max))
    predict(out, "not_normalised", "the shift guarded", torch.exp(x - _guarded_shift(row_max)))
    # A row of -inf only, unguarded: exp(-inf - (-inf)) is NaN there, and the other rows are right
    empty = torch.isneginf(x).all(dim=1)
    if bool(empty.any()):
        predict(out, "all_neg_inf_row", None, torch.where(empty[:, None], torch.nan, _reference(x64)))
    # Over the columns: a single row gives 1.0 everywhere (a GPU runs the 1 x 65,600 case's 65,600 programs)
    predict(out, "wrong_axis", None, torch.nan_to_num(torch.softmax(x64, dim=0), nan=0.0))
    if rows > 1:
        first = _reference(x64[:1]).expand(rows, cols)
        predict_missing_row_offset(out, _reference(x64), first)
    # The masked lanes of a row's last tile, padded with 0.0: in the max only, in the sum only, or both.
    zero_max = torch.maximum(row_max, torch.zeros_like(row_max))
    # A maximum that met a 0 wherever it came from: a running max started at 0, a guard against -inf
    # that left 0 in the max itself, pairs padded with a max of 0
    for guarded, guard in GUARDS.items():
        predict(
            out, "wrong_sentinel", ("a maximum of 0 or more", guard), _shifted(x, zero_max, 0, None, guarded)
        )
    by_pad: dict[int, dict[tuple[str, str], torch.Tensor]] = {}
    for b in POWERS_OF_TWO:
        pad = -cols % b
        if not pad:
            continue
        if pad not in by_pad:
            by_pad[pad] = {
                (where, guard): _shifted(x, shift, pad, pad_value, guarded)
                for where, shift, pad_value in (
                    ("other=0.0 in the max", zero_max, None),
                    ("other=0.0 in the sum", row_max, 0.0),
                    ("other=0.0 in the max and the sum", zero_max, 0.0),
                )
                for guarded, guard in GUARDS.items()
            }
        for (where, guard), result in by_pad[pad].items():
            code = "wrong_sentinel" if where == "other=0.0 in the max" else "masked_lanes_in_sum"
            predict(out, code, (b, where, guard), result)
    return out


def softmax(id: str, signature: str, description: str, hint: str) -> Exercise:
    return Exercise(
        id=id,
        signature=signature,
        description=description,
        hint=hint,
        cases=_softmax_cases,
        reference=_reference,
        compare="sum",
        tolerance=_softmax_tolerance,
        predictions=_softmax_predictions,
        mistakes=mistakes(MESSAGES, **_WORDS),
        trait_mistakes={
            "fp16": "fp16_accumulation",
            "strided": "ignores_strides",
            "all_neg_inf": "all_neg_inf_row",
        },
        trait_probes={"fp16": _float16_exact},
    )


EXERCISES = [
    softmax(
        "softmax",
        "softmax(x, out)",
        "out[r, :] = softmax(x[r, :]) for 2-D x of any strides, float16 or float32, out in x's dtype; a "
        "row of -inf gives zeros",
        "start from section 3's one-row kernel and notebook 05's 2-D tile; watch the masked lanes "
        "(they count in neither the maximum nor the sum) and a row with no finite entry, which gives "
        "zeros, not NaN.",
    ),
]
