"""The split softmax (notebook 08's long rows; issue 30): softmax's contract, with each long row split across
programs. Each program reduces its chunk of the row to a (max, sum) pair; the row's pairs are combined into
its maximum M and sum S (notebook 06's merge); each chunk is written as exp(x - M) / S.

The mistakes are the online softmax's, and the split's own: the chunks' sums added without weighing each by
exp(m_j - M), each chunk normalised by its own pair, and a chunk whose entries are all -inf (its maximum
-inf, so exp(-inf - (-inf)) = NaN) inside a row that has values. Chunks that overlap or leave a column out
match no prediction; utils.checker.describe reports where their errors fall. Predictions are made for
chunks of a power of two in width, and for a row cut into k nearly equal chunks (k = 2 to 8).

The battery is the online softmax's, with two long rows whose maxima move along the row (every chunk's
maximum differs) and rows that start with a run of -inf longer than most chunks.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from utils.checker.data import values
from utils.checker.families.softmax import (
    _WORDS,
    GUARDS,
    NEG_INF,
    _divided,
    _guarded_shift,
    _reference,
)
from utils.checker.families.softmax import (
    EXERCISES as SOFTMAX_EXERCISES,
)
from utils.checker.families.softmax_online import (
    ONLINE_MESSAGES,
    _online_cases,
    _online_predictions,
    _waves,
    predict_neg_inf_runs,
)
from utils.checker.model import Case, mistakes
from utils.checker.predictions import POWERS_OF_TWO, Predictions, predict

SPLIT_MESSAGES = {
    **ONLINE_MESSAGES,
    "split_sum_not_rescaled": "only rows longer than one chunk fail: the chunks' sums of exponentials "
    "were added as they were, but each was taken against its own chunk's maximum m_j. Weigh each by "
    "exp(m_j - M), M the row's maximum, before adding: S = sum over chunks of s_j * exp(m_j - M) "
    "(notebook 06's merge of (max, sum) pairs).",
    "chunk_normalised_alone": "only rows longer than one chunk fail, and each of their chunks came out as "
    "a softmax of its own (its values sum to 1): every chunk was normalised by its own (max, sum). "
    "Combine the row's pairs into its (M, S) first, then write exp(x - M) / S in every chunk.",
    "neg_inf_chunk": "only the rows that start with a run of -inf longer than a chunk fail: such a chunk's "
    "maximum is -inf, and exp(-inf - (-inf)) is NaN, which the row's sum takes on (and a guarded "
    "division turns into zeros). Shift a chunk whose maximum is -inf by 0, so that its sum is 0; its "
    "pair (-inf, 0) then weighs exp(-inf - M) = 0 in the row's sum.",
}


def _chunks(x: torch.Tensor, width: int) -> torch.Tensor:
    """x (rows, cols) as (rows, chunks, width), the last chunk padded with -inf."""
    rows, cols = x.shape
    return torch.cat([x, x.new_full((rows, -cols % width), NEG_INF)], dim=1).view(rows, -1, width)


def _split_layouts(cols: int) -> dict[str, int]:
    """The chunk widths a split row is likely cut at, by name: a power of two narrower than the row, or
    the row cut into k nearly equal chunks (k = 2 to 8), cdiv(cols, k) columns each."""
    layouts = {f"chunks of {w}": w for w in POWERS_OF_TWO if 16 <= w < cols}
    for k in range(2, 9):
        width = -(-cols // k)
        if width < cols:
            layouts.setdefault(f"{k} chunks of {width}", width)
    return layouts


def _split_predictions(case: Case, on_gpu: bool) -> Predictions:
    """The online softmax's predictions, and for each chunk layout (the call's CHUNK= where it gives one):
    the chunks' sums added without rescaling, and each chunk normalised by its own (max, sum); in float32,
    as a kernel computes them."""
    out = _online_predictions(case, on_gpu)
    x = case.inputs[0].float()
    rows, cols = x.shape
    row_shift = _guarded_shift(x.max(dim=1, keepdim=True).values)
    e_row = torch.exp(x - row_shift)
    for layout, width in _split_layouts(cols).items():
        # a call's CHUNK= sets the chunks' width, whatever width a kernel takes by default: each form then
        # cuts this case's rows as the call asks
        width = int(case.kwargs.get("CHUNK", width))
        chunks = _chunks(x, width)
        shift = _guarded_shift(chunks.max(dim=2, keepdim=True).values)
        e = torch.exp(chunks - shift)
        sums = e.sum(dim=2, keepdim=True)
        for guarded, guard in GUARDS.items():
            added = _divided(e_row, sums.sum(dim=1), guarded)
            predict(out, "split_sum_not_rescaled", (layout, guard), added)
            alone = _divided(e, sums, guarded).reshape(rows, -1)[:, :cols]
            predict(out, "chunk_normalised_alone", (layout, guard), alone)
        predict_neg_inf_runs(out, x, torch.isneginf(chunks).all(dim=2).any(dim=1), layout, "neg_inf_chunk")
    return out


def _split_reference(x: torch.Tensor, CHUNK: int | None = None) -> torch.Tensor:
    """The softmax of each row: the chunks a call asks for (CHUNK=) change nothing in the result."""
    return _reference(x)


def _split_cases(large: bool) -> list[Case]:
    """The online softmax's battery (few long rows whose maxima move along the row among them), rows cut
    into 12 chunks of 512 columns by the call's CHUNK=512, rows that start with a run of -inf longer
    than most chunks, then values, a row of 18 chunks, and a step inside a chunk's second tile."""
    cases = _online_cases(large)  # among them rows of 20,001 columns whose maxima move
    # called with CHUNK=512, below the default tile of 1,024 columns and cutting each row into 12 chunks
    # (more than 8 pairs)
    # (after the same rows with the default CHUNK: a plan kept by shape alone, not by CHUNK, fails)
    name = "2x6001 float32 rising and falling, contiguous"
    cases.append(Case(name, (_waves(2, 6001, 894),), (2, 6001)))
    cases.append(Case(name + ", CHUNK=512", (_waves(2, 6001, 894),), (2, 6001), keywords=(("CHUNK", 512),)))
    x = values(3 * 9000, "mixed", 896).view(3, 9000)
    x[:, :5000] = NEG_INF
    name = "3x9000 float32 -inf for 5000 columns, then values, contiguous"
    cases.append(Case(name, (x,), (3, 9000), traits=frozenset({"neg_inf_run", "starts_neg_inf"})))
    # 18 chunks of 4,096 (more than 16 pairs to merge), and a step of 100 inside a chunk's second tile of
    # 1,024 (a chunk's sum taken against its first tile's maximum overflows there)
    cases.append(
        Case("1x70000 float32 mixed, contiguous", (values(70000, "mixed", 897).view(1, 70000),), (1, 70000))
    )
    x = values(3 * 5000, "mixed", 898).view(3, 5000)
    x[:, 1100:] += 100.0
    cases.append(Case("3x5000 float32 a step of 100 at column 1100, contiguous", (x,), (3, 5000)))
    return cases


EXERCISES = [
    replace(
        SOFTMAX_EXERCISES[0],
        id="softmax_split",
        signature="softmax_split(x, out, CHUNK=4096)",
        reference=_split_reference,
        description="softmax with each long row split across programs: each program reduces its chunk "
        "of the row to a (max, sum) pair, the row's pairs are combined into its maximum M and sum S, and "
        "each chunk is written as exp(x - M) / S",
        hint='start from "A row split across programs"; watch the combine (each chunk\'s sum was taken '
        "against its own maximum), the chunk boundaries (every column in exactly one chunk), and a chunk "
        "of -inf only.",
        cases=_split_cases,
        predictions=_split_predictions,
        mistakes=mistakes(SPLIT_MESSAGES, **_WORDS),
        trait_mistakes={
            **SOFTMAX_EXERCISES[0].trait_mistakes,
            "neg_inf_run": "neg_inf_chunk",
            "starts_neg_inf": "starts_neg_inf",
        },
        # a chunk of -inf only shows as a first tile of -inf only does, on rows whose run of -inf is longer
        # than both: the split's own word for it
        yields={"neg_inf_tile": frozenset({"neg_inf_chunk"})},
    )
]
