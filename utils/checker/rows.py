"""Relations that hold row by row on a 2-D result, for utils.checker.describe: every wrong row holds another
row's right values (`other_rows`), or every wrong row is its right values times a number of its own
(`row_factors`), named when it is one of that row's inputs (a LayerNorm backward's rstd) or its square or
reciprocal. Like utils.checker.relations, each is said only when it holds on every wrong row of every
failing case, and neither names a cause.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from utils.checker.judge import Run
from utils.checker.model import Exercise
from utils.checker.relations import RELATION_RTOL, Finding, wrong_mask


def rows_close(got: torch.Tensor, want: torch.Tensor, half: bool) -> torch.Tensor:
    """Which rows of `got` equal the rows of `want` beside them: within 1e-4 relative (1e-6 of the
    case's largest value absolute), or within float16's rounding where out is float16 (`half`)."""
    scale = want.abs().nan_to_num(0.0, 0.0, 0.0).max().clamp_min(1e-30)
    rtol, atol = (2.0**-10, 2.0**-24) if half else (1e-4, 1e-6 * float(scale))
    same = ((got - want).abs() <= rtol * want.abs() + atol) | (got == want)
    return (same | (got.isnan() & want.isnan())).all(dim=-1)


def other_rows(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """On 2-D outputs (and 1-D ones of one value per row, read as rows of one): every wrong row holds the
    right values of another row: row 0, the row a fixed shift away, or the rows in reverse order, the
    same on every case. The first wrong row of the first case proposes the rows it matches; each proposal
    is then checked on every wrong row of every failing case."""
    grids = []
    noun, values = "row", "values"
    for run in failing:
        shape = run.case.out_shape
        if len(shape) == 1 and shape[0] > 1:
            rows, cols = shape[0], 1
            noun, values = "element", "value"
        elif len(shape) == 2:
            rows, cols = shape
        else:
            return None
        wrong = wrong_mask(exercise, run).reshape(rows, cols).any(dim=1).nonzero().flatten()
        half = run.case.out_dtype == torch.float16
        grids.append((run.result.reshape(rows, cols), run.expected.reshape(rows, cols), wrong, half))
    got, want, wrong, half = grids[0]
    if not len(wrong):
        return None
    first = int(wrong[0])
    matching = rows_close(got[first].expand_as(want), want, half).nonzero().flatten().tolist()
    proposals = [j for j in matching if j != first]

    def holds(source: Callable[[torch.Tensor, int], torch.Tensor]) -> bool:
        for got, want, wrong, half in grids:
            rows_from = source(wrong, len(want))
            if ((rows_from < 0) | (rows_from >= len(want))).any() or (rows_from == wrong).any():
                return False
            if not bool(rows_close(got[wrong], want[rows_from], half).all()):
                return False
        return True

    if 0 in proposals and holds(lambda w, rows: torch.zeros_like(w)):
        return Finding("other_row", f"every wrong {noun} holds {noun} 0's right {values}", exact=True)
    if len(want) - 1 - first in proposals and holds(lambda w, rows: rows - 1 - w):
        text = f"every wrong {noun} holds the right {values} of another {noun}: "
        return Finding(
            "other_row", text + f"{noun} i holds {noun} n - 1 - i's, the order reversed", exact=True
        )
    rows = len(want)
    for k in sorted({j - first for j in proposals} | {j - first - rows for j in proposals}, key=abs):

        def shifted(w: torch.Tensor, rows: int, k: int = k) -> torch.Tensor:
            return (w + k) % rows  # the last row's neighbour is the first: a (row + 1) % n_rows slip

        if holds(shifted):
            sign = "+" if k > 0 else "-"
            text = f"every wrong {noun} holds the right {values} of another {noun}: "
            text += f"{noun} i holds {noun} i {sign} {abs(k)}'s"
            if any(bool(((w + k < 0) | (w + k >= len(want))).any()) for _, want, w, _ in grids):
                text += f", counting round from the last {noun} to the first"
            return Finding("other_row", text, exact=True)
    return None


def row_factors(exercise: Exercise, failing: list[Run]) -> Finding | None:
    """On 2-D outputs: every wrong row is its right values times a factor of its own, the factors not all
    one number (relations.factor says that one). Each wrong row's factor is read off its largest right
    values and checked on every element of the row; a non-finite value, or right elements beside wrong
    ones (factor 1), and no relation is said. Two rows at least must show it on two values or more: a row
    of one value is a multiple of anything.
    The factors are named when, on every wrong row, they equal that row's value of an input of one value
    per row (or its square, or its reciprocal): that is measured, not a guess of the line."""
    factors, per_row_inputs, evidence = [], [], 0
    names = exercise.input_names
    for run in failing:
        shape = run.case.out_shape
        if len(shape) != 2 or shape[1] < 2:
            return None
        got = run.result.double().reshape(shape)
        want = run.expected.double().reshape(shape)
        # how far the row may stray from c times its right values, relative to its largest: out's rounding
        narrow = run.case.out_dtype in (torch.float16, torch.bfloat16)
        rtol = torch.finfo(run.case.out_dtype).eps if narrow else RELATION_RTOL
        wrong_rows = wrong_mask(exercise, run).reshape(shape).any(dim=1).nonzero().flatten()
        for row in wrong_rows.tolist():
            g, w = got[row], want[row]
            scale = float(w.abs().max())
            big = w.abs() >= 0.5 * scale
            if not (g.isfinite().all() and w.isfinite().all()) or scale == 0:
                return None
            evidence += int((w.abs() >= 0.1 * scale).sum()) >= 2  # a row of one value is any multiple of it
            c = float((g[big] / w[big]).median())
            if c == 0 or float((g - c * w).abs().max()) > 2 * rtol * abs(c) * scale:
                return None
            factors.append(c)
        # the inputs holding one value per row, by name, at the wrong rows
        inputs = run.case.inputs
        per_row_inputs.append(
            {
                names[i] if len(names) == len(inputs) else f"input {i + 1}": x.double()[wrong_rows]
                for i, x in enumerate(inputs)
                if x.dim() == 1 and x.numel() == shape[0]
            }
        )
    if evidence < 2:
        return None
    values = torch.tensor(factors, dtype=torch.float64)
    if float(values.max() - values.min()) <= 1e-3 * float(values.abs().max()):
        return None  # one factor everywhere
    text = "every wrong row is its right values times a number of its own, "
    for name in dict.fromkeys(k for found in per_row_inputs for k in found):
        if not all(name in found for found in per_row_inputs):
            continue
        row_values = torch.cat([found[name] for found in per_row_inputs])
        for form, make in (
            (name, lambda v: v),
            (f"{name} squared", lambda v: v * v),
            (f"1 / {name}", lambda v: 1 / v),
        ):
            if bool(((values - make(row_values)).abs() <= 1e-3 * values.abs()).all()):
                return Finding("row_factor", text + f"that row's {form}", exact=True)
    low, high = float(values.min()), float(values.max())
    return Finding("row_factor", text + f"from {low:.4g} to {high:.4g} over the wrong rows", exact=True)
