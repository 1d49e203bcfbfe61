"""The online softmax (notebook 08's long rows; issue 30): softmax's contract, with each row read in tiles,
twice: a running max and a running sum of exponentials rescaled as the max grows (Milakov and Gimelshein),
then the normalised values.

The mistakes are the softmax's, and the running sum's own: not rescaled when the max grows, and a running
max that is still -inf (a row that starts with -inf, longer than a tile) subtracted from itself. The
battery is the softmax's, with rows whose tile maxima rise and fall along the row and rows that start with
9,000 values of -inf.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from utils.checker.data import values
from utils.checker.families.softmax import (
    _WORDS,
    GUARDS,
    MESSAGES,
    NEG_INF,
    _divided,
    _guarded_shift,
    _reference,
    _softmax_cases,
    _softmax_predictions,
)
from utils.checker.families.softmax import (
    EXERCISES as SOFTMAX_EXERCISES,
)
from utils.checker.model import Case, mistakes, row_case
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict

ONLINE_MESSAGES = {
    **MESSAGES,
    "starts_neg_inf": "only the rows that start with -inf fail: the row of -inf, and the rows whose first "
    "values are -inf. While every value so far is -inf, the max m (or the running max) is -inf, and "
    "exp(x - m) is exp(-inf - (-inf)) = NaN: shift by tl.where(m == float('-inf'), 0.0, m) in every pass "
    "and every rescale, and guard the division (tl.where(total > 0, e / total, 0.0)): this exercise asks "
    "for zeros where a row has no finite entry.",
    "neg_inf_tile": "only the rows that start with a run of -inf longer than a tile fail (the row of -inf "
    "alone passes): there a pass meets finite values after tiles of -inf only. While every value so far "
    "is -inf, the running max m is -inf, and exp(x - m), or a rescale exp(m - m_new), is "
    "exp(-inf - (-inf)) = NaN unless m is guarded: shift by tl.where(m == float('-inf'), 0.0, m) in every "
    "pass and every rescale.",
    "running_sum_not_rescaled": "rows that are longer than one tile fail: the running sum of "
    "exponentials was not rescaled when the running max grew. Every term already in s was taken "
    "against the old max m: before adding a tile's exp(x - m_new), multiply s by exp(m - m_new).",
}


def predict_neg_inf_runs(out: Predictions, x: torch.Tensor, empty_part: torch.Tensor, variant, code: str):
    """A max left at -inf and subtracted from itself: where a row has a part (a first tile, a chunk) of -inf
    only (`empty_part`, per row), exp(-inf - (-inf)) = NaN reaches the row's sum, and the row comes out
    NaN, or 0 with the division guarded. `code` spares a row of -inf only (it is right there: its max is
    -inf from the start); "starts_neg_inf" does not, and has no guard on the division (with one, a row of
    -inf comes out right, as `code` has it)."""
    if not bool(empty_part.any()):  # most cases: nothing to predict, and no reference to compute
        return
    reference = _reference(x.double())
    beside_values = empty_part & ~torch.isneginf(x).all(dim=1)
    if bool(beside_values.any()):
        for guarded, guard in GUARDS.items():
            wrong = torch.where(beside_values[:, None], 0.0 if guarded else torch.nan, reference)
            predict(out, code, (variant, guard), wrong)
    wrong = torch.where(empty_part[:, None], torch.nan, reference)
    predict(out, "starts_neg_inf", (variant, GUARDS[False]), wrong)


def _online_predictions(case: Case, on_gpu: bool) -> Predictions:
    """The softmax's predictions, and a running sum never rescaled: for tiles of b columns,
    s = sum over tiles t of sum(exp(x_t - M_t)), with M_t the running max after tile t, and
    out = exp(x - M) / s with M the row's max."""
    out = _softmax_predictions(case, on_gpu)
    x = case.inputs[0].float()
    rows, cols = x.shape
    e = torch.exp(x - _guarded_shift(x.max(dim=1, keepdim=True).values))
    for b in POWERS_OF_TWO:
        predict_neg_inf_runs(out, x, torch.isneginf(x[:, :b]).all(dim=1), b, "neg_inf_tile")
        if b >= cols:  # one tile: nothing to rescale
            break
        tiled = torch.cat([x, x.new_full((rows, -cols % b), NEG_INF)], dim=1).view(rows, -1, b)
        running = _guarded_shift(tiled.max(dim=2).values.cummax(dim=1).values)  # after each tile
        s = torch.exp(tiled - running[:, :, None]).sum(dim=(1, 2)).reshape(rows, 1)
        for guarded, guard in GUARDS.items():
            predict(out, "running_sum_not_rescaled", (b, guard), _divided(e, s, guarded))
    return out


def _waves(rows: int, cols: int, seed: int) -> torch.Tensor:
    """Rows whose tile maxima rise and fall along the row: three waves of height 20 a row, each row's
    phase shifted, plus noise; so one row's maximum sits early, another's late, and the running maximum
    of a tiled pass grows at different tiles in different rows (exp(20) makes a wrong rescale plain)."""
    c = torch.arange(cols, dtype=torch.float64) / cols
    phase = torch.arange(rows, dtype=torch.float64)[:, None] / rows
    noise = values(rows * cols, "mixed", seed).double().view(rows, cols)
    return (20 * torch.sin(2 * math.pi * (3 * c + phase)) + noise).float()


def _online_cases(large: bool) -> list[Case]:
    """The softmax's battery; rows whose tile maxima rise and fall along the row, at 3,001 columns and at
    20,001, so that tiles of 8,192 (the exercise's default) see the running max grow too; rows that start
    with 9,000 values of -inf, longer than such a tile; and, on a GPU, a row longer than one program's
    registers hold."""
    # the row of -inf starts with -inf too: a kernel with no guard anywhere fails both kinds
    cases = [
        replace(case, traits=case.traits | {"starts_neg_inf"}) if "all_neg_inf" in case.traits else case
        for case in _softmax_cases(large)
    ]
    cases.append(Case("8x3001 float32 rising and falling, contiguous", (_waves(8, 3001, 898),), (8, 3001)))
    cases.append(Case("2x20001 float32 rising and falling, contiguous", (_waves(2, 20001, 897),), (2, 20001)))
    # the same 100 higher: a rescale from one finite running max to the next, exp(m) / exp(m_new) in place
    # of exp(m - m_new), overflows there (exp(100) is past float32's largest value)
    high = Case(
        "2x20001 float32 rising and falling, 100 higher, contiguous",
        (_waves(2, 20001, 893) + 100,),
        (2, 20001),
    )
    cases.append(high)
    x = values(2 * 12000, "mixed", 895).view(2, 12000)
    x[:, :9000] = NEG_INF
    name = "2x12000 float32 -inf for 9000 columns, then values, contiguous"
    cases.append(Case(name, (x,), (2, 12000), traits=frozenset({"neg_inf_run", "starts_neg_inf"})))
    # -inf for two whole tiles of 8,192 and more: a guard on the running max in the first tile alone (the
    # first tile taken before the loop) leaves the second's exp(-inf - (-inf)) = NaN
    x = values(2 * 20001, "mixed", 891).view(2, 20001)
    x[:, :17000] = NEG_INF
    name = "2x20001 float32 -inf for 17000 columns, then values, contiguous"
    cases.append(Case(name, (x,), (2, 20001), traits=frozenset({"neg_inf_run", "starts_neg_inf"})))

    # a step of 200 at column 8,192, the start of a tile for every tile up to 8,192: a tile's exponentials
    # summed against the maximum before it, then rescaled, overflow there; and a transposed row of more
    # than one tile (a pointer moved by BLOCK_SIZE elements, not BLOCK_SIZE column strides)
    x = values(2 * 20001, "mixed", 892).view(2, 20001)
    x[:, 8192:] += 200.0
    cases.append(Case("2x20001 float32 a step of 200 at column 8192, contiguous", (x,), (2, 20001)))
    x = values(3 * 9000, "mixed", 891).view(3, 9000)
    cases.append(row_case((x,), (3, 9000), "mixed", "transposed"))

    if large:
        x = values(8 * 65536, "mixed", 899).view(8, 65536)
        cases.append(Case("8x65536 float32 mixed, contiguous", (x,), (8, 65536), out_dtype=torch.float32))
    return cases


EXERCISES = [
    replace(
        SOFTMAX_EXERCISES[0],
        id="softmax_online",
        signature="softmax_online(x, out)",
        description="softmax with the row read in tiles, twice: a running max and a running sum of "
        "exponentials rescaled as the max grows (Milakov and Gimelshein), then the normalised values",
        hint='start from the looped softmax of "Long rows"; watch the running sum, taken against a '
        "maximum that can still grow, and the -inf contract while every value so far is -inf.",
        cases=_online_cases,
        predictions=_online_predictions,
        mistakes=mistakes(ONLINE_MESSAGES, **_WORDS),
        trait_mistakes={
            **SOFTMAX_EXERCISES[0].trait_mistakes,
            "neg_inf_run": "neg_inf_tile",
            "starts_neg_inf": "starts_neg_inf",
        },
    )
]
